"""Bulk writes: many memories through the one write path, at import speed.

Every memory goes through `writes.prepare` (validation and the guard) and
`writes.insert_prepared` (tombstones, claims, policy, governance, the audit
entry, the summary tree), in order, so a bulk write decides every conflict,
retry and trust state exactly as one `remember` at a time would, and cannot
drift from it when the write path changes.

What is batched is the FTS indexing. The insert trigger makes every row its
own statement transaction, and FTS5 flushes its pending terms to a new
segment at each one, so a trigger-indexed bulk insert spends most of its time
merging tiny segments. Inside the batch's transaction (which holds the write
lock) the insert trigger is dropped, the rows go in, one INSERT ... SELECT
indexes exactly the new rows, and the trigger is created again from the
schema's own text. No other connection can see the trigger missing, and a
crash rolls all of it back together.

One exception keeps the semantics exact: governance (`admit=True`) searches
the FTS index for contradictions, so each row must be indexed before the next
is admitted. Then the trigger stays and only the batching of transactions
helps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Generator, Iterable, Sequence
from contextlib import contextmanager
from itertools import islice

from tree_ring import schema, writes
from tree_ring.audit import Actor
from tree_ring.errors import TreeRingError, UsageError
from tree_ring.record import Memory
from tree_ring.store import Store
from tree_ring.writes import WriteResult

BATCH = 5_000
INSERT_TRIGGER = "memories_fts_insert"


class BatchError(TreeRingError):
    """Memory number `index` (from 0, over the whole call) was refused."""

    def __init__(self, index: int, error: TreeRingError) -> None:
        super().__init__(f"memory {index}: {error}")
        self.index = index
        self.error = error
        self.exit_code = error.exit_code


def _trigger_sql() -> str:
    for statement in schema.FTS_TRIGGERS:
        if statement.split()[2] == INSERT_TRIGGER:
            return statement
    raise AssertionError(f"schema has no {INSERT_TRIGGER}")


@contextmanager
def deferred_fts(conn: sqlite3.Connection) -> Generator[None]:
    """Index the rows inserted inside this block with one statement at its end.

    The caller holds a write transaction; an exception leaves the trigger
    dropped, and the caller's rollback restores it with everything else.
    """
    before = conn.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0]
    conn.execute(f"DROP TRIGGER {INSERT_TRIGGER}")
    yield
    conn.execute(
        "INSERT INTO memory_fts(rowid, summary, details, tags) "
        "SELECT rowid, summary, details, tags FROM memories WHERE rowid > ?",
        (before,),
    )
    conn.execute(_trigger_sql())


def insert_prepared_many(
    conn: sqlite3.Connection,
    memories: Sequence[Memory],
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
    offset: int = 0,
) -> list[WriteResult]:
    """The transactional half of a bulk write; the caller holds the transaction."""

    def each() -> list[WriteResult]:
        results: list[WriteResult] = []
        for index, memory in enumerate(memories):
            try:
                results.append(
                    writes.insert_prepared(conn, memory, actor, action=action, admit=admit)
                )
            except TreeRingError as exc:
                raise BatchError(offset + index, exc) from None
        return results

    if admit:
        return each()
    with deferred_fts(conn):
        return each()


def prepare_all(memories: Iterable[Memory], offset: int = 0) -> list[Memory]:
    """Validate and guard every memory, naming the first one refused."""
    prepared: list[Memory] = []
    for index, memory in enumerate(memories):
        try:
            prepared.append(writes.prepare(memory))
        except TreeRingError as exc:
            raise BatchError(offset + index, exc) from None
    return prepared


def insert_many(
    store: Store,
    memories: Iterable[Memory],
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
    batch: int = BATCH,
) -> list[WriteResult]:
    """Write `memories` in transactions of `batch`; each batch is all or nothing,
    and nothing of a batch is written when one of its memories is refused."""
    if batch < 1:
        raise UsageError("batch size must be at least 1")
    results: list[WriteResult] = []
    source = iter(memories)
    while chunk := list(islice(source, batch)):
        prepared = prepare_all(chunk, len(results))
        with store.write() as conn:
            results += insert_prepared_many(
                conn, prepared, actor, action=action, admit=admit, offset=len(results)
            )
    return results
