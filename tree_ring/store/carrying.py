"""The SQL of what rows carry beside their claims, as a forget reads and
rewrites it (`write/carried.py`): each distinct value of a text column, the
rows holding one, the rows that name other memories or links, and the paths
of the files the project's rows are about."""

from __future__ import annotations

from tree_ring.store import rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db

# The text columns a row carries beside its claim.
COLUMNS = ("review_reason", "reviewed_by", "origin_session", "source_type")

DISTINCT_SQL = (
    "SELECT DISTINCT {0} FROM memories WHERE project = ? AND {0} IS NOT NULL AND {0} != ''"
)
HOLDING_SQL = "SELECT id FROM memories WHERE project = ? AND {} = ?"
# Rows that name other memories or links: read whole, as their lists are JSON.
LISTING_SQL = (
    "SELECT * FROM memories WHERE project = ?"
    " AND (links != '[]' OR supersedes != '[]' OR superseded_by IS NOT NULL)"
)
PATHS_SQL = (
    "SELECT DISTINCT a.path FROM anchors a JOIN memories m ON m.id = a.memory_id"
    " WHERE m.project = ?"
)
UNANCHOR_SQL = (
    "DELETE FROM anchors WHERE path = ?"
    " AND memory_id IN (SELECT id FROM memories WHERE project = ?)"
)


def _column(column: str) -> str:
    if column not in COLUMNS:
        raise ValueError(f"not a carried column: {column!r}")
    return column


def distinct(db: Db, project: str, column: str) -> list[str]:
    """Each value `column` (one of `COLUMNS`) holds in `project`, once."""
    found = db.execute(DISTINCT_SQL.format(_column(column)), (project,)).fetchall()
    return [str(value) for (value,) in found]


def holding(db: Db, project: str, column: str, value: str) -> list[str]:
    """The ids of `project`'s rows whose `column` is `value`."""
    found = db.execute(HOLDING_SQL.format(_column(column)), (project, value)).fetchall()
    return [str(memory_id) for (memory_id,) in found]


def listing(db: Db, project: str) -> list[Memory]:
    """`project`'s rows that link to something or name other memories."""
    return [rows.from_row(row) for row in db.execute(LISTING_SQL, (project,)).fetchall()]


def paths(db: Db, project: str) -> list[str]:
    """Each path a row of `project` is anchored to, once."""
    return [str(path) for (path,) in db.execute(PATHS_SQL, (project,)).fetchall()]


def unanchor(db: Db, project: str, path: str) -> None:
    """No row of `project` is about `path` any more."""
    db.execute(UNANCHOR_SQL, (path, project))
