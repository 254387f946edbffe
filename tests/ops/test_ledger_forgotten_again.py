"""Content forgotten, re-admitted, forgotten again under the new id, and
re-admitted once more. A store holds one tombstone a hash, naming the memory
forgotten last; the team ledger needs a line for each memory forgotten, or
a teammate who never took the first forget keeps that memory. Every clone
writes both lines, ends with only the last re-admission, and the ledger
settles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ledger_check,
    ledger_entries,
    ok,
    publish,
    pull,
    remember,
    settled,
    shared_ids,
)

TEXT = "Alpha bravo charlie delta echo"


def _readmit(root: Path, reason: str) -> str:
    again = ok(root, "--json", "remember", TEXT, "--override-tombstone", "--reason", reason).json()
    ok(root, "review", "approve", again["id"], "--reason", "checked")
    return str(again["id"])


def _tombstone_ids(root: Path) -> set[str]:
    lines = (root / LEDGER).read_text(encoding="utf-8").splitlines()
    return {str(data["id"]) for data in map(json.loads, lines) if data.get("record") == "tombstone"}


def test_each_memory_forgotten_keeps_its_line_and_no_clone_keeps_one(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    first = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(shared, tmp_path, "bob")  # takes the memory, then syncs no more
    assert shared_ids(bob) == {first}
    ok(alice, "forget", first, "--mode", "delete", "--reason", "wrong")
    second = _readmit(alice, "right after all")
    ok(alice, "forget", second, "--mode", "delete", "--reason", "wrong again")
    third = _readmit(alice, "right at last")
    assert _tombstone_ids(alice) == {first, second}
    publish(alice, "forgotten twice")
    pull(bob)
    ok(bob, "sync")
    assert shared_ids(bob) == {third}
    fresh = clone(shared, tmp_path, "fresh")
    assert shared_ids(fresh) == {third}
    for root in (alice, bob, fresh):
        assert _tombstone_ids(root) == {first, second}, root.name
        assert ledger_check(root)["ok"] is True, root.name
    commit(bob, "synced")
    commit(fresh, "synced")
    settled(bob, fresh, alice)


@pytest.mark.parametrize(
    ("first", "then"), [("delete", "delete"), ("redact", "redact"), ("delete", "redact")]
)
def test_one_memory_forgotten_on_two_clones_settles_on_the_later_forget(
    tmp_path: Path, first: str, then: str
) -> None:
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    memory = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(shared, tmp_path, "bob")
    # Both forget it before either syncs: two lines for one id.
    ok(alice, "forget", memory, "--mode", first, "--reason", "wrong")
    commit(alice, "forgotten here")
    ok(bob, "forget", memory, "--mode", then, "--reason", "wrong too")
    commit(bob, "forgotten there")
    settled(alice, bob, rounds=2)
    [alice_line, bob_line] = [
        [e for e in ledger_entries(root) if e.get("id") == memory] for root in (alice, bob)
    ]
    assert alice_line == bob_line and len(alice_line) == 1


def test_a_memory_whose_own_id_was_forgotten_comes_back_under_a_new_id(
    tmp_path: Path,
) -> None:
    """A forget's ledger lines put back with git: the forget stays in the
    upstream's history, and Bob, who kept the memory, is told to re-admit
    it. Its own id is forgotten, so `review readmit` says how to keep its
    words instead, and that way every clone holds them."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    first = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(shared, tmp_path, "bob")
    before = git(alice, "rev-parse", "HEAD").stdout.strip()
    ok(alice, "forget", first, "--mode", "delete", "--reason", "wrong")
    publish(alice, "forgotten")
    git(alice, "checkout", before, "--", LEDGER)
    publish(alice, "the forget put back")
    pull(bob)
    ok(bob, "sync")
    assert first in shared_ids(bob) and ledger_check(bob)["ok"] is False
    refused = cli(bob, "review", "readmit", first, "--reason", "it holds")
    assert refused.code == 1 and refused.err.count("\n") == 1
    assert f"{first} itself was forgotten" in refused.err
    assert f"`tree-ring forget {first} --mode delete --reason WHY`" in refused.err
    # Its own words over the tombstone would re-admit it: refused the same way.
    again = cli(bob, "remember", TEXT, "--override-tombstone", "--reason", "it holds")
    assert again.code == 1 and again.err == refused.err
    ok(bob, "forget", first, "--mode", "delete", "--reason", "the team forgot it")
    again = _readmit(bob, "it holds")
    assert shared_ids(bob) == {again} and ledger_check(bob)["ok"] is True
    publish(bob, "its words under a new id")
    pull(alice)
    ok(alice, "sync")
    assert shared_ids(alice) == {again}
    assert shared_ids(clone(shared, tmp_path, "fresh")) == {again}
