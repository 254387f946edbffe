"""A person's forget of a memory this store never held, known only by what a
team ledger claim forgot of it.

A tombstone or redaction line no upstream holds (a working-tree edit, a local
commit, every line of a project with no team remote) for an id this store
never held is kept as a withdrawal (`team/ledger_stones.unheld`): it binds
agents' writes only, and the ledger this clone writes leaves it out, since
anyone could have added it. It also waits for a person, as a request to
forget that id (`write/requests.ask_by_id`). Approving the request makes the
withdrawal the person's own forget: its hashes then bind every write, and the
ledger this clone writes carries the line again. That is how a solo project's
store, rebuilt from its committed ledger after it was lost, gets its forgets
back without an export.
"""

from __future__ import annotations

from tree_ring.govern import coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict
from tree_ring.store import audit, redactions, tombstone_ids, tombstones
from tree_ring.store.sql import Db
from tree_ring.write import carried


def forget(
    db: Db, project: str, memory_id: str, mode: str, reason: str, actor: Actor, now: str
) -> list[str]:
    """Make the withdrawal kept for `memory_id` `actor`'s forget, as `mode`
    asked (a redaction marks the id redacted too); the hashes it keeps out.
    Refused when nothing of it is still withdrawn (a forget brought since
    holds every hash)."""
    coordinator.authorize(db, f"forget.{mode}", actor, memory_id)
    hashes = tombstone_ids.withdrawn(db, project, memory_id)
    if not hashes:
        raise Conflict(
            f"{memory_id}: this store holds nothing of it still to forget (a forget has "
            "replaced its withdrawal); reject the request instead"
        )
    keys = tombstones.record(
        db,
        project,
        hashes,
        kind=tombstones.FORGOTTEN,
        reason=reason,
        memory_id=memory_id,
        actor=actor.name,
        at=now,
    )
    if mode == "redact":
        redactions.mark(db, memory_id, now)
    # What other rows carry beside their claims quoting the forgotten words.
    carrying = carried.withhold(db, project, keys, None)
    detail: dict[str, object] = {"mode": mode, "reason": reason, "tombstones": keys}
    if carrying:
        detail["withheld"] = carrying
    audit.record(db, actor, "forget", memory_id, detail, changed=carrying, at=now)
    return keys
