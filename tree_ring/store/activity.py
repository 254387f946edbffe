"""The audit log read as a page of recent activity, and the mark of the store's last change.

Recent activity is what was done to which id and by whom, never an entry's
detail. The last change is the newest audit entry and the newest row: every
change Tree Ring makes appends to the audit log and every new row takes a new
rowid, so the two (two index lookups) say whether anything changed since.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

RECENT_SQL = "SELECT seq, at, action, target, actor, origin FROM audit_log"
LAST_ENTRY_SQL = "SELECT max(seq) FROM audit_log"
LAST_ROW_SQL = "SELECT max(rowid) FROM memories"


def recent(
    db: Db, *, limit: int, until: str | None = None, reader: Identity | None = None
) -> list[dict[str, Any]]:
    """The newest audit entries, oldest first: when, what, which id, by whom; no
    detail. With `reader` (an agent's identity), only the entries about a memory
    it may read (`live.visible`), as `audit log --target` gives an agent; the
    filter runs before the limit."""
    sql = RECENT_SQL
    conditions: list[str] = []
    params: dict[str, Any] = {"limit": limit}
    if until is not None:
        conditions.append("at <= :until")
        params["until"] = until
    if reader is not None:
        from tree_ring.store import live

        clause = live.visible(reader)
        conditions.append(f"target IN (SELECT m.id FROM memories m WHERE {clause.sql})")
        params.update(clause.params)
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    found = db.query(sql + " ORDER BY seq DESC LIMIT :limit", params)
    return [dict(row) for row in reversed(found)]


def last_change(db: Db) -> tuple[object, object]:
    """The newest audit entry's seq and the newest row's rowid (None when empty)."""
    return db.scalar(LAST_ENTRY_SQL), db.scalar(LAST_ROW_SQL)
