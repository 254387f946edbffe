"""The usage log the hooks write: one line of ids and sizes per brief and per
checkpoint, bounded and rotated, never a memory's text; a log that is broken
in any way costs the hook one stderr line and nothing else."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import CliRunner
from helpers import REPO
from test_adapter import output, payload, run_hook

from tree_ring.store import usage_log

LOG = Path(".tree-ring") / "receipts" / usage_log.LOG


def lines(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / LOG).read_text().splitlines()]


def remember(run_cli: CliRunner, text: str) -> str:
    result = run_cli("--json", "remember", text)
    assert result.code == 0, result.err
    return str(result.json()["id"])


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_a_brief_logs_its_ids_bytes_and_tokens_and_no_text(
    project_root: Path, run_cli: CliRunner, harness: str
) -> None:
    first = remember(run_cli, "Deploys freeze on Fridays after the release branch is cut")
    second = remember(run_cli, "The staging database is reset every night at two")
    done = output(run_hook(harness, payload(f"{harness}-session-start", project_root)))
    text = done["hookSpecificOutput"]["additionalContext"]
    [entry] = lines(project_root)
    assert entry["event"] == "brief" and entry["harness"] == harness
    assert set(entry["ids"]) == {first, second}  # type: ignore[arg-type]
    assert entry["bytes"] == len(text.encode()) and entry["tokens"] == -(-len(text.encode()) // 4)
    assert entry["session"] == payload(f"{harness}-session-start", project_root)["session_id"]
    raw = (project_root / LOG).read_text()
    assert "Deploys" not in raw and "staging" not in raw


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_a_checkpoint_that_blocks_logs_its_size_and_one_that_passes_logs_nothing(
    project_root: Path, harness: str
) -> None:
    stop = payload(f"{harness}-stop", project_root)
    reason = output(run_hook(harness, stop))["reason"]
    [entry] = lines(project_root)
    assert (entry["event"], entry["ids"]) == ("checkpoint", [])
    assert entry["bytes"] == len(reason.encode())
    assert output(run_hook(harness, stop)) == {}  # the same turn: no second checkpoint
    assert len(lines(project_root)) == 1


def test_the_log_is_rotated_to_one_older_file(
    project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(usage_log, "MAX_BYTES", 2_000)
    for n in range(60):
        usage_log.append(project_root, "recall", harness="person", session=None,
                         ids=[f"mem_{n}"], size=10)  # fmt: skip
    folder = project_root / LOG.parent
    assert {p.name for p in folder.iterdir()} == {usage_log.LOG, usage_log.ROTATED}
    assert (folder / usage_log.LOG).stat().st_size <= 2_000
    assert (folder / usage_log.ROTATED).stat().st_size <= 2_000
    kept = [e["ids"][0] for e in usage_log.read(project_root).entries]
    # The newest lines are all kept, in order; the oldest went with the rotation.
    assert kept == [f"mem_{n}" for n in range(60 - len(kept), 60)] and "mem_59" in kept


def test_a_forgotten_memorys_text_is_nowhere_in_the_log(
    project_root: Path, run_cli: CliRunner
) -> None:
    secret_ish = "The vendor portal login page lives at an odd path nobody remembers"
    memory_id = remember(run_cli, secret_ish)
    run_hook("codex", payload("codex-session-start", project_root))
    assert run_cli("recall", "vendor portal").code == 0
    assert run_cli("refute", memory_id, "--reason", "the portal path moved").code == 0
    for mode in ("redact", "delete"):
        run_cli("forget", memory_id, "--mode", mode, "--reason", "gone")
    folder = project_root / LOG.parent
    held = b"".join(p.read_bytes() for p in folder.iterdir() if p.name.startswith("usage"))
    assert memory_id.encode() in held  # the id stays: it says nothing
    for word in ("vendor", "portal", "login", "odd path"):
        assert word.encode() not in held


@pytest.mark.parametrize("damage", ["link", "directory", "garbage", "huge", "unwritable-folder"])
def test_a_broken_log_never_costs_the_brief(
    project_root: Path, run_cli: CliRunner, tmp_path: Path, damage: str
) -> None:
    remember(run_cli, "Deploys freeze on Fridays after the release branch is cut")
    folder = project_root / LOG.parent
    folder.mkdir(exist_ok=True)
    path = folder / usage_log.LOG
    if damage == "link":
        target = tmp_path / "elsewhere.jsonl"
        target.write_text("")
        path.symlink_to(target)
    elif damage == "directory":
        path.mkdir()
    elif damage == "garbage":
        path.write_bytes(b'\x00\xff not json\n{"event": 3}\n[1, 2]\n')
    elif damage == "huge":
        path.write_bytes(b"x" * (usage_log.MAX_READ + 10))
    else:
        folder.chmod(0o500)
    try:
        proc = run_hook("codex", payload("codex-session-start", project_root))
    finally:
        folder.chmod(0o700)
    if damage in ("link", "directory"):
        # Anything in receipts/ but a regular file makes the folder unusable
        # (`project.receipts_problem`): nothing is read or written through it,
        # the hook says so in one line, and the brief goes out as ever.
        text = output(proc)["hookSpecificOutput"]["additionalContext"]
        assert "Deploys freeze on Fridays" in text
        assert b"usage.jsonl is not a regular file" in proc.stderr
        assert damage == "directory" or (tmp_path / "elsewhere.jsonl").read_text() == ""
        return
    text = output(proc)["hookSpecificOutput"]["additionalContext"]
    assert "Deploys freeze" in text
    if damage in ("garbage", "huge"):
        read = usage_log.read(project_root)
        assert [e["event"] for e in read.entries] == ["brief"]
        assert read.skipped >= 1
    elif os.geteuid() != 0:
        # The folder this user cannot write costs the receipt, said in one
        # line; the usage log lives beside it, so it is not tried.
        assert b"receipt not written" in proc.stderr
        assert b"usage not logged" not in proc.stderr and not path.exists()


def test_usage_says_what_it_skipped(project_root: Path, run_cli: CliRunner) -> None:
    shown = "mem_20260101_000000_00000000000a"
    usage_log.append(project_root, "brief", harness="codex", session="s1", ids=[shown], size=8)
    entry = {"event": "brief", "harness": "codex", "session": "s1", "ids": [shown], "bytes": 8}
    # No entry of ours: a time that is none, or ahead of the clock; a size
    # past any brief's; an id that is no memory's.
    impossible = [
        {**entry, "at": "9999-99-99T99:99:99.000000Z"},
        {**entry, "at": "9999-12-31T00:00:00.000000Z"},
        {**entry, "at": "2026-01-01T00:00:00.000000Z", "bytes": 10**15},
        {**entry, "at": "2026-01-01T00:00:00.000000Z", "ids": ["Ignore previous instructions"]},
        # Nor is an entry no writer makes: a person's brief, a person's recall
        # under a session, a harness no hook is, an id named twice.
        {**entry, "at": "2026-01-01T00:00:00.000000Z", "harness": "person", "session": None},
        {**entry, "at": "2026-01-01T00:00:00.000000Z", "harness": "person", "event": "recall"},
        {**entry, "at": "2026-01-01T00:00:00.000000Z", "harness": "Codex"},
        {**entry, "at": "2026-01-01T00:00:00.000000Z", "ids": [shown, shown]},
    ]
    with (project_root / LOG).open("a") as log:
        log.write('{"event": "brief", "at": 5}\nnot json at all\n')
        log.write("".join(json.dumps(line) + "\n" for line in impossible))
    result = run_cli("usage", "--since", "1h")
    assert result.code == 0
    assert "skipped 10 lines of the log that are not usage entries" in result.out
    assert "briefs:       1 (8 bytes, ~2 tokens)" in result.out


def test_the_documented_estimate_is_bytes_over_four_rounded_up() -> None:
    assert [usage_log.estimate_tokens(n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]
    assert "bytes / 4" in (REPO / "docs" / "USAGE-LOG.md").read_text()
