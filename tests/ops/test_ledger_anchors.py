"""The team ledger carries a memory's anchors: each file's path and blob id.

Through real git (a bare "remote", clones with their upstream set): Alice
anchors a memory and pushes; a clone whose file is as Alice's sees it fresh,
one whose file differs sees it stale, each judged against its own checkout.
A ledger line's files are held to plain relative paths and blob ids before
any is stored: a hostile one is dropped, and nothing outside the project is
opened.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from team_support import (
    LEDGER,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    session_start,
)

from tree_ring.store.db import Store

RETRY = b"MAX_DELAY = 30\n"
TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0A1b2C3d4E5f6G7h8"
SUMMARY = "Retries back off to at most 30 s"


def blob_of(root: Path, rel: str) -> str:
    return git(root, "hash-object", rel).stdout.strip()


def anchored(root: Path) -> set[tuple[str, str, str, int, int]]:
    """Every anchor the store holds: (memory, path, blob, size, mtime_ns)."""
    with Store.open(root) as store:
        found = store.conn.execute("SELECT memory_id, path, blob, size, mtime_ns FROM anchors")
        return {(str(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4])) for r in found}


def stale_ids(root: Path) -> dict[str, list[dict[str, Any]]]:
    items = ok(root, "--json", "stale").json()["items"]
    return {item["id"]: item["files"] for item in items}


def alice_with_anchor(tmp_path: Path) -> tuple[Path, Path, str]:
    """Alice's memory anchored to src/retry.py, committed and pushed."""
    alice = first_repo(tmp_path)
    (alice / "src").mkdir()
    (alice / "src" / "retry.py").write_bytes(RETRY)
    (alice / "src" / "queue.py").write_bytes(b"FIFO = True\n")
    commit(alice, "code")
    done = ok(alice, "--json", "remember", SUMMARY, "--ring", "heartwood", "--file", "src/retry.py")
    memory_id = str(done.json()["id"])
    commit(alice, "the team's memory")
    return alice, hub(tmp_path, alice), memory_id


def test_the_ledger_line_carries_path_and_blob_not_size_or_time(tmp_path: Path) -> None:
    alice, _, memory_id = alice_with_anchor(tmp_path)
    [entry] = [e for e in ledger_entries(alice) if e["id"] == memory_id]
    head = git(alice, "rev-parse", "HEAD~1").stdout.strip()  # checked out when it was anchored
    [carried] = entry["files"]
    assert set(carried) == {"path", "blob", "commit", "at"}
    assert carried["path"] == "src/retry.py"
    assert carried["blob"] == blob_of(alice, "src/retry.py")
    assert carried["commit"] == head


def test_a_clone_judges_the_ledgers_anchors_against_its_own_checkout(tmp_path: Path) -> None:
    alice, origin, memory_id = alice_with_anchor(tmp_path)
    blob = blob_of(alice, "src/retry.py")
    bob = clone(origin, tmp_path, "bob")
    carol = clone(origin, tmp_path, "carol")
    (carol / "src" / "retry.py").write_bytes(b"MAX_DELAY = 60\n")  # same size, other bytes
    for teammate in (bob, carol):
        ok(teammate, "sync")
        # Stored by hash only: size and time unknown, so the first check hashes.
        assert anchored(teammate) == {(memory_id, "src/retry.py", blob, -1, -1)}
    assert stale_ids(bob) == {}
    assert SUMMARY in ok(bob, "brief").out and "stale:" not in ok(bob, "brief").out
    [changed] = stale_ids(carol)[memory_id]
    assert (changed["path"], changed["state"]) == ("src/retry.py", "changed")
    assert '(stale: "src/retry.py" changed since ' in ok(carol, "brief").out
    shown = ok(carol, "--json", "show", memory_id).json()
    assert shown["stale"] is True
    # The SessionStart hook of a clone that never ran sync takes the line too.
    dave = clone(origin, tmp_path, "dave")
    (dave / "src" / "retry.py").unlink()
    assert '(stale: "src/retry.py" deleted since ' in session_start(dave)
    # Bob's store writes the memory's line as the ledger has it, files and all.
    assert ledger_entries(bob) == ledger_entries(alice)


