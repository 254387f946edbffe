"""The status counts' queries: each row of a project counted once, under the
first state that holds for it now (`upkeep/census.py` says what they mean)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

# The order is the meaning: redacted, rejected, superseded, retired, expired,
# ended, pending, disputed, live.
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
# The columns live rows are counted by.
LIVE_COLUMNS = ("ring", "trust", "sensitivity")


def states(db: Db, project: str, now: str) -> dict[str, int]:
    """State -> how many of the project's rows are in it at `now`."""
    params = {"project": project, "now": now}
    return {str(state): int(count) for state, count in db.query(STATES_SQL, params)}


def live_by(db: Db, project: str, now: str, column: str) -> dict[str, int]:
    """Value of `column` (one of `LIVE_COLUMNS`) -> how many live rows hold it."""
    if column not in LIVE_COLUMNS:
        raise ValueError(f"live rows are not counted by {column!r}")
    params = {"project": project, "now": now}
    found = db.query(LIVE_SQL.format(column=column), params)
    return {str(value): int(count) for value, count in found}


def tombstones(db: Db, project: str) -> int:
    """The project's content tombstones."""
    return int(db.scalar(TOMBSTONES_SQL, {"project": project}) or 0)


def other_projects(db: Db, project: str) -> int:
    """Rows of other projects in the same store."""
    return int(db.scalar(OTHER_PROJECTS_SQL, {"project": project}) or 0)
