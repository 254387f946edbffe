"""How much content is forgotten: the tombstones counted per kind, never shown."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.store.sql import Db

COUNTS_SQL = (
    "SELECT kind, count(DISTINCT memory_id), count(*) FROM content_tombstones"
    " WHERE project = :project"
)


def tombstone_counts(db: Db, project: str, until: str | None = None) -> dict[str, tuple[int, int]]:
    """Per kind (forgotten, rejected): how many memories, and how many content hashes
    (one per claim of each); counts only, never a reason or any text."""
    sql = COUNTS_SQL
    params: dict[str, Any] = {"project": project}
    if until is not None:
        sql += " AND created_at <= :until"
        params["until"] = until
    found = db.query(sql + " GROUP BY kind ORDER BY kind", params)
    return {kind: (int(memories), int(hashes)) for kind, memories, hashes in found}
