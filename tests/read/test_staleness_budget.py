"""What a brief's check of anchored files costs, bounded.

A checkout or a formatter moves the time of files whose bytes it left alone,
and each such file that kept its size must be hashed to tell a touch from a
change. One pass hashes a file once however many memories anchor it; the
brief hashes at most `anchor.HASH_BUDGET` bytes and marks the files past it
unchecked (neither stale nor fresh); a hash that finds the bytes as anchored
records the new size and time, so the next session needs only a `stat`.
Hashes are counted by wrapping `anchor.blob_id`; the budget is made small.
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import time
from pathlib import Path

import pytest
from helpers import REPO, CliRunner

from tree_ring.hook import adapter
from tree_ring.model import anchor
from tree_ring.store.db import Store

SIZE = 100  # bytes of each anchored file


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each blob hashed, in order."""
    seen: list[int] = []
    original = anchor.blob_id

    def counted(data: bytes) -> str:
        seen.append(len(data))
        return original(data)

    monkeypatch.setattr(anchor, "blob_id", counted)
    return seen


def files(root: Path, *names: str) -> list[Path]:
    made: list[Path] = []
    for name in names:
        path = root / name
        path.write_bytes(name.encode().ljust(SIZE, b"."))
        made.append(path)
    return made


def remember(run_cli: CliRunner, summary: str, *paths: Path) -> str:
    flags = [arg for path in paths for arg in ("--file", str(path))]
    done = run_cli("--json", "remember", summary, "--ring", "heartwood", *flags)
    assert done.code == 0, done.err
    return str(done.json()["id"])


def touch(*paths: Path) -> None:
    """A new time, the same bytes: what a branch switch does."""
    for path in paths:
        info = path.stat()
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))


def brief_lines(run_cli: CliRunner) -> dict[str, str]:
    done = run_cli("brief")
    assert done.code == 0, done.err
    return brief_line_map(done.out)


def recorded(root: Path, memory_id: str) -> dict[str, tuple[int, int]]:
    with Store.open(root) as store:
        found = store.conn.execute(
            "SELECT path, size, mtime_ns FROM anchors WHERE memory_id = ?", (memory_id,)
        )
        return {str(row[0]): (int(row[1]), int(row[2])) for row in found}


def on_disk(*paths: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in paths}


def test_a_file_anchored_by_several_memories_is_hashed_once_a_brief(
    run_cli: CliRunner, project_root: Path, hashes: list[int]
) -> None:
    shared, other, third = files(project_root, "shared.py", "other.py", "third.py")
    ids = [
        remember(run_cli, "Retries stop at three", shared, other),
        remember(run_cli, "Timeouts are thirty seconds", shared, third),
        remember(run_cli, "Logs rotate daily", shared, other, third),
    ]
    touch(shared, other, third)
    hashes.clear()
    lines = brief_lines(run_cli)
    assert hashes == [SIZE, SIZE, SIZE]  # three distinct files, seven anchors
    assert set(lines) == set(ids)
    assert not any("stale" in line or "unchecked" in line for line in lines.values())


def test_a_touched_file_is_hashed_once_then_judged_by_its_time_again(
    run_cli: CliRunner, project_root: Path, hashes: list[int]
) -> None:
    [source] = files(project_root, "retry.py")
    made = remember(run_cli, "Retries stop at three", source)
    touch(source)
    hashes.clear()
    brief_lines(run_cli)
    assert hashes == [SIZE]
    assert recorded(project_root, made) == on_disk(source)  # the new time, kept
    hashes.clear()
    for _ in range(3):
        assert "stale" not in brief_lines(run_cli)[made]
    assert run_cli("--json", "stale").json()["items"] == []
    assert hashes == []


def test_stale_records_the_new_time_too(
    run_cli: CliRunner, project_root: Path, hashes: list[int]
) -> None:
    [source] = files(project_root, "retry.py")
    made = remember(run_cli, "Retries stop at three", source)
    touch(source)
    hashes.clear()
    assert run_cli("--json", "stale").json()["items"] == []
    assert hashes == [SIZE]
    assert recorded(project_root, made) == on_disk(source)


