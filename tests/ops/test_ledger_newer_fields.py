"""Fields a newer Tree Ring added to a line of a record this version knows.

A line the upstream holds (or the store wrote) that this clone did not
change is written back exactly as it came, those fields included: by a sync,
by a person's write after it or after the SessionStart hook's import, and
through the merge driver. A change this clone makes is written without them;
a forget takes them out of the store. The guard reads them as it reads a
line of an unknown record: a secret in them skips the line. A claim (a line
the upstream does not hold) never brings them into the ledger.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ok,
    publish,
    pull,
    raw_bytes,
    remember,
    session_start,
)

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import ledger, ledger_refresh, sync

MARK = "weight-from-a-newer-teammate"
FIELD = {"future_field": {"weight": 3, "note": MARK}}
# Assembled, so no scanner of this repository mistakes it for a key.
AWS = "AKIA" + "Q3EGRIXS5KDJ7VNP"


def lines(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().split(b"\n")[:-1]


def with_fields(root: Path, memory_id: str, fields: dict[str, Any]) -> bytes:
    """Add `fields` to the ledger line of `memory_id`, as a newer Tree Ring
    writes it (canonical form); the new line."""
    path = root / LEDGER
    out: list[bytes] = []
    new = b""
    for raw in lines(root):
        data = json.loads(raw)
        if data.get("id") == memory_id:
            raw = new = ledger.canonical({**data, **fields}).encode()
        out.append(raw)
    path.write_bytes(b"".join(raw + b"\n" for raw in out))
    assert new, memory_id
    return new


def kept_ids(root: Path) -> set[str]:
    with Store.open(root) as store:
        return {str(row[0]) for row in store.conn.execute("SELECT memory_id FROM ledger_kept")}


def assert_still(root: Path) -> None:
    """Nothing changed since the last sync: the next writes and imports nothing."""
    before = (root / LEDGER).read_bytes()
    again = ok(root, "--json", "sync").json()
    assert (again["written"], again["imported"], again["replaced"]) == ([], 0, 0)
    assert (root / LEDGER).read_bytes() == before


def newer_team(tmp_path: Path, fields: dict[str, Any] = FIELD) -> tuple[Path, Path, str, bytes]:
    """Alice's memory, its line given `fields` by a newer Tree Ring, pushed
    to the upstream; Bob's fresh clone of it, no store yet."""
    alice = first_repo(tmp_path)
    memory_id = remember(alice, "The team runs pytest for every package")
    line = with_fields(alice, memory_id, fields)
    commit(alice, "a newer teammate's line")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob", init=False)
    return alice, bob, memory_id, line


def test_a_fresh_clone_writes_the_line_back_byte_for_byte(tmp_path: Path) -> None:
    _, bob, memory_id, line = newer_team(tmp_path)
    done = ok(bob, "--json", "sync").json()
    assert (done["skipped"], done["imported"], done["notes"]) == (0, 1, [sync.DRIVER_NOTE])
    assert line in lines(bob)
    assert kept_ids(bob) == {memory_id}
    assert_still(bob)

    other = remember(bob, "Bob's note about the staging database")
    assert line in lines(bob)
    assert {json.loads(raw).get("id") for raw in lines(bob)} >= {memory_id, other}
    ok(bob, "sync")  # moves Bob's audit anchor
    assert line in lines(bob)
    assert_still(bob)

    # Bob's push keeps the field for a clone built after it.
    publish(bob, "bob's note")
    carol = clone(bob, tmp_path, "carol", init=False)
    assert line in lines(carol)
    ok(carol, "sync")
    assert line in lines(carol) and kept_ids(carol) == {memory_id}


def test_the_merge_driver_keeps_the_line(tmp_path: Path) -> None:
    alice, bob, _, line = newer_team(tmp_path)
    ok(bob, "init")  # the merge driver, configured
    ok(bob, "sync")
    remember(bob, "Bob's note, committed on his side")
    commit(bob, "bob's note")
    remember(alice, "Alice's note, pushed meanwhile")
    publish(alice, "alice's note")
    pull(bob)  # both sides moved: the driver merges the ledger
    assert git(bob, "status", "--porcelain").stdout == ""
    assert line in lines(bob)
    assert not ledger.has_markers((bob / LEDGER).read_text(encoding="utf-8"))


