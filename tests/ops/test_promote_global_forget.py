"""`promote --scope global` beside a forget of the same row.

The outcome is one of the two serial orders: the forget first (the promote
is refused and writes nothing to the user store), or the promote first (the
copy is made, and the forget then finds the retired row, as after any
promote). The project's write lock is held from the promote's check to its
retirement, the user store's write inside it.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import remember, write
from helpers import cli_runner

from tree_ring.api.project import Project
from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.store import user
from tree_ring.store.db import Store, Transaction
from tree_ring.write import pipeline

TEXT = "The sandbox token is kept in /opt/sbx7/token"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def user_ids(home: dict[str, str]) -> set[str]:
    conn = sqlite3.connect(user.user_store_path(home))
    try:
        return {r[0] for r in conn.execute("SELECT id FROM memories")}
    finally:
        conn.close()


def agent_note(run_cli: CliRunner, home: dict[str, str]) -> tuple[str, str]:
    """An agent's partition note, and the person's first global note (the user store)."""
    mine = remember(run_cli, "I prefer small commits", "--scope", "global", environ=home)
    note = remember(run_cli, TEXT, "--scope", "agent", "--agent-profile", "w1")
    return note, mine


def forget(root: Path, home: dict[str, str], memory_id: str, mode: str) -> None:
    with Project.open(str(root), home) as here:
        here.forget(memory_id, mode=mode, reason="never keep this")


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_a_forget_just_before_the_promote_leaves_the_user_store_without_it(
    run_cli: CliRunner,
    project_root: Path,
    tmp_path: Path,
    home: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    note, mine = agent_note(run_cli, home)
    path = str(project.store_path(project_root))
    real = Store.write
    done: list[str] = []

    def write_after_forget(self: Store, *, wait: bool = True) -> Transaction:
        # The forget commits once the promote has opened both stores and read
        # its arguments, the moment before it takes the project's lock.
        if str(self.path) == path and not done:
            done.append(mode)
            forget(project_root, home, note, mode)
        return real(self, wait=wait)

    monkeypatch.setattr(Store, "write", write_after_forget)
    ran = run_cli("promote", note, "--scope", "global", "--reason", "mine", environ=home)
    monkeypatch.undo()
    assert done == [mode]
    assert ran.code == 1 and ran.err.count("\n") == 1, ran.err
    expected = (
        f"error: no memory '{note}'"
        if mode == "delete"
        else f"error: {note} was forgotten (redacted); there is nothing to promote"
    )
    assert ran.err.startswith(expected)
    assert user_ids(home) == {mine}  # nothing of it was written there
    # The forget's tombstone refuses the text here, and globally from here.
    for scope in ("project", "global"):
        again = run_cli("remember", TEXT, "--scope", scope, environ=home)
        assert again.code == 1 and "will not be stored again" in again.err, again.err
    # Another project's brief and recall do not show it.
    other = tmp_path / "other"
    other.mkdir()
    guidance.init_project(other)
    there = cli_runner(other)
    assert "sandbox token" not in there("brief", environ=home).out
    found = there("--json", "recall", "sandbox token kept", environ=home).json()
    assert found["items"] == []


def test_a_forget_during_the_promote_waits_for_it(
    run_cli: CliRunner,
    project_root: Path,
    home: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    note, mine = agent_note(run_cli, home)
    real = pipeline.insert_prepared
    outcome: list[Any] = []

    def forget_in_thread() -> None:
        try:
            forget(project_root, home, note, "delete")
            outcome.append("forgotten")
        except Exception as exc:  # the assertion below names it
            outcome.append(exc)

    forgetter = threading.Thread(target=forget_in_thread)

    def copying(*args: Any, **kwargs: Any) -> Any:
        # As the copy is written, the project's write lock is held: a writer
        # that does not wait is refused at once...
        probe = sqlite3.connect(project.store_path(project_root), timeout=0)
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                probe.execute("BEGIN IMMEDIATE")
        finally:
            probe.close()
        # ...and a forget started now waits until the promote is done.
        forgetter.start()
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "insert_prepared", copying)
    done = write(run_cli, "promote", note, "--scope", "global", "--reason", "mine", environ=home)
    monkeypatch.undo()
    forgetter.join(60)
    assert [item["id"] for item in done["items"]] == [note]
    assert outcome == ["forgotten"]
    assert user_ids(home) == {mine, note}  # the promote completed
    shown = run_cli("--json", "show", note)
    assert shown.code == 1 and f"no memory '{note}'" in shown.err
    # The forget then refused it here, as after any completed promote.
    again = run_cli("remember", TEXT, environ=home)
    assert again.code == 1 and "will not be stored again" in again.err, again.err