def test_a_person_confirming_moves_the_line_and_the_team_takes_it(tmp_path: Path) -> None:
    alice, origin, memory_id = alice_with_anchor(tmp_path)
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")
    (alice / "src" / "retry.py").write_bytes(b"MAX_DELAY = 30  # capped\n")
    assert memory_id in stale_ids(alice)
    ok(alice, "confirm", memory_id, "--reason", "still 30 s")
    publish(alice, "retry capped; memory confirmed")
    commit(bob, "bob's sync")
    pull(bob)
    ok(bob, "sync")
    blob = blob_of(bob, "src/retry.py")
    assert anchored(bob) == {(memory_id, "src/retry.py", blob, -1, -1)}
    assert stale_ids(bob) == {}


def hostile(entry: dict[str, Any]) -> dict[str, Any]:
    good = entry["files"][0]
    files = [
        good,
        {**good, "path": "../outside.txt"},
        {**good, "path": "/etc/passwd"},
        {**good, "path": ".git/config"},
        {**good, "path": "src/./retry.py"},
        {**good, "path": "src/\u0000x.py"},
        {**good, "path": "src/link.py"},  # plain in form; a link in the clone
        {**good, "path": "src/queue.py", "blob": "../../etc/passwd"},
        {**good, "path": "src/queue.py", "commit": "HEAD; rm -rf /"},
        {**good, "path": "src/queue.py", "at": "yesterday"},
        "src/queue.py",
    ]
    return {**entry, "files": files}


def test_hostile_paths_and_hashes_in_a_ledger_line_are_dropped(tmp_path: Path) -> None:
    alice, origin, memory_id = alice_with_anchor(tmp_path)
    lines = (alice / LEDGER).read_text(encoding="utf-8").splitlines()
    rewritten = []
    for line in lines:
        data = json.loads(line)
        if data.get("id") == memory_id:
            line = json.dumps(hostile(data))
        rewritten.append(line)
    (alice / LEDGER).write_text("".join(x + "\n" for x in rewritten), encoding="utf-8")
    publish(alice, "a hostile ledger line, as the upstream holds it")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(RETRY)
    bob = clone(origin, tmp_path, "bob")
    (bob / "src" / "link.py").symlink_to(outside)
    ok(bob, "sync")
    blob = blob_of(alice, "src/retry.py")
    assert anchored(bob) == {
        (memory_id, "src/retry.py", blob, -1, -1),
        (memory_id, "src/link.py", blob, -1, -1),
    }
    # The link's form was plain; the clone never follows it to the file outside.
    [found] = stale_ids(bob)[memory_id]
    assert (found["path"], found["state"]) == ("src/link.py", "unreadable")


def test_a_ledger_line_whose_file_path_is_a_secret_is_reported_and_skipped(
    tmp_path: Path,
) -> None:
    alice, origin, memory_id = alice_with_anchor(tmp_path)
    lines = (alice / LEDGER).read_text(encoding="utf-8").splitlines()
    rewritten: list[str] = []
    for line in lines:
        data = json.loads(line)
        if data.get("id") == memory_id:
            [good] = data["files"]
            line = json.dumps({**data, "files": [good, {**good, "path": f"src/{TOKEN}.py"}]})
        rewritten.append(line)
    (alice / LEDGER).write_text("".join(x + "\n" for x in rewritten), encoding="utf-8")
    publish(alice, "a ledger line naming a secret as a file")
    bob = clone(origin, tmp_path, "bob")
    done = ok(bob, "--json", "sync").json()
    [skipped] = done["items"]  # the one line, and only it
    assert done["skipped"] == 1 and skipped["reason"].startswith("refused: files[0] looks like")
    assert "looks like a secret" in skipped["reason"] and TOKEN not in json.dumps(done)
    assert memory_id not in {row[0] for row in anchored(bob)}
    assert ok(bob, "--json", "list").json()["total"] == 0
    with Store.open(bob) as store:
        assert not store.conn.execute("SELECT 1 FROM anchors WHERE path LIKE '%ghp_%'").fetchall()
