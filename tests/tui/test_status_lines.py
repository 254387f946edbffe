"""What the screen's status line says after each write, word for word, beside what was written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import AGENT, PERSON, make_memory

from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.tui.actions import Session
from tree_ring.tui.state import Action
from tree_ring.write import pipeline, requests


@pytest.fixture
def session(project_root: Path) -> Iterator[Session]:
    opened = Session(str(project_root), {})
    yield opened
    opened.close()


def write(store: Store, project_id: str, summary: str, **fields: object) -> str:
    return pipeline.store_memory(store, make_memory(project_id, summary, **fields), PERSON).id


def last_review(store: Store, target: str) -> dict[str, object]:
    entry = audit.entries(store.db, limit=1, target=target)[-1]
    assert (entry["action"], entry["actor"]) == ("review", "person")
    detail: dict[str, object] = json.loads(entry["detail"])
    return detail


def test_reject_says_so_and_rejects(store: Store, project_id: str, session: Session) -> None:
    pending = write(store, project_id, "the queue drains at night", trust="pending")
    said = session.run(Action("reject", pending, (), "it drains hourly"))
    assert said == f"rejected {pending} (now rejected)"
    assert rows.get(store.db, pending).trust == "rejected"
    assert "it drains hourly" in json.dumps(last_review(store, pending))


def test_dispute_says_so_and_disputes(store: Store, project_id: str, session: Session) -> None:
    accepted = write(store, project_id, "the api is versioned by date")
    said = session.run(Action("dispute", accepted, (), "by number since v3"))
    assert said == f"disputed {accepted} (now disputed)"
    assert rows.get(store.db, accepted).trust == "disputed"
    assert "by number since v3" in json.dumps(last_review(store, accepted))


def test_approve_says_the_new_trust(store: Store, project_id: str, session: Session) -> None:
    pending = write(store, project_id, "the cache key includes the locale", trust="pending")
    assert session.run(Action("approve", pending)) == f"approved {pending} (now accepted)"


def test_redact_and_delete_say_which_and_that_the_content_stays_out(
    store: Store, project_id: str, session: Session
) -> None:
    first = write(store, project_id, "the staging host is blue")
    second = write(store, project_id, "the staging host is green")
    tail = "; its content is tombstoned and will not be stored again"
    assert session.run(Action("redact", first, (), "wrong")) == f"redacted {first}{tail}"
    assert session.run(Action("forget", second, (), "wrong")) == f"deleted {second}{tail}"
    assert rows.get(store.db, first).redacted_at is not None
    assert rows.find(store.db, second) is None


def test_an_agent_screen_asks_a_person_to_forget(project_root: Path, store: Store) -> None:
    from tree_ring.model import project

    target = write(store, project.load_project_id(project_root), "the person's own note")
    agent = Session(str(project_root), {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"})
    try:
        said = agent.run(Action("forget", target, (), "outdated"))
    finally:
        agent.close()
    [asked] = requests.waiting(store.db, project.load_project_id(project_root))
    assert said == f"requested {asked.id}: forgetting {target} waits for a person"
    assert (asked.memory_id, asked.mode, asked.reason) == (target, "delete", "outdated")
    assert rows.get(store.db, target).redacted_at is None


def test_remember_says_what_it_stored_and_how(
    store: Store, project_id: str, session: Session
) -> None:
    said = session.run(Action("remember", None, ("the build uses make",)))
    [memory_id] = [r[0] for r in store.query("SELECT id FROM memories")]
    assert said == f"stored {memory_id}"


def test_a_ring_move_to_the_same_ring_changes_nothing(
    store: Store, project_id: str, session: Session
) -> None:
    memory_id = write(store, project_id, "deploys failed on friday", ring="scar")
    assert session.run(Action("ring", memory_id, ("scar",))) == f"{memory_id} is already scar"
    assert [r[0] for r in store.query("SELECT id FROM memories")] == [memory_id]


def test_keep_says_the_inbox_shows_it_no_more(
    store: Store, project_id: str, session: Session
) -> None:
    note = pipeline.store_memory(
        store,
        make_memory(
            project_id, "the agent found the flaky test", scope="agent",
            agent_profile="claude-code", origin="claude-code",
        ),
        AGENT,
    ).id  # fmt: skip
    said = session.run(Action("keep", note))
    assert said == f"kept {note} where it is; the inbox shows it no more"


def test_sync_without_a_ledger_says_how_to_start_one(session: Session) -> None:
    said = session.run(Action("sync"))
    assert said == (
        "sync: no team ledger here; `tree-ring sync --setup` creates "
        ".tree-ring/ledger.jsonl (commit it to share this memory)"
    )


def test_an_action_the_screen_cannot_do_says_so(session: Session) -> None:
    assert session.run(Action("fly")) == "fly: not available in this Tree Ring"
