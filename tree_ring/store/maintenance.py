"""The reads `maintain`, `status` and the quality runner make over the whole
store: how many rows, which have expired, the unredacted rows a page at a
time, and whether a source ref is kept."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.store.sql import Db


def count(db: Db) -> int:
    """Rows in the store, of every project and state."""
    return int(db.scalar("SELECT count(*) FROM memories"))


def expired(db: Db, now: str) -> list[Any]:
    """Every row expired at `now`, soonest first: whole, since who wrote it,
    and who stands behind it, say how its expiry is applied (`upkeep/maintain.py`)."""
    return db.query(
        "SELECT * FROM memories "
        "WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, id",
        (now,),
    )


def unredacted_after(db: Db, rowid: int, limit: int) -> list[Any]:
    """Up to `limit` unredacted rows past `rowid`, in rowid order, each with it as `rid`."""
    return db.query(
        "SELECT rowid AS rid, * FROM memories WHERE rowid > ? AND redacted_at IS NULL "
        "ORDER BY rowid LIMIT ?",
        (rowid, limit),
    )


def keeps_source_ref(db: Db, ref: str) -> bool:
    """Whether any row keeps `ref` as its source ref."""
    return bool(db.query("SELECT 1 FROM memories WHERE source_ref = ? LIMIT 1", (ref,)))
