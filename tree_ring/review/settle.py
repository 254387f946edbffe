"""A person's `supersede OLD NEW` on a contradicted pair settles it in one step.

When NEW was written against OLD and waits, disputed, beside it (an agent's
write, or a person's under an older policy), the person who says "NEW
replaces OLD" has decided both halves of the review: NEW is approved and OLD
retired, in one transaction and two audit entries (the review, then the
supersession). For anyone else, and for pairs no contradiction links,
supersede is what it always was (`write/correct.supersede`): an agent's
supersession of a disputed row still waits for a person.

A person who replaces memory the project shares with a note of an agent's
own partition has made that note the project's: it moves into the retired
row's scope in the same transaction (a promotion, audited as one), as
`review approve` does with an agent's replacement. Left in the partition,
the fact would be gone for every other harness and teammate.
"""

from __future__ import annotations

from tree_ring.govern import admission, reasons
from tree_ring.model.frozen import Frozen
from tree_ring.model.record import Link, now_iso
from tree_ring.review import queue as review
from tree_ring.review.promote import promote_in
from tree_ring.store import rows
from tree_ring.write import correct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.actor import Actor
    from tree_ring.store.db import Store


class Settled(Frozen):
    applied: bool  # OLD is retired now (False: it waits for NEW's review)
    approved: bool  # NEW was disputed and this call accepted it
    shared: str | None = None  # the shared scope NEW moved into, if it did


def supersede(store: Store, old_id: str, new_id: str, *, reason: str, actor: Actor) -> Settled:
    reason = correct.check_reason(reason)
    at = now_iso()
    with store.write() as db:
        old, new = rows.get(db, old_id), rows.get(db, new_id)
        reasons.kept(db, old.project or "", reason, reasons.IN_AUDIT_LOG)
        linked = Link(admission.CONTRADICTS, old_id) in new.links
        approved = False
        if linked and new.trust == "disputed" and not actor.origin.is_agent:
            review.approve_in(db, new, reason, actor, at)
            approved = True
        applied = correct.supersede_in(db, old, new_id, reason, actor, at)
        person = applied and not actor.origin.is_agent
        shared = review.shared_scope(new, [old.scope]) if person else None
        if shared is not None:
            promote_in(
                db, rows.get(db, new_id), scope=shared, ring=None, reason=reason, actor=actor, at=at
            )
    return Settled(applied=applied, approved=approved, shared=shared)