def test_a_changed_file_is_stale_whether_or_not_a_touch_was_recorded(
    run_cli: CliRunner, project_root: Path
) -> None:
    [source] = files(project_root, "retry.py")
    made = remember(run_cli, "Retries stop at three", source)
    touch(source)
    assert "stale" not in brief_lines(run_cli)[made]  # recorded the touch
    source.write_bytes(b"X" * SIZE)  # the same size, other bytes
    touch(source)
    assert '(stale: "retry.py" changed since ' in brief_lines(run_cli)[made]
    assert recorded(project_root, made) != on_disk(source)  # a change is never recorded
    assert '(stale: "retry.py" changed since ' in brief_lines(run_cli)[made]


def two_memories(run_cli: CliRunner, root: Path) -> tuple[tuple[str, list[Path]], ...]:
    """Two memories of two files each, in the order a check takes them (by
    id: two made within a second are ordered by their random part)."""
    made = [
        (remember(run_cli, summary, *pair), pair)
        for summary, pair in (
            ("Retries stop at three", files(root, "a1.py", "a2.py")),
            ("Timeouts are thirty seconds", files(root, "b1.py", "b2.py")),
        )
    ]
    return tuple(sorted(made))


def test_past_the_budget_files_are_unchecked_and_the_hook_still_briefs(
    run_cli: CliRunner,
    project_root: Path,
    hashes: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (lead, lead_files), (follow, follow_files) = two_memories(run_cli, project_root)
    touch(*lead_files, *follow_files)
    monkeypatch.setattr(anchor, "HASH_BUDGET", 2 * SIZE + SIZE // 2)
    hashes.clear()

    lines = brief_line_map(hook_brief(project_root, capsys))
    assert hashes == [SIZE, SIZE]  # the first memory's two files; no room for a third
    assert set(lines) == {lead, follow}
    assert lines[lead].endswith(f"({lead}; origin: person)")  # no mark at all
    name = follow_files[0].name
    assert lines[follow].endswith(f' (unchecked: "{name}" not checked this time (+1 more))')
    assert "stale" not in lines[follow]
    assert recorded(project_root, follow) != on_disk(*follow_files)

    # The first memory's files are judged by their time now: the budget goes to the rest.
    hashes.clear()
    lines = brief_line_map(hook_brief(project_root, capsys))
    assert hashes == [SIZE, SIZE]
    assert not any("unchecked" in line or "stale" in line for line in lines.values())
    assert recorded(project_root, follow) == on_disk(*follow_files)


def test_a_changed_file_within_the_budget_is_stale_beside_unchecked_ones(
    run_cli: CliRunner, project_root: Path, hashes: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    (lead, lead_files), (follow, follow_files) = two_memories(run_cli, project_root)
    lead_files[0].write_bytes(b"X" * SIZE)  # the same size, other bytes
    touch(*lead_files, *follow_files)
    monkeypatch.setattr(anchor, "HASH_BUDGET", SIZE)
    hashes.clear()
    lines = brief_line_map(run_cli("brief").out)
    assert hashes == [SIZE]
    # Stale by the file it could hash; the one it could not is not named as stale.
    assert lines[lead].endswith(f' (stale: "{lead_files[0].name}" changed since {today()})')
    name = follow_files[0].name
    assert lines[follow].endswith(f' (unchecked: "{name}" not checked this time (+1 more))')


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def test_a_store_another_writer_holds_is_not_waited_on_and_keeps_its_row(
    run_cli: CliRunner, project_root: Path, hashes: list[int]
) -> None:
    [source] = files(project_root, "retry.py")
    made = remember(run_cli, "Retries stop at three", source)
    touch(source)
    before = recorded(project_root, made)
    other = sqlite3.connect(project_root / ".tree-ring" / "memory.sqlite", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        hashes.clear()
        assert "stale" not in brief_lines(run_cli)[made]
        assert hashes == [SIZE]
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert recorded(project_root, made) == before
    hashes.clear()
    brief_lines(run_cli)
    assert hashes == [SIZE]  # hashed again, and kept this time
    assert recorded(project_root, made) == on_disk(source)


def hook_brief(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    fixture = REPO / "tests" / "fixtures" / "hooks" / "claude-code-session-start.json"
    data = json.loads(fixture.read_text(encoding="utf-8"))
    data["cwd"] = str(root)
    out = io.BytesIO()
    code = adapter.main("claude-code", io.BytesIO(json.dumps(data).encode()), {}, out)
    assert code == 0
    assert capsys.readouterr().err == ""
    return str(json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"])


def brief_line_map(text: str) -> dict[str, str]:
    """Each memory's line of a brief, by its id."""
    found = {re.search(r"\((mem_\w+);", line): line for line in text.splitlines()}
    return {match.group(1): line for match, line in found.items() if match is not None}
