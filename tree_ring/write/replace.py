"""`import --replace-existing`: an imported row takes the place of the stored row with its id.

A person's decision (or the coordinator's; `import.replace` is person-only),
recorded in the audit log with both content hashes. The stored row leaves
through the same doors forgetting uses, without a tombstone, since its
content is not forgotten, only replaced: out of the FTS index, the summary
tree and every consolidation citing it. The imported row then goes through
the write path like any other, so tombstones still win: content that was
forgotten is refused, and the stored row then stays as it was (the removal
and the write go together or not at all, `replacing`), and a redacted row
cannot be replaced (its id stays spent). Operation claims on the old row
are kept, as after any replacement, except the one the new row claims again
under the same operation id.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

from tree_ring.govern import coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict
from tree_ring.model.record import Memory, canonical_json, now_iso
from tree_ring.store import audit, operation_claims, redactions, rows, savepoints
from tree_ring.store.sql import Db
from tree_ring.write import pipeline, propagate

ACTION = "import.replace"
REASON = "import --replace-existing"
T = TypeVar("T")


def replacing(
    db: Db,
    memory: Memory,
    actor: Actor,
    write: Callable[[], T],
    *,
    leave: Collection[str] = (),
) -> tuple[T, bool]:
    """Replace the stored row with `memory`'s id, if any, by `memory`: its
    removal (`vacate`) and `write`, the new row's write, together or
    neither. What `write` returns, and whether a stored row was replaced.
    When the write path refuses the new row (content forgotten here, a claim
    another row holds), the error goes on and the stored row stays as it
    was, with no audit entry of its removal: a refused line never costs the
    store the row it named. `leave`: the other ids the same import or sync
    replaces, whose consolidations their own lines decide. A person's
    import asks first (`authorize`), once for all the rows it replaces."""
    with savepoints.undone_on_error(db, "replacing"):
        replaced = _vacate(db, [memory], actor, leave=leave)
        return write(), bool(replaced)


def authorize(db: Db, ids: Collection[str], actor: Actor) -> None:
    """Allow `actor` to replace the stored rows `ids` (`import.replace`,
    person-only), or raise Denied; recorded either way. Outside any
    savepoint: a denial ends the transaction."""
    coordinator.authorize(db, ACTION, actor, canonical_json(sorted(ids)))


def _vacate(
    db: Db, memories: Sequence[Memory], actor: Actor, *, leave: Collection[str] = ()
) -> list[str]:
    """Remove the stored rows these imported memories replace; their ids, in
    order."""
    ids = [memory.id for memory in memories]
    stored = rows.by_ids(db, ids)
    redacted = redactions.among(db, ids)
    for memory_id in ids:
        if memory_id in redacted:
            raise Conflict(f"{memory_id} was redacted; an import cannot replace or restore it")
    if not stored:
        return []
    now = now_iso()
    stored_ids = set(stored) | set(leave)
    replaced: list[str] = []
    for memory in memories:
        old = stored.pop(memory.id, None)
        if old is None:
            continue  # not stored, or listed twice in the file
        if old.project != memory.project:
            raise Conflict(f"{memory.id} belongs to project {old.project}; it is not replaced")
        rows.delete(db, old.id)
        claim = pipeline.claim_key(memory)
        if claim is not None:
            operation_claims.release_claim(db, claim, old.id)
        # A summary replaced in this batch too is its own line's to decide.
        propagate.forgotten(db, old, actor, now, leave=stored_ids)
        detail = {
            "reason": REASON,
            "old_content_hash": old.content_hash,
            "new_content_hash": memory.content_hash,
        }
        audit.append(db, actor, "replace", old.id, detail, at=now)
        replaced.append(old.id)
    return replaced
