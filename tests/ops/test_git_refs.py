"""The upstream's commit read from `.git` (`git_refs.py`): git's answer or
none, and the SessionStart hook's pass starts git only when that reading
cannot say the upstream is where the store recorded it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from team_support import LEDGER, git, ok
from test_ledger_delta import claim, hook_pass, ledger_lines, team, write_ledger

from tree_ring.store.db import Store
from tree_ring.team import git_refs, ledger_delta


def gits_answer(root: Path) -> tuple[str, str]:
    ref = git(root, "rev-parse", "--symbolic-full-name", "@{upstream}").stdout.strip()
    return ref, git(root, "rev-parse", "@{upstream}").stdout.strip()


def recorded(root: Path) -> tuple[str | None, str | None, str | None]:
    with Store.open(root) as store:
        return ledger_delta.recorded_upstream(store.db)[:3]


def test_the_reading_is_gits_answer_for_loose_packed_and_worktree_refs(tmp_path: Path) -> None:
    alice, bob = team(tmp_path)
    assert git_refs.upstream(str(bob)) == gits_answer(bob)  # packed by the clone
    ok(alice, "remember", "Deploys wait for the smoke tests", "--ring", "heartwood")
    git(alice, "commit", "-qam", "more")
    git(alice, "push", "-q")
    git(bob, "fetch", "-q")  # a loose ref now, over the packed one
    assert (bob / ".git" / "refs" / "remotes" / "origin" / "main").exists()
    assert git_refs.upstream(str(bob)) == gits_answer(bob)
    git(bob, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"), "origin/main")
    side = tmp_path / "side"
    assert git_refs.upstream(str(side)) == gits_answer(side)
    # Recorded by the full sync: the upstream as git names it, at its commit.
    ref, _, commit = recorded(bob)
    assert ref == "refs/remotes/origin/main" and commit is not None


@pytest.mark.parametrize(
    "layout", ["include", "local upstream", "symbolic ref", "git dir from the environment"]
)
def test_an_unusual_layout_is_left_to_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """Where a plain reading would disagree with git, the reader says nothing."""
    alice, bob = team(tmp_path)
    git(bob, "branch", "-q", "other", "origin/main")
    plain = git_refs.upstream(str(bob))
    assert plain == gits_answer(bob)
    if layout == "include":  # another file sets the branch's upstream
        (bob / ".git" / "more").write_text('[branch "main"]\n\tmerge = refs/heads/x\n')
        git(bob, "config", "include.path", "more")
    elif layout == "local upstream":
        git(bob, "branch", "-q", "-u", "other")
    elif layout == "symbolic ref":
        loose = bob / ".git" / "refs" / "remotes" / "origin" / "main"
        loose.write_text("ref: refs/heads/other\n")
    else:
        monkeypatch.setenv("GIT_DIR", str(alice / ".git"))
    assert git_refs.upstream(str(bob)) is None


def no_git(*args: Any) -> bytes:
    raise AssertionError(f"git {args}")


def test_a_claim_on_an_upstream_that_has_not_moved_starts_no_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, bob = team(tmp_path)
    monkeypatch.setattr(ledger_delta, "git", no_git)
    write_ledger(bob, [*ledger_lines(bob), claim(bob)])
    assert hook_pass(bob) == "applied"


def test_an_upstream_moved_is_asked_of_git_and_its_lines_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = team(tmp_path)
    old = recorded(bob)
    ok(alice, "remember", "Deploys wait for the smoke tests", "--ring", "heartwood")
    git(alice, "commit", "-qam", "more")
    git(alice, "push", "-q")
    git(bob, "fetch", "-q")
    # The upstream's new line, in bob's working tree before any merge.
    theirs = git(bob, "show", f"origin/main:{LEDGER}").stdout.splitlines()
    new = [line for line in theirs if line not in ledger_lines(bob)]
    # The memory, and Alice's anchor, moved with her write.
    assert sorted(json.loads(line)["record"] for line in new) == ["anchor", "memory"]
    asked: list[tuple[str, ...]] = []
    real = ledger_delta.git

    def counting(root: str, *args: str) -> bytes | None:
        asked.append(args)
        return real(root, *args)

    monkeypatch.setattr(ledger_delta, "git", counting)
    write_ledger(bob, [*ledger_lines(bob), *new])
    assert hook_pass(bob) == "applied"
    assert ledger_delta.PROBE in asked
    assert recorded(bob)[2] == gits_answer(bob)[1] != old[2]
    memory = next(json.loads(line) for line in new if '"record":"memory"' in line)
    with Store.open(bob) as store:
        trust = store.conn.execute("SELECT trust FROM memories WHERE id = ?", (memory["id"],))
        assert [row[0] for row in trust] == ["accepted"]
