"""A forget racing a teammate's write: Alice forgets a memory whose words
Bob's memory holds, written before her tombstone reached him. Bob's store
keeps his memory; every clone built from the ledger refuses it. `doctor`
in Bob's clone says so for every memory a clone would hold live (an agent's
dispute does not stop its line from travelling), and again when the copy a
re-admission made is retired."""

from __future__ import annotations

from pathlib import Path

from governance_support import CLAUDE
from team_support import (
    cli,
    clone,
    commit,
    expire,
    first_repo,
    hub,
    ledger_check,
    ok,
    publish,
    pull,
    remember,
    shared_ids,
)

TEXT = "Alpha bravo charlie delta echo"


def _raced(tmp_path: Path, *, disputed: bool = False) -> tuple[Path, str, Path]:
    """Bob's clone after Alice's forget of TEXT reached it, his memory holding
    TEXT in its details: (Bob's root, his memory's id, the team's remote)."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    forgotten = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(shared, tmp_path, "bob")
    his = ok(bob, "--json", "remember", "Bob one", "--details", TEXT).json()["id"]
    if disputed:
        refuted = cli(bob, "refute", his, "--reason", "looks wrong", environ=CLAUDE)
        assert refuted.code == 0, refuted.err
    publish(bob, "his memory")
    # Alice forgets before she has Bob's memory: her tombstone holds its words.
    ok(alice, "forget", forgotten, "--mode", "delete", "--reason", "never store this")
    commit(alice, "forget it")
    pull(alice)
    ok(alice, "sync")
    publish(alice, "synced")
    pull(bob)
    ok(bob, "sync")
    assert his in shared_ids(bob)
    return bob, his, shared


def _refuses(check: dict[str, object], memory_id: str) -> bool:
    return check["ok"] is False and f"refuse 1 memory(ies) this store keeps ({memory_id})" in str(
        check["detail"]
    )


def test_doctor_names_the_teammates_memory_a_fresh_clone_drops(tmp_path: Path) -> None:
    bob, his, shared = _raced(tmp_path)
    assert _refuses(ledger_check(bob), his)
    fresh = clone(shared, tmp_path, "fresh")
    assert his not in shared_ids(fresh)


def test_a_memory_an_agent_disputed_still_counts(tmp_path: Path) -> None:
    bob, his, _ = _raced(tmp_path, disputed=True)
    assert _refuses(ledger_check(bob), his)


def test_retiring_the_re_admitted_copy_is_named_again(tmp_path: Path) -> None:
    bob, his, _ = _raced(tmp_path)
    again = cli(
        bob, "--json", "remember", "Bob one", "--details", TEXT,
        "--override-tombstone", "--reason", "kept on purpose",
    )  # fmt: skip
    assert again.code == 0, again.err
    copy = again.json()["id"]
    ok(bob, "review", "approve", copy, "--reason", "checked")
    assert ledger_check(bob)["ok"] is True
    ok(bob, "refute", copy, "--reason", f"a duplicate of {his}")
    assert _refuses(ledger_check(bob), his)


def test_an_expired_memory_costs_no_clone_anything(tmp_path: Path) -> None:
    bob, his, _ = _raced(tmp_path)
    expire(bob, his)
    assert ledger_check(bob)["ok"] is True