def test_a_correction_here_drops_the_fields_and_says_so_once(tmp_path: Path) -> None:
    _, bob, memory_id, line = newer_team(tmp_path)
    ok(bob, "sync")
    ok(bob, "remember", "The team runs pytest and hypothesis", "--supersedes", memory_id)
    assert line not in lines(bob)
    assert not [raw for raw in lines(bob) if MARK.encode() in raw]
    [old] = [json.loads(raw) for raw in lines(bob) if json.loads(raw).get("id") == memory_id]
    assert old["superseded_by"] is not None and "future_field" not in old

    done = ok(bob, "--json", "sync").json()
    assert done["notes"] == [
        "1 ledger line(s) changed since a newer Tree Ring added fields to them, "
        "and no longer carry those fields"
    ]
    assert kept_ids(bob) == set()
    assert ok(bob, "--json", "sync").json()["notes"] == []
    assert not [raw for raw in lines(bob) if MARK.encode() in raw]


def test_a_forget_removes_the_line_and_the_kept_text(tmp_path: Path) -> None:
    _, bob, memory_id, _ = newer_team(tmp_path)
    ok(bob, "sync")
    assert kept_ids(bob) == {memory_id}
    ok(bob, "forget", memory_id, "--mode", "delete", "--reason", "no longer true")
    assert kept_ids(bob) == set()
    assert [json.loads(raw)["record"] for raw in lines(bob) if memory_id.encode() in raw] == [
        "tombstone"
    ]
    assert not [raw for raw in lines(bob) if MARK.encode() in raw]
    assert MARK.encode() not in raw_bytes(bob)


def test_a_redaction_removes_the_kept_text(tmp_path: Path) -> None:
    _, bob, memory_id, _ = newer_team(tmp_path)
    ok(bob, "sync")
    ok(bob, "forget", memory_id, "--mode", "redact", "--reason", "it named a customer")
    assert kept_ids(bob) == set()
    assert [json.loads(raw)["record"] for raw in lines(bob) if memory_id.encode() in raw] == [
        "redaction"
    ]
    assert MARK.encode() not in raw_bytes(bob)


def test_a_secret_in_a_newer_field_skips_the_line_and_is_never_written(tmp_path: Path) -> None:
    _, bob, memory_id, _ = newer_team(tmp_path, {"future_field": {"note": "the key", "k": AWS}})
    done = cli(bob, "--json", "sync")
    assert done.code == 0, done.err
    out = done.json()
    [item] = out["items"]
    assert item["reason"].startswith(
        "a field this version does not know holds what looks like a secret (rule aws-access-key"
    )
    assert item["reason"].endswith("; left out of the ledger")
    assert (out["skipped"], out["imported"]) == (1, 0)
    assert AWS not in done.out and AWS not in done.err
    assert not [raw for raw in lines(bob) if AWS.encode() in raw or memory_id.encode() in raw]
    remember(bob, "Bob's note after the skipped line")
    assert AWS.encode() not in (bob / LEDGER).read_bytes()
    assert AWS.encode() not in raw_bytes(bob) and kept_ids(bob) == set()


