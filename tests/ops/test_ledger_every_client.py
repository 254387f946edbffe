"""A person's write reaches the team ledger at once, whichever client made it.

docs/TEAM.md promises that a person's write to a shared scope updates the
ledger at once, so `git status` shows it before any sync. The CLI's verbs
did; the web view's and the terminal UI's forgets, promotions and reviews,
and the CLI's own `inbox --all --forget`, waited for the next `sync`
(`Project.into_ledger` now does it for each of them).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from governance_support import CLAUDE
from team_support import cli, first_repo, ledger_entries, ok, remember
from web_support import serving

from tree_ring.tui.actions import Session
from tree_ring.tui.state import Action


def _ledger(root: Path) -> set[tuple[str, str]]:
    return {(entry["record"], entry["id"]) for entry in ledger_entries(root)}


def _by_web(root: Path, memory_id: str) -> None:
    with serving(root) as client:
        client.login()
        form = {"action": "forget", "id": memory_id, "mode": "delete", "reason": "wrong"}
        reply = client.post("/act", form)
        assert reply.status == 303, reply


def _by_tui(root: Path, memory_id: str) -> None:
    session = Session(str(root), {})
    try:
        said = session.run(Action("forget", memory_id, (), "wrong"))
    finally:
        session.close()
    assert said.startswith(f"deleted {memory_id}"), said


def _by_cli(root: Path, memory_id: str) -> None:
    ok(root, "forget", memory_id, "--mode", "delete", "--reason", "wrong")


CLIENTS: dict[str, Callable[[Path, str], None]] = {
    "web": _by_web,
    "tui": _by_tui,
    "cli": _by_cli,
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_a_persons_forget_reaches_the_ledger_at_once(tmp_path: Path, client: str) -> None:
    root = first_repo(tmp_path)
    kept = remember(root, "Deploys freeze on Fridays")
    gone = remember(root, "The staging database is called orange")
    assert _ledger(root) == {("memory", kept), ("memory", gone)}

    CLIENTS[client](root, gone)

    assert _ledger(root) == {("memory", kept), ("tombstone", gone)}


def test_an_inbox_forget_of_every_item_reaches_the_ledger_at_once(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    kept = remember(root, "Deploys freeze on Fridays")
    wrote = cli(root, "--json", "remember", "The cache is warm by 9am", environ=CLAUDE)
    assert wrote.code == 0, wrote.err
    agents = wrote.json()["id"]
    assert _ledger(root) == {("memory", kept)}  # an agent's partition note is not shared

    ok(root, "inbox", "--all", "--forget", "--reason", "not so", "--mode", "delete")

    assert _ledger(root) == {("memory", kept), ("tombstone", agents)}
