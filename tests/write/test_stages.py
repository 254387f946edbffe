"""The write path decides a whole batch before it writes any of it.

The SQL a governed batch runs is recorded (`set_trace_callback`) and sorted
into what the decisions read and what the batch writes: every write comes
after the last decision read, and the rows come before the audit entries and
the summary tree's leaves.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from conftest import AGENT, PERSON, make_memory

from tree_ring.govern import coordinator
from tree_ring.govern.admission import CONTRADICTS
from tree_ring.model.errors import Denied
from tree_ring.model.record import Link, Memory, sha256
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.write import bulk, pipeline

# What only a decision reads: the checks' facts, the write policy and review
# policy, what a memory replaces or links to, and the contradiction search.
DECISION_READS = re.compile(
    r"FROM (content_tombstones|operation_claims|redaction_tombstones)\b"
    r"|SELECT id, trust, sensitivity, redacted_at FROM memories"
    r"|SELECT \* FROM memories WHERE id ="
    r"|FROM settings WHERE key = '(write_policy|review_policy)'"
    r"|memory_fts MATCH"
)
WRITES = re.compile(r"^(-- )?(INSERT|UPDATE|DELETE|REPLACE|DROP|CREATE)\b")
AFTER_ROWS = re.compile(r"^(INSERT INTO|UPDATE) (audit_log|tree_\w+)\b")


def batch(project_id: str, stored: Memory) -> list[Memory]:
    """A batch that takes every decision: a replacement of an earlier memory of
    the batch, contradictions of a stored row and of an earlier batch row, a
    link of its own to a stored row, operation ids. The two cache rows are in
    the agent's own partition, where its writes are accepted and so can be
    contradicted; its project-scope rows wait for review."""
    rule = make_memory(project_id, "Deploys are cut on Fridays", ring="heartwood")
    return [
        rule,
        make_memory(project_id, "Deploys are cut on Mondays", supersedes=(rule.id,)),
        make_memory(project_id, "Never use tabs in Makefiles", operation_id="op-1"),
        make_memory(
            project_id,
            "The cache TTL is 30s",
            operation_id="op-2",
            scope="agent",
            agent_profile=AGENT.name,
        ),
        make_memory(project_id, "The cache TTL is 60s", scope="agent", agent_profile=AGENT.name),
        make_memory(
            project_id, "Release notes go to the wiki", links=(Link(CONTRADICTS, stored.id),)
        ),
    ]


def write_one_batch(store: Store, memories: list[Memory]) -> list[pipeline.WriteResult]:
    with store.write() as db:
        prepared = [pipeline.prepare(memory) for memory in memories]
        return pipeline.insert_prepared_many(db, prepared, AGENT)


def write_in_bulk(store: Store, memories: list[Memory]) -> list[pipeline.WriteResult]:
    return bulk.insert_many(store, memories, AGENT)


@pytest.mark.parametrize("write", [write_one_batch, write_in_bulk], ids=["trigger", "bulk"])
def test_every_write_of_a_batch_follows_its_last_decision_read(
    store: Store,
    project_id: str,
    write: Callable[[Store, list[Memory]], list[pipeline.WriteResult]],
) -> None:
    stored = pipeline.store_memory(store, make_memory(project_id, "Use tabs in Makefiles"), PERSON)
    memories = batch(project_id, rows.get(store.db, stored.id))
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        results = write(store, memories)
    finally:
        store.conn.set_trace_callback(None)

    # The batch took the decisions this test is about.
    assert results[1].trust == "pending" and memories[0].id in (results[1].review_reason or "")
    assert results[2].trust == "disputed" and stored.id in (results[2].review_reason or "")
    assert results[4].trust == "disputed" and memories[3].id in (results[4].review_reason or "")
    links = dict(store.conn.execute("SELECT id, links FROM memories"))
    assert memories[2].id in links[stored.id] and memories[5].id in links[stored.id]
    assert memories[4].id in links[memories[3].id]

    reads = [n for n, sql in enumerate(statements) if DECISION_READS.search(sql)]
    writes = [n for n, sql in enumerate(statements) if WRITES.match(sql)]
    assert reads and writes
    assert max(reads) < min(writes), [statements[n] for n in writes if n < max(reads)]
    inserted = [n for n, sql in enumerate(statements) if sql.startswith("INSERT INTO memories")]
    later = [n for n, sql in enumerate(statements) if AFTER_ROWS.match(sql)]
    assert inserted and later and max(inserted) < min(later)
    kinds = {sql.split("(")[0].split(" SET")[0] for sql in statements if WRITES.match(sql)}
    assert {
        "INSERT INTO memories",
        "UPDATE memories",
        "INSERT INTO operation_claims",
        "INSERT INTO policy_audit",
        "INSERT INTO audit_log",
    } <= {kind.strip() for kind in kinds}


def test_a_denial_in_the_middle_of_a_batch_is_all_that_is_recorded(
    store: Store, project_id: str
) -> None:
    """The write policy decides each create of the batch before anything is
    written; the first denial ends the batch, commits itself alone and raises."""
    coordinator.enable(store, "lead", PERSON)
    memories = [
        make_memory(project_id, "My own note", scope="agent", agent_profile=AGENT.name),
        make_memory(project_id, "Another own note", scope="agent", agent_profile=AGENT.name),
        make_memory(project_id, "A note for the whole project"),
        make_memory(project_id, "A last own note", scope="agent", agent_profile=AGENT.name),
    ]
    before = store.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, memories, AGENT)
    assert caught.value.index == 2 and isinstance(caught.value.error, Denied)
    decisions = store.conn.execute(
        "SELECT action, decision, target_hash FROM policy_audit WHERE action LIKE 'create%'"
    ).fetchall()
    assert [tuple(row) for row in decisions] == [("create.project", "deny", sha256(memories[2].id))]
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == before
