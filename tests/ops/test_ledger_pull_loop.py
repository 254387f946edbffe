"""A sync that takes in only what a pull brought, or follows writes that stay
in this clone (an agent's own notes), writes nothing, so the next pull finds
no change of this clone's to refuse over: the clone's anchor moves with a
change the ledger carries (docs/TEAM.md)."""

from __future__ import annotations

from pathlib import Path

from team_support import LEDGER, clone, first_repo, git, hub, ok, publish, pull, remember


def _clean(root: Path) -> bool:
    return git(root, "status", "--porcelain", "--", LEDGER).stdout == ""


def test_pull_then_sync_leaves_the_ledger_clean_for_the_next_pull(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    ok(alice, "sync")
    publish(alice, "a memory")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    ok(bob, "sync")
    assert _clean(bob)
    for n in range(3):
        remember(alice, f"Release rule {n} holds for the payments service")
        publish(alice, f"rule {n}")
        pull(bob)  # refused if the last sync left the ledger changed
        done = ok(bob, "--json", "sync").json()
        assert done["imported"] == 1 and done["written"] == []
        assert _clean(bob)
    # Bob's own write moves his anchor with it: his log holds more than imports.
    mine = remember(bob, "Bob's note on the staging soak")
    ok(bob, "sync")
    assert mine in (bob / LEDGER).read_text(encoding="utf-8")
    anchor = [line for line in git(bob, "diff", "--", LEDGER).stdout.splitlines()
              if line.startswith("+{") and '"record":"anchor"' in line]  # fmt: skip
    assert len(anchor) == 1


def test_a_persons_write_moves_the_anchor_so_a_cut_of_it_shows(tmp_path: Path) -> None:
    """A write the ledger shares is committed with the anchor of the entries
    that made it: cut them, and the next sync says so, with no sync between
    the write and the commit."""
    from team_support import cli, commit, cut_audit

    alice = first_repo(tmp_path)
    gone = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    ok(alice, "sync")
    commit(alice, "a memory")
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "lifted")
    commit(alice, "the forget, committed as written")
    cut_audit(alice)
    done = cli(alice, "--json", "sync")
    assert done.code == 1 and "truncated" in done.json()["audit_anchor"]
    # A write the ledger does not share (a partition's row) leaves it as it was.
    clean = first_repo(tmp_path, "carol")
    ok(clean, "sync")
    commit(clean, "synced")
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-anchor"}
    assert cli(clean, "remember", "Carol's agent's own note", environ=agent).code == 0
    assert _clean(clean)


def test_an_agents_own_notes_leave_the_ledger_for_the_next_pull(tmp_path: Path) -> None:
    """An agent's notes stay in its clone: the sync after them writes
    nothing, the teammate's pull goes through, and the anchor moves with the
    person's next shared write, anchoring those entries too."""
    from team_support import cli

    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    publish(alice, "a memory")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    ok(bob, "sync")
    publish(bob, "bob synced")
    pull(alice)
    ok(alice, "sync")
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-agent"}
    for n in range(2):
        assert cli(bob, "remember", f"Bob's agent's note {n}", environ=agent).code == 0
        done = ok(bob, "--json", "sync").json()
        assert done["written"] == [] and _clean(bob)
    remember(alice, "Release builds run the schema check first")
    publish(alice, "another memory")
    pull(bob)  # refused if a sync left Bob's ledger changed
    ok(bob, "sync")
    assert _clean(bob)
    remember(bob, "Bob's note on the staging soak")
    anchor = [line for line in git(bob, "diff", "--", LEDGER).stdout.splitlines()
              if line.startswith("+{") and '"record":"anchor"' in line]  # fmt: skip
    assert len(anchor) == 1
