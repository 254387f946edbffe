"""Lines this version cannot read (a newer Tree Ring's record, a stray line):
every rewrite of the ledger carries them through byte for byte, after the
lines it writes, and `sync` reports them as skipped and kept."""

from __future__ import annotations

from pathlib import Path

from team_support import LEDGER, cli, commit, first_repo, ok, remember

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import sync

NEWER = b'{"record":"futurething","at":"2026-12-05T00:00:00Z","data":"from a newer teammate"}'
GARBAGE = b"garbage \xff line, not UTF-8"
NOT_JSON = b"{not json at all"
A_LIST = b'["a list", "not an object"]'
FOREIGN = [NEWER, GARBAGE, NOT_JSON, A_LIST]


def _lines(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().split(b"\n")


def _tail(root: Path) -> list[bytes]:
    """The ledger's last lines, as many as FOREIGN has."""
    return _lines(root)[-len(FOREIGN) - 1 : -1]


def test_unreadable_lines_survive_remember_forget_and_sync(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "The ledger parse test note for the carried lines")
    with (alice / LEDGER).open("ab") as handle:
        handle.write(b"".join(raw + b"\n" for raw in FOREIGN))
    commit(alice, "a teammate's lines")

    added = remember(alice, "Yet another note written after the teammate's lines")
    assert _tail(alice) == FOREIGN
    assert added in (alice / LEDGER).read_text(encoding="utf-8", errors="replace")

    ok(alice, "forget", added, "--mode", "delete", "--reason", "not wanted any more")
    assert _tail(alice) == FOREIGN
    [stone] = [raw for raw in _lines(alice) if added.encode() in raw]
    assert b'"record":"tombstone"' in stone

    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    assert _tail(alice) == FOREIGN
    reasons = [item["reason"] for item in done.json()["items"]]
    assert len(reasons) == len(FOREIGN)
    assert all(reason.endswith("kept in the ledger as it stands") for reason in reasons)
    assert "unknown record 'futurething'" in reasons[0]

    # A later write (the streaming merge) keeps them too, once each.
    remember(alice, "A third note, written through the merge a line at a time")
    assert _tail(alice) == FOREIGN
    assert _lines(alice).count(NEWER) == 1


def test_a_line_in_the_middle_moves_after_the_others_and_stays_there(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "The first note of the sorted ledger for this test")
    remember(alice, "The second note of the sorted ledger for this test")
    lines = _lines(alice)[:-1]
    lines.insert(3, NEWER)
    (alice / LEDGER).write_bytes(b"".join(raw + b"\n" for raw in lines))

    remember(alice, "The third note, written over the teammate's line")
    after = _lines(alice)[:-1]
    assert after[-1] == NEWER and after.count(NEWER) == 1
    again = cli(alice, "sync")
    assert again.code == 0, again.err
    assert _lines(alice)[:-1] == after  # a second rewrite leaves it where it is


def test_the_merge_of_an_unsorted_ledger_carries_them(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    kept = remember(alice, "The first note of a ledger put out of order")
    remember(alice, "The second note of a ledger put out of order")
    header, anchor, first, second = _lines(alice)[:-1]
    # Out of order, with a newer version's line among the rest.
    path = alice / LEDGER
    path.write_bytes(b"\n".join([header, anchor, second, NEWER, first, GARBAGE]) + b"\n")
    with Store.open(alice) as store, store.write() as db:
        written, _ = sync._merge_whole(db, path, project.load_project_id(alice))  # pyright: ignore[reportPrivateUsage]
    assert written
    lines = _lines(alice)[:-1]
    assert lines[-2:] == [NEWER, GARBAGE]
    assert set(lines[2:4]) == {first, second} and kept.encode() in first + second
