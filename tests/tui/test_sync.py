"""The screen's /sync: the real team sync when the project has a ledger."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import cli_runner

from tree_ring.harness import guidance
from tree_ring.store import audit
from tree_ring.tui import commands, keys, screen
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State

FACT = "Deploys go through the staging branch first"
LEDGER = ".tree-ring/ledger.jsonl"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60, check=True)


def repo(root: Path) -> Path:
    """A git repository with Tree Ring initialised in it (and so a ledger)."""
    for key, value in (("user.name", "Alice"), ("user.email", "a@example.com")):
        git(root, "config", key, value)
    git(root, "config", "commit.gpgsign", "false")
    guidance.init_project(root)
    return root


def summaries(root: Path) -> set[str]:
    session = Session(str(root), {})
    try:
        return {row[0] for row in session.store.db.query("SELECT summary FROM memories")}
    finally:
        session.close()


def _sync(root: Path) -> str:
    """/sync, confirmed with y, as the screen's loop runs it: its status line."""
    state = State()
    session = Session(str(root), {})
    try:
        session.load(state)
        assert commands.run(state, "/sync") is None
        action = keys.handle_key(state, "y")
        assert action is not None and action.name == "sync" and action.writes
        screen._do(session, state, action)  # pyright: ignore[reportPrivateUsage]
        return state.status
    finally:
        session.close()


def test_sync_brings_a_teammates_memory_in_and_says_how_much(tmp_path: Path) -> None:
    alice = tmp_path / "alice"
    alice.mkdir()
    git(alice, "init", "-q", "-b", "main")
    repo(alice)
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "start")
    git(tmp_path, "clone", "-q", str(alice), "bob")
    bob = repo(tmp_path / "bob")
    done = cli_runner(alice)("remember", FACT)  # a person's write goes into the ledger
    assert done.code == 0, done.err
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "a fact")
    git(bob, "pull", "-q", "--no-rebase", "--no-edit")  # from the upstream: trusted
    assert FACT not in summaries(bob)
    said = _sync(bob)
    assert said.startswith("synced: 1 imported, 0 replaced, 0 forgotten, 0 redacted"), said
    assert FACT in summaries(bob)
    session = Session(str(bob), {})
    try:
        actions = [row["action"] for row in session.store.db.query("SELECT * FROM audit_log")]
        assert audit.verify(session.store.db).ok and "import" in actions
    finally:
        session.close()


def test_without_a_ledger_sync_says_how_to_start_one_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    guidance.init_project(root)  # not a git repository: no ledger
    assert not (root / LEDGER).exists()
    said = _sync(root)
    assert "no team ledger" in said and "tree-ring sync --setup" in said
    assert not (root / LEDGER).exists()
