"""What a project's store holds, by state: live, waiting, and retired by reason.

`status` reports these so its numbers add up to what `list` shows: a row is
counted once, under the first state that holds for it now, in this order:
redacted, rejected, superseded, retired (by a sync or a consolidation),
expired, ended (its validity closed), pending, disputed, upcoming (its
validity starts later: `list` leaves it out until then), live. Sensitive
live rows are counted apart too, since `list` hides them unless asked.
"""

from __future__ import annotations

from tree_ring.model.record import now_iso
from tree_ring.store import census as counts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

RETIRED = ("redacted", "rejected", "superseded", "retired", "expired", "ended")
WAITING = ("pending", "disputed")


def census(db: Db, project: str) -> dict[str, object]:
    """The counts `status` shows: every row of the project, once."""
    states: dict[str, int] = {}
    by_ring: dict[str, int] = {}
    sensitive = 0
    for state, ring, private, count in counts.groups(db, project, now_iso()):
        states[state] = states.get(state, 0) + count
        if state == "live":
            by_ring[ring] = by_ring.get(ring, 0) + count
            sensitive += count if private else 0
    retired = {reason: states[reason] for reason in RETIRED if states.get(reason)}
    return {
        "live": states.get("live", 0),
        "pending": states.get("pending", 0),
        "disputed": states.get("disputed", 0),
        "upcoming": states.get("upcoming", 0),
        "retired": sum(retired.values()),
        "retired_by_reason": retired,
        "total": sum(states.values()),
        "by_ring": by_ring,
        "sensitive": sensitive,
        "tombstones": counts.tombstones(db, project),
        "tombstoned_memories": counts.tombstoned(db, project),
        "tombstones_withdrawn": counts.withdrawn(db, project),
        "other_projects": counts.other_projects(db, project),
    }
