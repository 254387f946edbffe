"""A person's rejection travels as a rejection: a teammate's clone that held
the row writes its tombstone line back as it came, so the clone that rejected
it keeps its rejected row on record rather than reading a forget of it."""

from __future__ import annotations

from pathlib import Path

from team_support import (
    cli,
    clone,
    first_repo,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    remember,
    settled,
)

CLAUDE = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}


def _kinds(root: Path, memory_id: str) -> set[str]:
    return {
        str(e.get("kind"))
        for e in ledger_entries(root)
        if e["record"] == "tombstone" and e["id"] == memory_id
    }


def test_a_rejection_stays_a_rejection_in_every_clone(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    memory_id = remember(alice, "The cache TTL is ten minutes")
    publish(alice, "a memory")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    ok(bob, "sync")
    publish(bob, "bob's clone")
    pull(alice)
    refuted = cli(alice, "refute", memory_id, "--reason", "moved to config", environ=CLAUDE)
    assert refuted.code == 0, refuted.err
    ok(alice, "review", "reject", memory_id, "--reason", "it is five minutes now")
    assert _kinds(alice, memory_id) == {"rejected"}
    publish(alice, "rejected")
    pull(bob)
    ok(bob, "sync")
    assert _kinds(bob, memory_id) == {"rejected"}
    assert cli(bob, "show", memory_id).code != 0  # taken from bob's clone, as a forget takes it
    publish(bob, "bob synced")
    settled(alice, bob)
    assert _kinds(alice, memory_id) == _kinds(bob, memory_id) == {"rejected"}
    # Still on record in the clone that rejected it, with its reason.
    kept = ok(alice, "--json", "show", memory_id).json()["memory"]
    assert kept["trust"] == "rejected"
