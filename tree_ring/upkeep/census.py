"""What a project's store holds, by state: live, waiting, and retired by reason.

`status` reports these so its numbers add up to what `list` shows: a row is
counted once, under the first state that holds for it now, in this order:
redacted, rejected, superseded, retired (by a sync or a consolidation),
expired, ended (its validity closed), pending, disputed, live. Sensitive live
rows are counted apart too, since `list` hides them unless asked.
"""

from __future__ import annotations

from tree_ring.model.record import now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

RETIRED = ("redacted", "rejected", "superseded", "retired", "expired", "ended")
WAITING = ("pending", "disputed")

STATE = (
    "CASE"
    " WHEN redacted_at IS NOT NULL THEN 'redacted'"
    " WHEN trust = 'rejected' THEN 'rejected'"
    " WHEN superseded_by IS NOT NULL AND retired_at IS NOT NULL THEN 'superseded'"
    " WHEN retired_at IS NOT NULL THEN 'retired'"
    " WHEN expires_at IS NOT NULL AND expires_at <= :now THEN 'expired'"
    " WHEN valid_to IS NOT NULL AND valid_to <= :now THEN 'ended'"
    " WHEN trust = 'pending' THEN 'pending'"
    " WHEN trust = 'disputed' THEN 'disputed'"
    " ELSE 'live' END"
)

STATES_SQL = (
    f"SELECT {STATE} AS state, count(*) FROM memories WHERE project IS :project GROUP BY state"
)
LIVE_SQL = (
    "SELECT {column}, count(*) FROM memories WHERE project IS :project"
    f" AND ({STATE}) = 'live' GROUP BY {{column}}"
)
OTHER_PROJECTS_SQL = "SELECT count(*) FROM memories WHERE project IS NOT :project"
TOMBSTONES_SQL = "SELECT count(*) FROM content_tombstones WHERE project IS :project"


def census(db: Db, project: str) -> dict[str, object]:
    """The counts `status` shows: every row of the project, once."""
    params = {"project": project, "now": now_iso()}
    states = {str(state): int(count) for state, count in db.query(STATES_SQL, params)}
    live = {
        column: {
            str(value): int(count)
            for value, count in db.query(LIVE_SQL.format(column=column), params)
        }
        for column in ("ring", "trust", "sensitivity")
    }
    retired = {reason: states[reason] for reason in RETIRED if states.get(reason)}
    return {
        "live": states.get("live", 0),
        "pending": states.get("pending", 0),
        "disputed": states.get("disputed", 0),
        "retired": sum(retired.values()),
        "retired_by_reason": retired,
        "total": sum(states.values()),
        "by_ring": live["ring"],
        "sensitive": sum(n for label, n in live["sensitivity"].items() if label != "normal"),
        "tombstones": int(db.scalar(TOMBSTONES_SQL, {"project": project}) or 0),
        "other_projects": int(db.scalar(OTHER_PROJECTS_SQL, {"project": project}) or 0),
    }
