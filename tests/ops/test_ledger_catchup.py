"""A ledger larger than one hook run may check is imported a part per session:
each part commits, the brief goes out every time, a line on stderr says what
remains, and the store ends as one `sync` leaves it."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr
from pathlib import Path

import pytest
from team_support import (
    LEDGER,
    cli,
    clone,
    first_repo,
    hub,
    ok,
    publish,
    remember,
    shared_ids,
    trust_of,
)

from tree_ring.hook import adapter
from tree_ring.team import ledger_catchup

REMAINS = "imported so far; the next session imports more, or `tree-ring sync`"


def _session(root: Path) -> tuple[str, str]:
    """One SessionStart hook run in this process: (the brief, stderr)."""
    payload = {"hook_event_name": "SessionStart", "session_id": "s-1", "cwd": str(root)}
    out, err = io.BytesIO(), io.StringIO()
    with redirect_stderr(err):
        adapter.main("claude-code", io.BytesIO(json.dumps(payload).encode()), dict(os.environ), out)
    brief = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    return brief, err.getvalue()


def _sessions(root: Path, watch: str | None = None) -> tuple[int, list[str]]:
    """Hook runs until nothing remains: how many, and each run's stderr. With
    `watch`, asserts after each run that the id never reached the store."""
    errs: list[str] = []
    for _ in range(30):
        brief, err = _session(root)
        assert brief.startswith("Tree Ring memory for project ")
        if watch is not None:
            assert watch not in trust_of(root)
        errs.append(err)
        if REMAINS not in err:
            return len(errs), errs
        assert err.count("\n") == 1, err
    raise AssertionError("the import never finished")


def _team(tmp_path: Path, count: int) -> tuple[Path, list[str]]:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    ids = [
        remember(alice, f"Team rule number {n}: the {word} service restarts at night")
        for n, word in enumerate(["billing", "search", "mail", "auth", "queue", "cache", "jobs"])
    ][:count]
    publish(alice, "the team's memories")
    return alice, ids


def test_parts_end_where_one_sync_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, ids = _team(tmp_path, 7)
    forgotten = ids[2]
    ok(alice, "forget", forgotten, "--mode", "delete", "--reason", "wrong")
    publish(alice, "a forget")
    monkeypatch.setattr(ledger_catchup, "PART_LINES", 2)
    bob = clone(alice.parent / f"{alice.name}-hub.git", tmp_path, "bob", init=False)
    runs, errs = _sessions(bob)
    assert runs >= 3
    assert all(REMAINS in err for err in errs[:-1]) and REMAINS not in errs[-1]
    assert errs[-1] == ""
    carol = clone(alice.parent / f"{alice.name}-hub.git", tmp_path, "carol", init=False)
    ok(carol, "sync")
    assert trust_of(bob) == trust_of(carol)
    assert shared_ids(bob) == set(ids) - {forgotten}
    # Done: the next session reads nothing, and a sync finds nothing to import.
    assert _session(bob)[1] == ""
    assert ok(bob, "--json", "sync").json()["imported"] == 0


def test_sync_takes_what_the_parts_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, ids = _team(tmp_path, 7)
    monkeypatch.setattr(ledger_catchup, "PART_LINES", 2)
    bob = clone(alice.parent / f"{alice.name}-hub.git", tmp_path, "bob", init=False)
    _, err = _session(bob)
    assert REMAINS in err
    assert 0 < len(shared_ids(bob)) < len(ids)
    ok(bob, "sync")
    assert shared_ids(bob) == set(ids)
    assert _session(bob)[1] == ""


@pytest.mark.parametrize("stone_first", [False, True])
def test_a_tombstone_far_from_its_memory_still_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stone_first: bool
) -> None:
    alice, ids = _team(tmp_path, 7)
    target = ids[0]
    path = alice / LEDGER
    [memory_line] = [raw for raw in path.read_bytes().split(b"\n") if target.encode() in raw]
    ok(alice, "forget", target, "--mode", "delete", "--reason", "wrong")
    lines = path.read_bytes().split(b"\n")[:-1]
    [stone] = [raw for raw in lines if target.encode() in raw]
    rest = [raw for raw in lines if raw != stone]
    # As a text merge leaves it: the memory and its tombstone far apart.
    ordered = [stone, *rest[2:], memory_line] if stone_first else [memory_line, *rest[2:], stone]
    path.write_bytes(b"\n".join([*rest[:2], *ordered]) + b"\n")
    publish(alice, "a ledger out of order")
    monkeypatch.setattr(ledger_catchup, "PART_LINES", 2)
    bob = clone(alice.parent / f"{alice.name}-hub.git", tmp_path, "bob", init=False)
    runs, _ = _sessions(bob, watch=target)
    assert runs >= 3
    assert shared_ids(bob) == set(ids) - {target}
    carol = clone(alice.parent / f"{alice.name}-hub.git", tmp_path, "carol", init=False)
    ok(carol, "sync")
    assert trust_of(bob) == trust_of(carol)
    # The tombstone's content was recorded: it cannot come back under a new id.
    again = cli(bob, "remember", "Team rule number 0: the billing service restarts at night")
    assert again.code == 1 and "was forgotten" in again.err
