"""The screen as a client of the library's front: the CLI's answers on the same store.

A search merges the person's user store and marks its rows as theirs, as
`tree-ring recall` does; the header's figures are `tree-ring status`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import AGENT, CliRunner, make_memory

from tree_ring.api.project import Project
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.tui import layout
from tree_ring.tui.actions import Session
from tree_ring.tui.state import Action, State
from tree_ring.write import pipeline

PAST = "2020-01-01T00:00:00.000000Z"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """The person's environment: their user store under the test's own folder."""
    return {"TREE_RING_USER_HOME": str(tmp_path / "user-home")}


@pytest.fixture
def session(project_root: Path, home: dict[str, str]) -> Iterator[Session]:
    opened = Session(str(project_root), home)
    yield opened
    opened.close()


def text(line: layout.Line) -> str:
    return "".join(t for t, _ in line)


def test_search_finds_the_persons_own_memory_and_marks_it_theirs(
    run_cli: CliRunner, home: dict[str, str], session: Session
) -> None:
    said = run_cli(
        "remember", "I prefer pytest -q over unittest", "--scope", "global", environ=home
    )
    assert said.code == 0, said.err
    assert run_cli("remember", "the project runs pytest in ci", environ=home).code == 0
    # An agent's global proposal waits in the user store: marked by its writer, not `you`.
    proposal = "pytest runs may skip the slow tests"
    agent = {**home, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    said = run_cli("remember", proposal, "--scope", "global", environ=agent)
    assert said.code == 0, said.err
    state = State(view="search", query="pytest")
    session.load(state)
    marks = {i.memory.summary: i.note.split("; ")[0] for i in state.items if i.memory}
    assert set(marks) == {
        "I prefer pytest -q over unittest",
        "the project runs pytest in ci",
        proposal,
    }
    assert marks["I prefer pytest -q over unittest"] == "you"
    assert marks[proposal] == "claude-code session s1 · user store"
    assert marks["the project runs pytest in ci"] != "you"  # a project row: its score alone
    # The same hits, from the same stores, marked the same, as `tree-ring recall` gives.
    recalled = json.loads(
        run_cli("--json", "recall", "pytest", "--include-unreviewed", environ=home).out
    )
    cli = {(hit["id"], hit["store"]) for hit in recalled["items"]}
    tui = {(i.key, "user" if i.key in session.mine else "project") for i in state.items}
    assert tui == cli
    users = {hit["id"]: hit["partition"] for hit in recalled["items"] if hit["store"] == "user"}
    assert users == {i.key: i.note.split("; ")[0] for i in state.items if i.key in session.mine}
    # Drawn on its row; its history is read from the store that holds it.
    mine = next(i for i, item in enumerate(state.items) if item.note.startswith("you; "))
    state.cursor = mine
    assert "you; " in text(layout.item_line(state.items[mine], 100, True))
    session.audit(state)
    assert {e["target"] for e in state.audit} == {state.items[mine].key}
    # A write on it is the user store's business, not the project's.
    refused = session.run(Action("forget", state.items[mine].key, (), "old habit"))
    assert "in your user store" in refused and "--user" in refused
    session.load(state)
    assert {i.key for i in state.items} == {key for key, _ in cli}


def test_the_header_is_status_on_a_store_of_every_state(
    store: Store,
    project_id: str,
    project_root: Path,
    run_cli: CliRunner,
    home: dict[str, str],
    session: Session,
) -> None:
    for summary in ("I prefer small commits", "I review diffs before lunch"):
        assert run_cli("remember", summary, "--scope", "global", environ=home).code == 0
    with store.write() as db:
        rows.insert_many(
            db,
            [
                make_memory(project_id, "live one"),
                make_memory(project_id, "live scar", ring="scar"),
                make_memory(project_id, "live and private", sensitivity="health"),
                make_memory(project_id, "waits", trust="pending"),
                make_memory(project_id, "waits too", trust="pending", ring="outer"),
                make_memory(project_id, "in dispute", trust="disputed", ring="heartwood"),
                make_memory(project_id, "expired", expires_at=PAST, created_at=PAST),
                make_memory(project_id, "retired", retired_at=PAST, created_at=PAST),
                make_memory(project_id, "rejected", trust="rejected"),
                make_memory("another-project", "elsewhere"),
            ],
        )
    agent = make_memory(
        project_id, "an agent's note", scope="agent", agent_profile="claude-code",
        origin="claude-code", session_id="sess-1",
    )  # fmt: skip
    pipeline.store_memory(store, agent, AGENT)
    state = State()
    session.load(state)
    counts = state.dashboard.counts
    assert counts is not None
    with Project.open(str(project_root), home) as project:
        status = project.status()
    memories = status["memories"]
    shown = (
        counts.live, counts.pending, counts.disputed, counts.retired, counts.sensitive,
        counts.review, counts.inbox, dict(counts.by_ring), counts.user,
    )  # fmt: skip
    said = (
        memories["live"], memories["pending"], memories["disputed"], memories["retired"],
        memories["sensitive"], status["review_queue"], status["inbox"], memories["by_ring"],
        status["user_store"]["live"],
    )  # fmt: skip
    assert shown == said == (4, 2, 1, 3, 1, 3, 1, {"cambium": 3, "scar": 1}, 2)
    # And drawn so: every figure, whole, on a wide screen.
    assert text(layout.header(state, 200)).rstrip() == (
        " TREE RING  rings:ambient  live:4  hidden:1  review:3  pending:2 disputed:1"
        "  retired:3  inbox:1  you:2  watching"
    )
    # The rings panel still counts what the list shows (pending and disputed too).
    assert sum(s.total for s in state.dashboard.rings) == len(state.items) == 6
