"""Where a memory sits in a summary tree: the node its leaf was sealed into."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

PARENT_SQL = "SELECT parent_id FROM tree_leaves WHERE tree_id = ? AND memory_id = ?"


def parent_of(db: Db, tree_id: str, memory_id: str) -> str | None:
    """The id of the node the memory's leaf was sealed into, or None (not a leaf,
    or not sealed yet)."""
    parent = db.scalar(PARENT_SQL, (tree_id, memory_id))
    return str(parent) if parent else None
