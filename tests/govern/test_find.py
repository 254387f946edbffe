"""`contradictions.find`: what it returns, in which order, and what it skips."""

from __future__ import annotations

from conftest import make_memory

from tree_ring.govern import contradictions
from tree_ring.store import rows
from tree_ring.store.db import Store


def add(store: Store, project_id: str, summary: str, created_at: str, **fields: object) -> str:
    memory = make_memory(project_id, summary, created_at=created_at, **fields)
    with store.write() as db:
        rows.insert(db, memory)
    return memory.id


def test_found_rows_come_oldest_first_whatever_order_they_were_stored_in(
    store: Store, project_id: str
) -> None:
    newer = add(store, project_id, "The request timeout is 30s", "2026-02-01T00:00:00.000000Z")
    older = add(store, project_id, "The request timeout is 45s", "2026-01-01T00:00:00.000000Z")
    tied = add(store, project_id, "The request timeout is 50s", "2026-01-01T00:00:00.000000Z")
    statement = make_memory(project_id, "The request timeout is 60s")
    found = contradictions.find(store.db, statement)
    assert [f.memory.id for f in found] == [*sorted([older, tied]), newer]
    assert {f.kind for f in found} == {"value"}


def test_what_a_memory_replaces_is_not_a_contradiction(store: Store, project_id: str) -> None:
    old = add(store, project_id, "The request timeout is 30s", "2026-01-01T00:00:00.000000Z")
    other = add(store, project_id, "The request timeout is 45s", "2026-01-02T00:00:00.000000Z")
    statement = make_memory(project_id, "The request timeout is 60s", supersedes=(old,))
    assert [f.memory.id for f in contradictions.find(store.db, statement)] == [other]


def test_other_partitions_and_projects_are_not_searched(store: Store, project_id: str) -> None:
    add(store, "another-project", "The request timeout is 30s", "2026-01-01T00:00:00.000000Z")
    mine = add(store, project_id, "The request timeout is 30s", "2026-01-01T00:00:00.000000Z",
               scope="agent", agent_profile="one")  # fmt: skip
    add(store, project_id, "The request timeout is 30s", "2026-01-01T00:00:00.000000Z",
        scope="agent", agent_profile="two")  # fmt: skip
    statement = make_memory(project_id, "The request timeout is 60s", scope="agent",
                            agent_profile="one")  # fmt: skip
    assert [f.memory.id for f in contradictions.find(store.db, statement)] == [mine]
    shared = make_memory(project_id, "The request timeout is 60s")
    assert contradictions.find(store.db, shared) == []


def test_a_statement_without_content_words_finds_nothing(store: Store, project_id: str) -> None:
    add(store, project_id, "It is not so", "2026-01-01T00:00:00.000000Z")
    assert contradictions.find(store.db, make_memory(project_id, "It is so")) == []
