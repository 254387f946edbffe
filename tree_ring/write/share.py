"""Sharing captures with the whole project, when the person's policy says so.

`review policy --set share_captures=true` is the person's standing decision
that what any harness captures at a stop is project knowledge at once: the
capture is admitted in its own partition as always (heartwood, weight and
contradictions still wait for review), and an accepted one that contradicts
no live project memory then moves into the shared project scope in the same
transaction, still agent-origin, with
an audit entry naming the policy. The trade: every session of every harness
sees it without a person reading it first. Off by default: captures stay in
their partition until a person promotes them (`review/promote.py`).
"""

from __future__ import annotations

from tree_ring.govern import admission, contradictions
from tree_ring.model.record import SHARED_SCOPES
from tree_ring.store import audit, rows
from tree_ring.tree import seal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.actor import Actor
    from tree_ring.store.sql import Db

POLICY = "share_captures"
SHARED_SCOPE = "project"  # where a shared capture moves


def sharing(db: Db) -> bool:
    return admission.policy_settings(db)[POLICY]


def share_in(db: Db, memory_id: str, actor: Actor, at: str) -> bool:
    """Move an accepted capture into the project scope, audited, in the
    caller's transaction; True if it moved. One that contradicts live project
    memory stays in its partition, for a person to decide in the inbox."""
    memory = rows.get(db, memory_id)
    if memory.trust != "accepted" or memory.scope == SHARED_SCOPE:
        return False
    if contradictions.find(db, memory, None, SHARED_SCOPES):  # any scope every session reads
        return False
    rows.update(db, memory_id, scope=SHARED_SCOPE, updated_at=at)
    detail = {"from": memory.scope, "to": SHARED_SCOPE, "policy": POLICY}
    audit.record(db, actor, "share", memory_id, detail, changed=[memory_id], at=at)
    seal.on_insert(db, rows.get(db, memory_id))
    return True
