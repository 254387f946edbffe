"""Where a memory sits in a summary tree: the node its leaf was sealed into;
and taking out the leaves of memories that end."""

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


# A memory that ends (expires, or stops being valid) joins no summary
# (tree/nodes.eligible): a sealed node is not rewritten when time passes, so
# its text would outlive the memory. The leaves such memories already have
# are taken out; the nodes above them are marked stale, which hides them
# from every read until `tree-ring tree flush` (or the next forget) rebuilds
# them from what is left; and the L0 buffer is counted again, as
# tree/seal.refresh_l0 counts it.
ENDED_LEAVES = (
    "WITH RECURSIVE above(id) AS (SELECT l.parent_id FROM tree_leaves l"
    " JOIN memories m ON m.id = l.memory_id"
    " WHERE (m.expires_at IS NOT NULL OR m.valid_to IS NOT NULL) AND l.parent_id IS NOT NULL"
    " UNION SELECT n.parent_id FROM tree_nodes n JOIN above a ON n.id = a.id"
    " WHERE n.parent_id IS NOT NULL)"
    " UPDATE tree_nodes SET stale = 1 WHERE id IN (SELECT id FROM above)",
    "DELETE FROM tree_leaves WHERE memory_id IN"
    " (SELECT id FROM memories WHERE expires_at IS NOT NULL OR valid_to IS NOT NULL)",
    "UPDATE tree_buffers SET"
    " item_count = (SELECT count(*) FROM tree_leaves l"
    "   WHERE l.tree_id = tree_buffers.tree_id AND l.parent_id IS NULL),"
    " token_sum = (SELECT coalesce(sum(token_count), 0) FROM tree_leaves l"
    "   WHERE l.tree_id = tree_buffers.tree_id AND l.parent_id IS NULL),"
    " oldest_at = (SELECT added_at FROM tree_leaves l"
    "   WHERE l.tree_id = tree_buffers.tree_id AND l.parent_id IS NULL ORDER BY seq LIMIT 1)"
    " WHERE level = 0",
)


def drop_ended(db: Db) -> None:
    """Take every leaf of a memory that ends out of the summary trees (ENDED_LEAVES)."""
    if db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'tree_leaves'") is None:
        return  # no summary tree yet: nothing to take out
    for statement in ENDED_LEAVES:
        db.execute(statement)
