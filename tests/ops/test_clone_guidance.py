"""What `init` and a missing store say in a git repository: commit the
folder, and in a clone whose ledger came with it, `sync` builds the store."""

from __future__ import annotations

from pathlib import Path

from team_support import cli, clone, commit, first_repo, git, remember

COMMIT = (
    "commit .tree-ring/ (`git add .tree-ring && git commit`): a teammate's clone takes "
    "the team's memory from its ledger"
)


def test_init_in_a_new_repository_says_to_commit_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    done = cli(root, "init")
    assert done.code == 0 and f"note:   {COMMIT}\n" in done.out
    # A clone's init finds the ledger it came with: nothing new to commit.
    alice = first_repo(tmp_path)
    bob = clone(alice, tmp_path, "bob", init=False)
    assert COMMIT not in cli(bob, "init").out


def test_a_clone_without_a_store_is_told_that_sync_builds_it(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "The team builds with make")
    commit(alice, "memory")
    bob = clone(alice, tmp_path, "bob", init=False)
    done = cli(bob, "recall", "build")
    assert done.code == 1
    assert done.err == (
        f"error: no store at {bob}/.tree-ring/memory.sqlite; a clone builds it from the team "
        f"ledger: `tree-ring --root {bob} sync` (the next session does too); a lost store "
        "comes back whole from your export: `init`, then `import FILE --restore` (a ledger "
        "no upstream holds gives back claims for `review list`)\n"
    )
    assert cli(bob, "sync").code == 0 and cli(bob, "recall", "build").code == 0
    # Without a ledger, as before: `init`.
    lone = tmp_path / "lone"
    lone.mkdir()
    assert cli(lone, "init").code == 0
    (lone / ".tree-ring" / "memory.sqlite").unlink()
    assert cli(lone, "recall", "x").err.endswith(f"; run `tree-ring --root {lone} init`\n")
