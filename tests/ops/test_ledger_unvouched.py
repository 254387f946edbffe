"""Unvouched forgetting: a made-up tombstone, a dropped redaction line, a
shallow clone, a ledger that is not a file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from team_support import LEDGER, cli, clone, commit, first_repo, git, hub, ok, publish, remember

from tree_ring.store import tombstones
from tree_ring.store.db import Store

AGENT_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "agent-session-1"}
MADE_UP = "mem_20200101_000000_aaaaaaaaaaaa"
TEXT = "Deploys freeze on Fridays after the release branch is cut"


def _hash_of(root: Path, memory_id: str) -> str:
    for raw in (root / LEDGER).read_text(encoding="utf-8").splitlines():
        data = json.loads(raw)
        if data.get("id") == memory_id:
            return str(data["content_hash"])
    raise AssertionError(memory_id)


def _append(root: Path, line: Mapping[str, object]) -> None:
    with (root / LEDGER).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n")


def _ids(root: Path) -> set[str]:
    with Store.open(root) as store:
        found = store.conn.execute("SELECT id FROM memories WHERE retired_at IS NULL")
        return {str(row[0]) for row in found}


def test_a_made_up_tombstone_with_a_held_memorys_content_asks(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    kept = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(origin, tmp_path, "bob")
    stone = {"record": "tombstone", "id": MADE_UP, "kind": "forgotten"}
    _append(bob, stone | {"hashes": [_hash_of(bob, kept)], "at": "2020-01-01T00:00:00Z"})
    done = cli(bob, "--json", "sync", environ=AGENT_ENV)
    assert done.code == 0, done.err
    [request] = done.json()["requested"]
    queue = ok(bob, "--json", "review", "list").json()
    assert [item["id"] for item in queue["items"]] == [request]
    assert kept in _ids(bob)
    assert MADE_UP not in (bob / LEDGER).read_text(encoding="utf-8")
    with Store.open(bob) as store:
        assert tombstones.of_project(store.db, _project(bob)) == []
    publish(bob, "bob's work")
    fresh = clone(origin, tmp_path, "fresh")
    assert _ids(fresh) == {kept}


def _project(root: Path) -> str:
    from tree_ring.model import project

    return project.load_project_id(root)


def test_a_made_up_tombstone_matching_nothing_is_withdrawn_dated_on_arrival(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    kept = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(origin, tmp_path, "bob")
    other = "sha256:" + "f" * 64
    stone = {"record": "tombstone", "id": MADE_UP, "kind": "forgotten"}
    _append(bob, stone | {"hashes": [other], "at": "2020-01-01T00:00:00Z"})
    done = cli(bob, "--json", "sync", environ=AGENT_ENV)
    assert done.code == 0, done.err
    assert done.json()["requested"] == []
    assert _ids(bob) == {kept}
    # Kept as a withdrawal: it binds agents here, and stays out of the ledger.
    assert MADE_UP not in (bob / LEDGER).read_text(encoding="utf-8")
    with Store.open(bob) as store:
        found = store.conn.execute(
            "SELECT memory_id, content_hash, kind, created_at FROM content_tombstones"
        )
        [(memory_id, content_hash, kind, at)] = [tuple(row) for row in found]
    assert (memory_id, content_hash, kind) == (MADE_UP, other, tombstones.WITHDRAWN)
    assert not at.startswith("2020")
    # Taken once: a second sync raises nothing and records nothing again.
    _append(bob, stone | {"hashes": [other], "at": "2020-01-01T00:00:00Z"})
    again = cli(bob, "--json", "sync", environ=AGENT_ENV)
    assert again.code == 0 and again.json()["requested"] == [], again.err
    assert MADE_UP not in (bob / LEDGER).read_text(encoding="utf-8")
    logged = ok(bob, "--json", "audit", "log", "--target", MADE_UP).json()["items"]
    assert [(e["action"], e["detail"]["kind"]) for e in logged] == [("tombstone", "withdrawn")]


def test_a_dropped_redaction_line_keeps_the_content_out_of_a_fresh_clone(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    stays = remember(alice, TEXT)
    doomed = remember(alice, "The staging database is reset every Monday morning")
    publish(alice, "memories")
    ok(alice, "forget", doomed, "--mode", "redact", "--reason", "personal data")
    publish(alice, "redacted")
    before = git(alice, "show", f"HEAD~1:{LEDGER}").stdout
    (alice / LEDGER).write_text(before, encoding="utf-8")
    publish(alice, "restore the older ledger")
    fresh = clone(origin, tmp_path, "fresh")
    assert _ids(fresh) == {stays}
    refused = cli(fresh, "remember", "The staging database is reset every Monday morning")
    assert refused.code != 0 and "forgotten" in refused.err


def test_a_shallow_clone_says_its_history_was_not_read(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    remember(alice, TEXT)
    publish(alice, "a memory")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "shallow")
    shallow = tmp_path / "shallow"
    done = ok(shallow, "--json", "init")
    assert done.json()["notes"] == [
        "the clone is shallow: forgotten content in the ledger's history was not read; "
        "run `git fetch --unshallow` and `tree-ring sync`",
        "configured git's merge driver for the ledger in .git/config (this clone only)",
        "took the team's memory from .tree-ring/ledger.jsonl: 1 memory",
    ]
    again = ok(shallow, "--json", "sync").json()
    assert len(again["notes"]) == 1
    git(shallow, "fetch", "-q", "--unshallow")
    assert ok(shallow, "--json", "sync").json()["notes"] == []
    full = clone(origin, tmp_path, "full")
    assert ok(full, "--json", "sync").json()["notes"] == []


def test_a_ledger_that_is_a_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    (alice / LEDGER).unlink()
    (alice / LEDGER).mkdir()
    commit(alice, "noop")
    done = cli(alice, "sync")
    assert done.code == 2
    assert done.err == (
        f"error: {alice / LEDGER} is not a regular file; the ledger must be a regular "
        "file: remove it and run `tree-ring sync` to write it again\n"
    )
