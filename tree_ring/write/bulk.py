"""Bulk writes: many memories through the one write path, at import speed.

Every memory goes through `pipeline.prepare` (validation and the guard) and
`pipeline.insert_prepared_many` with `bulk=True`, the stages a single
`remember` takes, so a bulk write decides every conflict, retry and trust state exactly
as one write at a time would, and cannot drift from it when the write path
changes. Those stages already decide a whole batch before writing it, and
write rows, claims, audit entries and tree leaves a statement per table.

What bulk adds is the FTS indexing. The insert trigger makes every row its
own statement, and FTS5 flushes its pending terms to a new segment at each
one, so a trigger-indexed bulk insert spends most of its time merging tiny
segments. Inside the batch's transaction (which holds the write lock) the
insert trigger is dropped, the rows go in, one statement indexes exactly the
new rows, and the trigger is created again from the schema's own text
(`store/fts.py`). No other connection can see the trigger missing, and a crash rolls all
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

from collections.abc import Iterable
from itertools import islice

from tree_ring.govern import contradictions, coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.record import Memory, canonical_json
from tree_ring.store import fts, rows
from tree_ring.store.db import Store
from tree_ring.store.pages import page_cache
from tree_ring.store.sql import Db
from tree_ring.write import pipeline
from tree_ring.write.pipeline import BatchError, WriteResult

BATCH = 5_000
# Page cache for a bulk write (see `page_cache`): the random-order indexes of a
# store of a few hundred thousand memories.
CACHE_KIB = 64 * 1024


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
    before = rows.last_rowid(store.db)
    with page_cache(store.db, CACHE_KIB):
        while chunk := list(islice(source, batch)):
            prepared = prepare_all(chunk, len(results))
            with store.write() as db:
                if action != "create":
                    ids = [memory.id for memory in prepared]
                    coordinator.authorize(db, action, actor, canonical_json(ids))
                results += pipeline.insert_prepared_many(
                    db,
                    prepared,
                    actor,
                    action=action,
                    admit=admit,
                    offset=len(results),
                    search=search,
                    bulk=True,
                )
        if search is not None and search.spill is not None:
            with store.write() as db:
                search.close(db)
        if sum(result.created for result in results) > before:
            with store.write() as db:
                merge_fts(db)
    return results


def merge_fts(db: Db) -> None:
    """Merge the FTS indexes into one segment each.

    Each batch adds segments, and FTS5 merges them a little at each write, so
    after a bulk load the index is a few dozen segments with merges under way,
    and every search afterwards looks a word up in each of them (a write's
    contradiction search looks up a dozen words). A write that more than
    doubled the store pays for the merge with about what it wrote already, and
    leaves an index that answers as one."""
    fts.optimize(db)
