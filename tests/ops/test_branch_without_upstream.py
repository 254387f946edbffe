"""A branch with no upstream yet (`git checkout -b`, `git worktree add -b`)
reads the team ledger against the team's remote's default branch: its lines
are the team's, not claims, so the brief shows them, a forget stays a
forget, and the ledger a write there rewrites keeps every team line."""

from __future__ import annotations

from pathlib import Path

from team_support import (
    LEDGER,
    cli,
    clone,
    first_repo,
    git,
    hub,
    ok,
    publish,
    remember,
    session_start,
    shared_ids,
    summaries,
)

TEAMS = "Deploys freeze on Fridays after the release branch is cut"
GONE = "Staging resets every Sunday night"


def _team(tmp_path: Path) -> tuple[Path, Path]:
    """Alice's project, pushed to a hub with one memory and one forget."""
    alice = first_repo(tmp_path)
    remember(alice, TEAMS)
    gone = remember(alice, GONE)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "wrong")
    bare = hub(tmp_path, alice)
    publish(alice, "the team's memory")
    return alice, bare


def _holds_the_team(root: Path, before: set[str]) -> None:
    assert TEAMS in session_start(root)  # the first session builds a store the sync did not
    assert TEAMS in summaries(root)
    refused = cli(root, "remember", GONE)
    assert refused.code != 0 and "forgotten" in refused.err
    assert ok(root, "--json", "remember", "A note on the new branch").json()["id"]
    assert before <= shared_ids(root)
    ledger = (root / LEDGER).read_text(encoding="utf-8")
    assert TEAMS in ledger and '"record":"tombstone"' in ledger


def test_a_clone_branched_before_its_first_session_takes_the_teams_memory(
    tmp_path: Path,
) -> None:
    alice, bare = _team(tmp_path)
    before = shared_ids(alice)
    bob = clone(bare, tmp_path, "bob", init=False)
    git(bob, "checkout", "-q", "-b", "feat")
    assert git(bob, "rev-parse", "@{upstream}", check=False).returncode != 0
    done = ok(bob, "--json", "sync")
    assert done.json()["claimed"] == []
    _holds_the_team(bob, before)


def test_a_worktree_on_a_new_branch_takes_the_teams_memory(tmp_path: Path) -> None:
    alice, bare = _team(tmp_path)
    before = shared_ids(alice)
    bob = clone(bare, tmp_path, "bob")
    work = tmp_path / "bob-feat"
    git(bob, "worktree", "add", "-q", str(work), "-b", "feat")
    _holds_the_team(work, before)


def test_a_worktree_in_the_clone_that_made_the_remote_takes_the_teams_memory(
    tmp_path: Path,
) -> None:
    """The clone that made the repository and added its remote (`git remote
    add`, then `git push -u`) records no default branch of it
    (`refs/remotes/origin/HEAD`): its `main` is read instead."""
    alice, _ = _team(tmp_path)
    before = shared_ids(alice)
    assert (
        git(
            alice, "rev-parse", "--verify", "-q", "refs/remotes/origin/HEAD", check=False
        ).returncode
        != 0
    )
    work = tmp_path / "alice-feat"
    git(alice, "worktree", "add", "-q", str(work), "-b", "feat")
    _holds_the_team(work, before)
