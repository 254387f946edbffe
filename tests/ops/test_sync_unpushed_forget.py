"""A clone that forgot a memory the upstream's ledger still holds is told to
push the forget, not to write the content again over its tombstone."""

from __future__ import annotations

from pathlib import Path

from team_support import clone, commit, first_repo, hub, ok, publish, pull, remember

TEXT = "The image resize worker runs 4 processes"


def test_a_sync_before_the_push_names_the_push(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    shared = remember(alice, TEXT)
    publish(alice, "a memory")
    ok(alice, "refute", shared, "--reason", "now 8")
    again = remember(alice, TEXT)
    took = ok(alice, "forget", again, "--mode", "delete", "--reason", "duplicate").out
    assert shared in took  # the upstream's row went with it, as holding the same claim
    said = ok(alice, "sync").out
    assert f"{shared}: forgotten in this clone (with {again})" in said
    assert "commit and push the ledger to share the forget" in said
    assert "--override-tombstone" not in said
    publish(alice, "the forget")
    said = ok(alice, "sync").out
    assert "skipped:    0" in said and shared not in said


def test_a_teammates_row_of_forgotten_content_keeps_the_way_back(tmp_path: Path) -> None:
    """A line of another row, which this clone never held, holding content
    it forgot: the refusal says how a person writes it again, as for any
    write of it."""
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    publish(bob, "bob's clone")
    pull(alice)
    forgotten = remember(alice, TEXT)
    ok(alice, "forget", forgotten, "--mode", "delete", "--reason", "wrong")
    commit(alice, "the forget, not pushed")
    theirs = remember(bob, TEXT)
    publish(bob, "bob's memory")
    pull(alice)
    said = ok(alice, "sync").out
    assert f"{theirs}: this content was forgotten" in said
    assert "--override-tombstone" in said and "forgotten in this clone" not in said
