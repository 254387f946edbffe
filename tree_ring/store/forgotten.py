"""How much content is forgotten: the tombstones counted per kind, never shown."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

COUNTS_SQL = (
    "SELECT kind, count(DISTINCT memory_id), count(*) FROM content_tombstones"
    " WHERE project = :project"
)


def tombstone_counts(
    db: Db, project: str, until: str | None = None, reader: Identity | None = None
) -> dict[str, tuple[int, int]]:
    """Per kind (forgotten, rejected): how many memories, and how many content hashes
    (one per claim of each); counts only, never a reason or any text. With
    `reader` (an agent's identity), only of the rows it may read (`live.visible`):
    what another partition forgot is that partition's to know."""
    sql = COUNTS_SQL
    params: dict[str, Any] = {"project": project}
    if until is not None:
        sql += " AND created_at <= :until"
        params["until"] = until
    if reader is not None:
        from tree_ring.store import live

        clause = live.visible(reader)
        sql += f" AND memory_id IN (SELECT m.id FROM memories m WHERE {clause.sql})"
        params.update(clause.params)
    found = db.query(sql + " GROUP BY kind ORDER BY kind", params)
    return {kind: (int(memories), int(hashes)) for kind, memories, hashes in found}
