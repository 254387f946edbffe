"""The queries of `tree-ring audit --audit-type`: a project's rows, oldest
first, as each finding reads them (`review/findings.py` decides what to report)."""

from __future__ import annotations

from tree_ring.store import rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db


def _read(db: Db, sql: str, project: str | None) -> list[Memory]:
    return [rows.from_row(r) for r in db.execute(sql, {"project": project})]


def _current(db: Db, project: str | None, extra: str) -> list[Memory]:
    """Rows still on record: not retired, not redacted."""
    sql = (
        "SELECT * FROM memories WHERE project IS :project AND redacted_at IS NULL "
        f"AND retired_at IS NULL {extra} ORDER BY created_at, id"
    )
    return _read(db, sql, project)


def current_unpinned(db: Db, project: str | None) -> list[Memory]:
    """Current rows but those the user pinned."""
    return _current(db, project, "AND retention != 'user_pinned'")


def current_below(db: Db, project: str | None, confidence: float) -> list[Memory]:
    """Current rows whose confidence is below `confidence` (a number of the code's own)."""
    return _current(db, project, f"AND confidence < {float(confidence)}")


def current_unrejected(db: Db, project: str | None) -> list[Memory]:
    """Current rows not rejected in review."""
    return _current(db, project, "AND trust != 'rejected'")


def sensitive(db: Db, project: str | None) -> list[Memory]:
    """Unredacted rows of any sensitivity but normal, retired or not."""
    sql = (
        "SELECT * FROM memories WHERE project IS :project AND redacted_at IS NULL "
        "AND sensitivity != 'normal' ORDER BY created_at, id"
    )
    return _read(db, sql, project)


def every(db: Db, project: str | None) -> list[Memory]:
    """Every row of the project, in any state."""
    sql = "SELECT * FROM memories WHERE project IS :project ORDER BY created_at, id"
    return _read(db, sql, project)
