"""`import --replace-existing`: an imported row takes the place of the stored row with its id.

A person's decision (or the coordinator's; `import.replace` is person-only),
recorded in the audit log with both content hashes. The stored row leaves
through the same doors forgetting uses, without a tombstone, since its
content is not forgotten, only replaced: out of the FTS index, the summary
tree and every consolidation citing it. The imported row then goes through
the write path like any other, so tombstones still win: content that was
forgotten is refused, and a redacted row cannot be replaced (its id stays
spent). Operation claims on the old row are kept, as after any replacement,
except the one the new row claims again under the same operation id.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_ring.govern import coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict
from tree_ring.model.record import Memory, canonical_json, now_iso
from tree_ring.store import audit, operation_claims, redactions, rows
from tree_ring.store.sql import Db
from tree_ring.write import pipeline, propagate

ACTION = "import.replace"
REASON = "import --replace-existing"


def vacate(db: Db, memories: Sequence[Memory], actor: Actor, *, authorize: bool) -> list[str]:
    """Remove the stored rows these imported memories replace; their ids, in order."""
    ids = [memory.id for memory in memories]
    stored = rows.by_ids(db, ids)
    redacted = redactions.among(db, ids)
    for memory_id in ids:
        if memory_id in redacted:
            raise Conflict(f"{memory_id} was redacted; an import cannot replace or restore it")
    if not stored:
        return []
    if authorize:
        coordinator.authorize(db, ACTION, actor, canonical_json(sorted(stored)))
    now = now_iso()
    stored_ids = set(stored)
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
