"""The queries of `tree-ring audit --audit-type`: a project's rows, oldest
first, as each finding reads them (`review/findings.py` decides what to report).

Each reads every partition of the project (a person's report), or with a
`reader` (an agent's identity) only the rows that reader may read, by the
clause its recall reads through (`live.visible`), in SQL."""

from __future__ import annotations

from tree_ring.store import live, rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db


def _read(db: Db, sql: str, project: str | None, reader: Identity | None) -> list[Memory]:
    """The rows `sql` finds, its `{visible}` the reader's clause (every row, without one)."""
    params: dict[str, object] = {"project": project}
    visible = "1"
    if reader is not None:
        clause = live.visible(reader)
        visible = clause.sql
        params.update(clause.params)
    return [rows.from_row(r) for r in db.execute(sql.format(visible=visible), params)]


def _current(db: Db, project: str | None, extra: str, reader: Identity | None) -> list[Memory]:
    """Rows still on record: not retired, not redacted."""
    sql = (
        "SELECT m.* FROM memories m WHERE m.project IS :project AND {visible}"
        " AND m.redacted_at IS NULL AND m.retired_at IS NULL"
        f" {extra} ORDER BY m.created_at, m.id"
    )
    return _read(db, sql, project, reader)


def current_unpinned(db: Db, project: str | None, reader: Identity | None = None) -> list[Memory]:
    """Current rows but those the user pinned."""
    return _current(db, project, "AND m.retention != 'user_pinned'", reader)


def current_below(
    db: Db, project: str | None, confidence: float, reader: Identity | None = None
) -> list[Memory]:
    """Current rows whose confidence is below `confidence` (a number of the code's own)."""
    return _current(db, project, f"AND m.confidence < {float(confidence)}", reader)


def current_unrejected(db: Db, project: str | None, reader: Identity | None = None) -> list[Memory]:
    """Current rows not rejected in review."""
    return _current(db, project, "AND m.trust != 'rejected'", reader)


def waiting(db: Db, project: str | None, reader: Identity | None = None) -> list[Memory]:
    """The review queue's rows (`store/queue.py`): pending or disputed, on record."""
    return _current(db, project, "AND m.trust IN ('pending', 'disputed')", reader)


def sensitive(db: Db, project: str | None, reader: Identity | None = None) -> list[Memory]:
    """Unredacted rows of any sensitivity but normal, retired or not."""
    sql = (
        "SELECT m.* FROM memories m WHERE m.project IS :project AND {visible}"
        " AND m.redacted_at IS NULL AND m.sensitivity != 'normal' ORDER BY m.created_at, m.id"
    )
    return _read(db, sql, project, reader)


def every(db: Db, project: str | None, reader: Identity | None = None) -> list[Memory]:
    """Every row of the project, in any state."""
    sql = (
        "SELECT m.* FROM memories m WHERE m.project IS :project AND {visible}"
        " ORDER BY m.created_at, m.id"
    )
    return _read(db, sql, project, reader)


def ids(db: Db, project: str | None) -> set[str]:
    """The id of every row of the project, in any partition and state: what
    tells a row that is not there from one a reader may not read."""
    found = db.execute("SELECT id FROM memories WHERE project IS :project", {"project": project})
    return {str(row[0]) for row in found}


def settled(a: Memory, b: Memory) -> bool:
    """Whether two rows linked as contradicting may stand together: a person
    approved one of them after both existed."""
    later = max(a.created_at, b.created_at)
    return any(
        m.trust == "accepted" and m.reviewed_at is not None and m.reviewed_at >= later
        for m in (a, b)
    )