def test_a_claims_newer_fields_are_not_kept(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    held = remember(alice, "The team runs pytest for every package")
    commit(alice, "memory")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")
    # Lines the upstream does not hold: a field added to a held memory's line,
    # and a new memory's line with one.
    changed = with_fields(bob, held, FIELD)
    base = json.loads(changed)
    claim_id = "mem_20261205_000000_c1c1c1c1c1c1"
    new = {**base, "id": claim_id, "summary": "Pytest runs with -x in CI", "content_hash": None}
    with (bob / LEDGER).open("ab") as handle:
        handle.write(ledger.canonical(new).encode() + b"\n")

    done = ok(bob, "--json", "sync").json()
    assert done["claimed"] == [claim_id] and done["skipped"] == 0
    assert changed not in lines(bob)
    assert not [raw for raw in lines(bob) if MARK.encode() in raw]
    assert kept_ids(bob) == set()

    ok(bob, "review", "approve", claim_id, "--reason", "checked with the team")
    ok(bob, "sync")
    [approved] = [json.loads(raw) for raw in lines(bob) if claim_id.encode() in raw]
    assert "future_field" not in approved
    assert not [raw for raw in lines(bob) if MARK.encode() in raw] and kept_ids(bob) == set()


def test_the_hooks_import_then_a_persons_write_keeps_the_line(tmp_path: Path) -> None:
    _, bob, memory_id, line = newer_team(tmp_path)
    assert not project.store_path(bob).exists()
    assert "The team runs pytest for every package" in session_start(bob)
    assert lines(bob).count(line) == 1 and kept_ids(bob) == {memory_id}
    remember(bob, "Bob's note after the hook's import")
    assert line in lines(bob)


def test_a_field_added_to_a_held_line_is_kept_by_the_hooks_pass_over_the_change(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    memory_id = remember(alice, "The team runs pytest for every package")
    commit(alice, "memory")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")
    commit(bob, "bob's anchor")
    # A newer Tree Ring on Alice's side adds a field to the line Bob holds.
    line = with_fields(alice, memory_id, FIELD)
    publish(alice, "a newer teammate's line")
    pull(bob)
    with Store.open(bob) as store:
        assert ledger_refresh.refresh(store, str(bob), project.load_project_id(bob)) == "applied"
    assert kept_ids(bob) == {memory_id}
    remember(bob, "Bob's note after the pull")
    assert line in lines(bob)
    ok(bob, "sync")
    assert line in lines(bob)
    assert_still(bob)


def test_a_tombstone_and_an_anchor_keep_their_newer_fields(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    memory_id = remember(alice, "A note Alice forgets before Bob clones")
    ok(alice, "forget", memory_id, "--mode", "delete", "--reason", "wrong")
    stone = with_fields(alice, memory_id, {"future_reason": "a newer word"})
    anchors = [raw for raw in lines(alice) if json.loads(raw)["record"] == "anchor"]
    [anchor] = anchors
    marked = ledger.canonical({**json.loads(anchor), "future_host": "ci-7"}).encode()
    text = (alice / LEDGER).read_bytes().replace(anchor, marked)
    (alice / LEDGER).write_bytes(text)
    commit(alice, "a newer teammate's lines")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob", init=False)
    ok(bob, "sync")
    remember(bob, "Bob's note over the newer lines")
    assert stone in lines(bob) and marked in lines(bob)
    assert kept_ids(bob) == {memory_id}


def test_the_merge_driver_takes_the_line_with_fields_over_the_same_line_without() -> None:
    header = b'{"project":"app-1234","record":"ledger","schema":1}'
    plain = {
        "id": "mem_20260101_000000_aaaaaaaaaaaa",
        "record": "memory",
        "summary": "The team runs pytest",
        "updated_at": "2026-01-01T00:00:00.000000Z",
        "valid_from": "2026-01-01T00:00:00.000000Z",
    }
    without = ledger.canonical(plain).encode()
    newer = ledger.canonical({**plain, **FIELD}).encode()
    assert without > newer  # by bytes alone the line without the fields would win
    for ours, theirs in ((without, newer), (newer, without)):
        merged = ledger.merge_texts(header + b"\n" + ours + b"\n", header + b"\n" + theirs + b"\n")
        assert merged.encode().split(b"\n")[:-1] == [header, newer]


def test_fields_past_the_guards_bounds_are_not_kept_and_the_memory_still_is(
    tmp_path: Path,
) -> None:
    many = {"future_field": [f"part {n}" for n in range(ledger.MOST_STRINGS + 1)]}
    _, bob, memory_id, line = newer_team(tmp_path, many)
    done = ok(bob, "--json", "sync").json()
    assert (done["skipped"], done["imported"]) == (0, 1)
    [written] = [json.loads(raw) for raw in lines(bob) if memory_id.encode() in raw]
    assert line not in lines(bob) and "future_field" not in written
    assert kept_ids(bob) == set()


QUOTED = "The VPN split tunnel config lives in the ops handbook"
# A newer field that holds the memory's words as a sentence of its own.
RELATED = {"related_text": f"{QUOTED}. The gateway notes link to it."}


def test_a_newer_field_quoting_forgotten_words_is_let_go_at_the_forget(tmp_path: Path) -> None:
    """A field that quotes another memory: once this clone forgets that
    memory, the line is written without the field, and the words leave the
    ledger and the store."""
    alice = first_repo(tmp_path)
    memory_id = remember(alice, "The team runs pytest for every package")
    quoted = remember(alice, QUOTED)
    line = with_fields(alice, memory_id, RELATED)
    commit(alice, "a newer teammate's line")
    bob = clone(hub(tmp_path, alice), tmp_path, "bob", init=False)
    ok(bob, "sync")
    assert line in lines(bob) and kept_ids(bob) == {memory_id}
    ok(bob, "forget", quoted, "--mode", "delete", "--reason", "internal only")
    ok(bob, "sync")
    assert kept_ids(bob) == set()
    assert not [raw for raw in lines(bob) if b"split tunnel" in raw]
    assert b"split tunnel" not in raw_bytes(bob)
    assert memory_id.encode() in (bob / LEDGER).read_bytes()  # the memory itself stays
    assert_still(bob)


def test_a_newer_field_quoting_what_this_clone_forgot_is_never_kept(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    memory_id = remember(alice, "The team runs pytest for every package")
    commit(alice, "memory")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob", init=False)
    ok(bob, "sync")
    forgotten = remember(bob, QUOTED)
    ok(bob, "forget", forgotten, "--mode", "delete", "--reason", "internal only")
    commit(bob, "bob's forget")
    with_fields(alice, memory_id, RELATED)
    publish(alice, "a newer teammate's line")
    pull(bob)
    ok(bob, "sync")
    assert kept_ids(bob) == set()
    assert not [raw for raw in lines(bob) if b"split tunnel" in raw]
    assert_still(bob)
