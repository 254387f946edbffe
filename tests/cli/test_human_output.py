"""What the CLI prints for people: short, stable lines, checked word for word."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE
from helpers import SAVED_AS

from tree_ring.harness import receipts
from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.read import brief
from tree_ring.store.db import Store

TOKEN_VAR = "TREE_RING_COORDINATOR_TOKEN"
MEMORY_ID = r"mem_\d{8}_\d{6}_[0-9a-f]{12}"


def test_remember_says_what_it_stored(run_cli: CliRunner) -> None:
    result = run_cli("remember", "Deploys freeze on Fridays")
    assert result.code == 0, result.err
    assert re.fullmatch(rf"stored {MEMORY_ID}\n", result.out)


def test_remember_says_why_a_row_waits(run_cli: CliRunner) -> None:
    result = run_cli(
        "remember", "Vendor the SDK", "--ring", "heartwood", "--scope", "project", environ=CLAUDE
    )
    assert result.code == 0, result.err
    assert re.fullmatch(
        rf"stored {MEMORY_ID} as pending: heartwood written by claude-code: "
        r"durable truth needs a person's approval; written by claude-code into the shared "
        r"project scope: what every session sees needs a person's approval\n",
        result.out,
    )


def test_remember_says_a_sensitive_row_is_hidden(run_cli: CliRunner) -> None:
    result = run_cli("remember", "Maria was diagnosed with celiac disease last spring")
    assert result.code == 0, result.err
    assert re.fullmatch(
        rf"stored {MEMORY_ID} \(sensitivity health: hidden unless --include-sensitive\)\n",
        result.out,
    )


def test_an_exact_retry_says_unchanged(run_cli: CliRunner) -> None:
    argv = ("remember", "Cache the wheels", "--operation-id", "op-1")
    first = run_cli("--json", *argv).json()["id"]
    again = run_cli(*argv)
    assert again.code == 0, again.err
    assert again.out == f"unchanged {first} (exact retry of the same operation)\n"


def test_a_summary_on_stdin_over_one_mebibyte_is_refused(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = io.TextIOWrapper(io.BytesIO(b"x" * ((1 << 20) + 1)))
    monkeypatch.setattr(sys, "stdin", big)
    result = run_cli("remember", "-")
    assert result.code == 2
    assert result.err == (
        "error: the summary on stdin is over 1 MiB; a memory is one short statement\n"
    )
    assert run_cli("--json", "list").json()["items"] == []


def test_a_summary_on_stdin_is_stored(run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"  Logs rotate nightly \n")))
    result = run_cli("--json", "remember", "-")
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    assert shown["summary"] == "Logs rotate nightly"


@pytest.mark.parametrize("saved", list(SAVED_AS))
def test_a_summary_on_stdin_is_read_as_a_text_file_is(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch, saved: str
) -> None:
    # A byte-order mark at the start is dropped and CRLF ends the line, as
    # for every file Tree Ring reads; the summary is the plain one.
    data = SAVED_AS[saved]("Logs rotate nightly\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    result = run_cli("--json", "remember", "-")
    assert result.code == 0, result.err
    assert [m["summary"] for m in run_cli("--json", "list").json()["items"]] == [
        "Logs rotate nightly"
    ]


def test_a_bad_byte_on_stdin_is_counted_from_the_start_byte_order_mark_included(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"\xef\xbb\xbfcaf\xe9 is the cache\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    result = run_cli("remember", "-")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "error: the summary on stdin is not valid UTF-8 text (byte 7); re-encode it and retry\n"
    )
    assert run_cli("--json", "list").json()["items"] == []


def test_export_to_a_file_says_how_many_lines(run_cli: CliRunner, tmp_path: Path) -> None:
    for summary in ("Deploys freeze on Fridays", "Logs rotate nightly"):
        assert run_cli("remember", summary).code == 0
    out = tmp_path / "dump.jsonl"
    result = run_cli("export", "--output", str(out))
    assert result.code == 0, result.err
    assert result.out == f"wrote 2 lines to {out}\n"
    assert len(out.read_text().splitlines()) == 2
    as_json = run_cli("--json", "export", "--output", str(out)).json()
    assert {key: as_json[key] for key in ("command", "written", "lines")} == {
        "command": "export",
        "written": [str(out)],
        "lines": 2,
    }


def test_status_shows_each_harness_hooks(run_cli: CliRunner, project_root: Path) -> None:
    assert run_cli("remember", "Deploys freeze on Fridays").code == 0
    status = run_cli("status")
    assert status.code == 0, status.err
    quiet = status.out.splitlines()
    assert quiet[-1] == "hooks: none has fired in this project yet"
    assert quiet[1:9] == [
        "live memories: 1; by ring: cambium 1",
        "waiting for review: 0 pending, 0 disputed (`tree-ring review list`: 0)",
        "inbox: 0 new from agents (`tree-ring inbox`)",
        "retired: 0",
        "forgotten content (tombstones): 0",
        "write policy: open",
        "checkpoint: after-work (at most once per 30 min per session)",
        quiet[8],
    ]
    assert re.fullmatch(r"store size: [0-9,]+ bytes", quiet[8])
    with Store.open(project_root) as store:
        identity = Identity(project.load_project_id(project_root), None, None, None)
        shown = brief.build_brief(store, identity)
    receipts.write_receipt(project_root, harness="claude-code", event="SessionStart", brief=shown)
    again = run_cli("status")
    assert again.code == 0, again.err
    lines = again.out.splitlines()
    start = lines.index("hooks claude-code:")
    size = len(shown.text.encode("utf-8"))
    assert re.fullmatch(
        rf"  last brief \(session start\): \d{{4}}-\d\d-\d\dT[0-9:.]+Z \(1 memory, "
        rf"{size:,} bytes, ~{round(size / 4):,} tokens\)",
        lines[start + 1],
    )
    assert lines[start + 2 :] == ["  last stop: never", "  fired: SessionStart 1x"]


def test_tree_show_before_anything_sealed(run_cli: CliRunner) -> None:
    result = run_cli("tree", "show")
    assert result.code == 0, result.err
    assert result.out == (
        "no summary sealed yet: the history is still short (`tree-ring tree status` shows "
        "the buffers)\n"
    )


def test_policy_status_counts_the_decisions(run_cli: CliRunner) -> None:
    assert run_cli("remember", "Deploys freeze on Fridays").code == 0
    shown = run_cli("policy", "status")
    assert shown.code == 0, shown.err
    assert shown.out == "write policy: open\ndecisions recorded: 1 allowed, 0 denied\n"
    token = json.loads(run_cli("--json", "policy", "enable", "--coordinator", "lead").out)[
        "capability"
    ]
    assert run_cli("remember", "Logs rotate nightly").code != 0  # denied without the token
    lines = run_cli("policy", "status", environ={TOKEN_VAR: token}).out.splitlines()
    assert lines[0] == "write policy: coordinated"
    assert re.fullmatch(r"coordinator: lead \(since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)", lines[1])
    assert lines[2] == f"{TOKEN_VAR} in this environment: the current capability"
    assert lines[3] == "decisions recorded: 2 allowed, 1 denied"
    absent = run_cli("policy", "status").out.splitlines()
    assert absent[2] == f"{TOKEN_VAR} in this environment: absent or not current"


@pytest.mark.parametrize(("mode", "verb"), [("delete", "deleted"), ("redact", "redacted")])
def test_forget_says_how_and_that_the_content_stays_out(
    run_cli: CliRunner, mode: str, verb: str
) -> None:
    memory_id = run_cli("--json", "remember", "Staging runs on the blue pool").json()["id"]
    done = run_cli("forget", memory_id, "--mode", mode, "--reason", "moved")
    assert done.code == 0, done.err
    assert done.out.strip() == (
        f"{verb} {memory_id}; its content is tombstoned and will not be stored again"
    )


def test_status_counts_the_tombstones_keys_and_their_memories(run_cli: CliRunner) -> None:
    # One forget keys several claims: its summary, each long sentence, the two as one.
    text = "Deploys freeze on Fridays after the branch is cut. Hotfixes need two reviewers today."
    for note in (text, "The cache warms at startup from the nightly snapshot"):
        made = run_cli("--json", "remember", note).json()["id"]
        assert run_cli("forget", made, "--mode", "delete", "--reason", "gone").code == 0
    counts = run_cli("--json", "status").json()["memories"]
    assert counts["tombstoned_memories"] == 2 and counts["tombstones"] > 2
    line = next(x for x in run_cli("status").out.splitlines() if x.startswith("forgotten"))
    assert line == f"forgotten content (tombstones): {counts['tombstones']} keys of 2 memories"
