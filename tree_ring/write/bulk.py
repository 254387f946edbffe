"""Bulk writes: many memories through the one write path, at import speed.

Every memory goes through `pipeline.prepare` (validation and the guard) and
the stages of `pipeline.insert_prepared_many`, the same a single `remember`
takes, so a bulk write decides every conflict, retry and trust state exactly
as one write at a time would, and cannot drift from it when the write path
changes. Those stages already decide a whole batch before writing it, and
write rows, claims, audit entries and tree leaves a statement per table.

What bulk adds is the FTS indexing. The insert trigger makes every row its
own statement, and FTS5 flushes its pending terms to a new segment at each
one, so a trigger-indexed bulk insert spends most of its time merging tiny
segments. Inside the batch's transaction (which holds the write lock) the
insert trigger is dropped, the rows go in, one INSERT ... SELECT indexes
exactly the new rows, and the trigger is created again from the schema's own
text. No other connection can see the trigger missing, and a crash rolls all
of it back together.

Governance (`admit=True`) searches for contradictions among the stored rows
and the write's own. One `contradictions.Search` is carried across the
batches of a write: the FTS index answers for the rows stored before it, and
the search's signatures for every memory the write has decided, written or
not (the written batches' on disk, read ahead once a batch), so no batch
waits on another's FTS entries and no word is probed twice.

Around that, bulk gives the connection a page cache sized for the indexes a
batch touches (`page_cache`), and authorizes a bulk action other than
`create` (an import, say) once per batch, as `transfer.import_lines` does for
a whole import; a `create` is authorized per memory by the write path.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from contextlib import contextmanager
from itertools import islice

from tree_ring.govern import contradictions, coordinator
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.record import Memory, canonical_json
from tree_ring.store import fts, schema
from tree_ring.store.audit import Actor
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import pipeline
from tree_ring.write.pipeline import BatchError, WriteResult

BATCH = 5_000
# Page cache for a bulk write (see `page_cache`): the random-order indexes of a
# store of a few hundred thousand memories.
CACHE_KIB = 64 * 1024
# Each FTS index's insert trigger, and the statement that indexes the rows
# past a rowid as that trigger would have, one by one.
DEFERRED = {
    "memories_fts_insert": "INSERT INTO memory_fts(rowid, summary, details, tags) "
    "SELECT rowid, summary, details, tags FROM memory_text WHERE rowid > ?",
    "memories_claim_fts_insert": "INSERT INTO claim_fts(rowid, summary) "
    "SELECT rowid, summary FROM memories WHERE rowid > ?",
}
INSERT_TRIGGERS = tuple(DEFERRED)


@contextmanager
def deferred_fts(db: Db) -> Generator[None]:
    """Index the rows inserted inside this block with one statement per FTS
    index at its end.

    The caller holds a write transaction; an exception leaves the triggers
    dropped, and the caller's rollback restores them with everything else.
    """
    before = last_rowid(db)
    for name in INSERT_TRIGGERS:
        db.execute(f"DROP TRIGGER {name}")
    yield
    for name, index in DEFERRED.items():
        db.execute(index, (before,))
        db.execute(schema.INDEX_TRIGGERS[name])


def insert_prepared_many(
    db: Db,
    memories: Sequence[Memory],
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
    offset: int = 0,
    search: contradictions.Search | None = None,
) -> list[WriteResult]:
    """The transactional half of a bulk write; the caller holds the transaction
    (and, for a bulk action, has authorized it). `search` is the write's, if
    more batches follow; they then find this one's memories through it."""
    if search is not None and admit:
        search.start(db)
        search.prefetch(db, memories)
    plan = pipeline.decide(
        db, memories, actor, action=action, admit=admit, offset=offset, search=search
    )
    with deferred_fts(db):
        pipeline.persist(db, plan)
    pipeline.after(db, plan)
    if search is not None:
        search.written(db, [memory.id for memory in plan.batch.memories])
    return plan.results


def prepare_all(memories: Iterable[Memory], offset: int = 0) -> list[Memory]:
    """Validate and guard every memory, naming the first one refused."""
    prepared: list[Memory] = []
    for index, memory in enumerate(memories):
        try:
            prepared.append(pipeline.prepare(memory))
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
    search = contradictions.Search() if admit else None
    before = last_rowid(store.db)
    with page_cache(store.db, CACHE_KIB):
        while chunk := list(islice(source, batch)):
            prepared = prepare_all(chunk, len(results))
            with store.write() as db:
                if action != "create":
                    ids = [memory.id for memory in prepared]
                    coordinator.authorize(db, action, actor, canonical_json(ids))
                results += insert_prepared_many(
                    db,
                    prepared,
                    actor,
                    action=action,
                    admit=admit,
                    offset=len(results),
                    search=search,
                )
        if search is not None and search.spill is not None:
            with store.write() as db:
                search.close(db)
        if sum(result.created for result in results) > before:
            with store.write() as db:
                merge_fts(db)
    return results


def last_rowid(db: Db) -> int:
    """The store's last rowid: its size, give or take what was deleted."""
    return int(db.scalar("SELECT coalesce(max(rowid), 0) FROM memories"))


def merge_fts(db: Db) -> None:
    """Merge the FTS indexes into one segment each.

    Each batch adds segments, and FTS5 merges them a little at each write, so
    after a bulk load the index is a few dozen segments with merges under way,
    and every search afterwards looks a word up in each of them (a write's
    contradiction search looks up a dozen words). A write that more than
    doubled the store pays for the merge with about what it wrote already, and
    leaves an index that answers as one."""
    fts.optimize(db)


@contextmanager
def page_cache(db: Db, kib: int) -> Generator[None]:
    """At least `kib` KiB of page cache on this connection for the block, then as before.

    A batch adds to indexes whose order is not arrival order (content hashes,
    claims, the brief's ranking), so it touches index pages all over the
    store; with SQLite's default 2 MB cache most of those reads go back to the
    file once the store passes some tens of thousands of memories.
    """
    before = int(db.execute("PRAGMA cache_size").fetchone()[0])
    # Positive is pages, negative is KiB.
    page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    if (before * page_size // 1024 if before > 0 else -before) >= kib:
        yield
        return
    db.execute(f"PRAGMA cache_size = {-int(kib)}")
    try:
        yield
    finally:
        db.execute(f"PRAGMA cache_size = {before}")
