"""What a screen that watches the store polls: whether another connection has committed."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

DATA_VERSION_SQL = "PRAGMA data_version"


def data_version(db: Db) -> int:
    """A number that changes whenever another connection to the file commits
    (never for this connection's own writes): a watcher's cheap poll."""
    return int(db.scalar(DATA_VERSION_SQL) or 0)
