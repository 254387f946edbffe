"""Bulk writes decide every memory exactly as the one write path does, and keep
the FTS index, the audit chain and the claims consistent."""

from __future__ import annotations

import dataclasses
from contextlib import closing
from pathlib import Path

import pytest
from conftest import AGENT, PERSON, make_memory
from reliability_support import counts, fts_consistent, raw

from tree_ring import audit, bulk, correct, doctor, writes
from tree_ring.errors import Conflict, SecretRefused
from tree_ring.record import Memory
from tree_ring.store import Store

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def batch(project_id: str, count: int, prefix: str = "Bulk") -> list[Memory]:
    return [
        make_memory(project_id, f"{prefix} fact {n} about widget{n}", operation_id=f"{prefix}-{n}")
        for n in range(count)
    ]


@pytest.mark.parametrize("admit", [False, True])
def test_many_rows_are_indexed_audited_and_claimed(
    store: Store, project_id: str, admit: bool
) -> None:
    memories = batch(project_id, 25)
    results = bulk.insert_many(store, memories, PERSON, action="import", admit=admit, batch=10)
    assert [r.id for r in results] == [m.id for m in memories]
    assert all(r.created for r in results)
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)
        assert audit.verify(conn).ok
        targets = [r[0] for r in conn.execute("SELECT target FROM audit_log ORDER BY seq")]
        assert targets == [m.id for m in memories]
        assert conn.execute("SELECT count(*) FROM operation_claims").fetchone()[0] == 25
        triggers = {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")
        }
        assert set(doctor.FTS_TRIGGERS) <= triggers
    assert doctor.diagnose(store.root).ok
    # Later single writes are indexed by the restored trigger.
    writes.store_memory(store, make_memory(project_id, "After the bulk write"), PERSON)
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)


def test_outcomes_match_the_single_write_path(
    store: Store, project_id: str, tmp_path: Path
) -> None:
    """Retries, agent heartwood and sensitivity come out as `store_memory` decides them."""
    first = make_memory(project_id, "Retried fact about caches", operation_id="same")
    retry = dataclasses.replace(first, id=first.id.replace("mem_", "mem_x"))
    heartwood = make_memory(project_id, "Agent heartwood rule", ring="heartwood")
    memories = [first, retry, heartwood]
    results = bulk.insert_many(store, memories, AGENT)
    assert results[1].id == results[0].id and results[1].created is False
    assert results[2].trust == "pending"
    assert counts(store.root)["memories"] == 2


def test_a_refused_memory_fails_its_batch_and_writes_nothing_of_it(
    store: Store, project_id: str
) -> None:
    good = batch(project_id, 6)
    secret = make_memory(project_id, f"The token is {TOKEN}")
    before = counts(store.root)
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, [*good[:3], secret, *good[3:]], PERSON, batch=100)
    assert caught.value.index == 3 and isinstance(caught.value.error, SecretRefused)
    assert counts(store.root) == before

    forgotten = writes.store_memory(store, make_memory(project_id, "Forgotten fact"), PERSON)
    correct.forget(store, forgotten.id, mode="delete", reason="wrong", actor=PERSON)
    before = counts(store.root)
    again = make_memory(project_id, "Forgotten fact")
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, [*good, again], PERSON, action="import", admit=False)
    assert caught.value.index == 6 and isinstance(caught.value.error, Conflict)
    assert counts(store.root) == before
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
        assert bulk.INSERT_TRIGGER in names


def test_earlier_batches_stay_when_a_later_one_fails(store: Store, project_id: str) -> None:
    memories = batch(project_id, 10)
    memories[7] = make_memory(project_id, "  ")
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, memories, PERSON, batch=5)
    assert caught.value.index == 7
    assert counts(store.root)["memories"] == 5


def test_batch_size_must_be_positive(store: Store) -> None:
    with pytest.raises(bulk.UsageError):
        bulk.insert_many(store, [], PERSON, batch=0)
