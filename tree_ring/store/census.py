"""The status counts' queries: each row of a project counted once, under the
first state that holds for it now (`upkeep/census.py` says what they mean)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.live import Clause
    from tree_ring.store.sql import Db

# The order is the meaning: redacted, rejected, superseded, retired, expired,
# ended, pending, disputed, upcoming (its validity starts later), live.
_STATES = (
    " WHEN redacted_at IS NOT NULL THEN 'redacted'"
    " WHEN trust = 'rejected' THEN 'rejected'"
    " WHEN superseded_by IS NOT NULL AND retired_at IS NOT NULL THEN 'superseded'"
    " WHEN retired_at IS NOT NULL THEN 'retired'"
    " WHEN expires_at IS NOT NULL AND expires_at <= :now THEN 'expired'"
    " WHEN valid_to IS NOT NULL AND valid_to <= :now THEN 'ended'"
    " WHEN trust = 'pending' THEN 'pending'"
    " WHEN trust = 'disputed' THEN 'disputed'"
)
UPCOMING = " WHEN valid_from > :now THEN 'upcoming'"
STATE = f"CASE{_STATES}{UPCOMING} ELSE 'live' END"

# Rows still on record, read from the covering index `memories_live` (its
# condition named word for word), and the rest from `memories_off_record`:
# each row once, by state, ring and privacy. Two passes over two indexes, not
# one over the table: a row's text is never read. A row off the record is
# counted by the states before `upcoming` (a row off the record that is none
# of them, superseded and not retired, is no row `list` shows either way), so
# its index needs no `valid_from`.
ON_RECORD = "retired_at IS NULL AND redacted_at IS NULL AND superseded_by IS NULL"
OFF_RECORD = "retired_at IS NOT NULL OR redacted_at IS NOT NULL OR superseded_by IS NOT NULL"
GROUPS_SQL = (
    "SELECT {state} AS state, ring, sensitivity != 'normal', count(*) FROM memories"
    " WHERE project IS :project AND ({condition}) GROUP BY 1, 2, 3"
)
PASSES = ((ON_RECORD, STATE), (OFF_RECORD, f"CASE{_STATES} ELSE 'live' END"))
OTHER_PROJECTS_SQL = "SELECT count(*) FROM memories WHERE project IS NOT :project"
TOMBSTONES_SQL = "SELECT count(*) FROM content_tombstones WHERE project IS :project"
# The memories they were recorded for: one forget keys several claims.
TOMBSTONED_SQL = "SELECT count(DISTINCT memory_id) FROM tombstone_ids WHERE project IS :project"
# Those of them an agent withdrew (`tombstones.WITHDRAWN`): they bind agents only.
WITHDRAWN_SQL = TOMBSTONES_SQL + " AND kind = 'withdrawn'"


def groups(db: Db, project: str, now: str) -> list[tuple[str, str, bool, int]]:
    """(state, ring, sensitive, how many) for the project's rows at `now`, each
    row in exactly one group."""
    params = {"project": project, "now": now}
    found: list[tuple[str, str, bool, int]] = []
    for condition, state_sql in PASSES:
        sql = GROUPS_SQL.format(state=state_sql, condition=condition)
        for state, ring, private, count in db.query(sql, params):
            found.append((str(state), str(ring), bool(private), int(count)))
    return found


def tombstones(db: Db, project: str) -> int:
    """The project's content tombstones."""
    return int(db.scalar(TOMBSTONES_SQL, {"project": project}) or 0)


def tombstoned(db: Db, project: str) -> int:
    """The memories the project's content tombstones were recorded for."""
    return int(db.scalar(TOMBSTONED_SQL, {"project": project}) or 0)


def withdrawn(db: Db, project: str) -> int:
    """The project's content tombstones that bind agents' writes only."""
    return int(db.scalar(WITHDRAWN_SQL, {"project": project}) or 0)


def other_projects(db: Db, project: str) -> int:
    """Rows of other projects in the same store."""
    return int(db.scalar(OTHER_PROJECTS_SQL, {"project": project}) or 0)


_FORGOT_AS = "SELECT 1 FROM content_tombstones WHERE project = ? AND memory_id = ? LIMIT 1"
_REDACTED = "SELECT count(*) FROM memories m WHERE {visible} AND m.redacted_at IS NOT NULL"


def forgot_as(db: Db, project: str, memory_id: str) -> bool:
    """Whether the project's content tombstones were recorded as `memory_id`."""
    return db.scalar(_FORGOT_AS, (project, memory_id)) is not None


def redacted(db: Db, visible: Clause) -> int:
    """The redacted rows `visible` (a reader's `live.visible`) admits."""
    return int(db.scalar(_REDACTED.format(visible=visible.sql), visible.params) or 0)
