"""`remember --override-tombstone --reason`: a person admits forgotten content again.

Nothing forgotten comes back on its own; this is the one way a person brings
a claim back, and it never makes the claim believed at once. The memory is
stored `pending`, so it waits in the review queue like any unvouched write,
and an audit entry (`tombstone-override`) names the tombstones it was written
over, the memories they were recorded for and the person's reason. `review
approve` then accepts it, letting through those tombstones only, read from
that entry. The tombstones stay: anyone else writing the same claim is still
refused.

Only a person: an agent's override is refused whatever it holds, because
deciding that forgotten content may return is the decision forgetting
protects. Content with no tombstone is refused too: the flag promises a
pending row and an audit entry, and plain `remember` is the verb for the rest.
"""

from __future__ import annotations

import json

from tree_ring.model.errors import Denied, UsageError
from tree_ring.model.record import Memory
from tree_ring.store import audit, tombstones
from tree_ring.store.audit import Actor
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct, pipeline
from tree_ring.write.pipeline import WriteResult

ACTION = "tombstone-override"


def remember_over_tombstone(
    store: Store, memory: Memory, actor: Actor, reason: str | None
) -> WriteResult:
    if actor.origin.is_agent:
        raise Denied(
            f"--override-tombstone is a person's decision; {actor.origin.kind} may not "
            "bring forgotten content back (a person can, at a terminal)"
        )
    reason = correct.check_reason(reason)
    memory = pipeline.prepare(memory)
    with store.write() as db:
        stones = tombstones.find_all(db, memory.project, tombstones.check_keys(memory))
        if not stones:
            raise UsageError(
                "nothing to override: this content was never forgotten or rejected; "
                "store it with remember, without --override-tombstone"
            )
        forgotten = list(dict.fromkeys(str(s["memory_id"]) for s in stones))
        memory = memory.replace(
            trust="pending",
            review_reason=f"written over the tombstone of {', '.join(forgotten)}: {reason}",
        )
        keys = frozenset(str(s["content_hash"]) for s in stones)
        result = pipeline.insert_prepared(db, memory, actor, overriding=keys)
        if result.created:
            detail = {
                "reason": reason,
                "overrides": sorted(keys),
                "forgotten": forgotten,
                "kinds": sorted({str(s["kind"]) for s in stones}),
            }
            audit.append(db, actor, ACTION, result.id, detail, at=memory.created_at)
    return result


def overridden(db: Db, memory_id: str) -> list[str]:
    """The tombstone keys a person wrote `memory_id` over, from the audit log."""
    found = db.execute(
        "SELECT detail FROM audit_log WHERE action = ? AND target = ?", (ACTION, memory_id)
    )
    keys: list[str] = []
    for (detail,) in found:
        keys += [str(k) for k in json.loads(detail).get("overrides", [])]
    return keys
