"""The meaning codes' table (`memory_meaning`, model/vectors.py): coding the
memories a bulk write or an upgrade left without one.

A memory written one at a time is coded by the insert trigger, in its own
transaction. A bulk write (`fts.defer`) and the migration that made the
table code only the newest `SCAN` memories, which recall's scan reads (a
code costs a tenth of a millisecond of Python, a million of them minutes);
`code_missing` codes the rest, a page at a time, from `tree-ring maintain
--vacuum`.
"""

from __future__ import annotations

from tree_ring.store.sql import MEANING_FUNCTION, Db

# How many of the newest memories recall's scan reads (read/meaning.py).
SCAN = 2_048

_CODE_ABOVE = (
    "INSERT OR REPLACE INTO memory_meaning(rowid, code) SELECT rowid, code FROM ("
    f"SELECT m.rowid AS rowid, {MEANING_FUNCTION}(CAST(m.summary AS BLOB), "
    "CAST(m.details AS BLOB), CAST(m.tags AS BLOB)) AS code "
    "FROM memories m WHERE m.rowid > :low AND m.rowid <= :high AND m.redacted_at IS NULL "
    "AND NOT EXISTS (SELECT 1 FROM memory_meaning c WHERE c.rowid = m.rowid)"
    ") WHERE code IS NOT NULL"
)


def last_rowid(db: Db) -> int:
    return int(db.scalar("SELECT coalesce(max(rowid), 0) FROM memories"))


def code_newest(db: Db) -> None:
    """Code the newest SCAN memories that have no code."""
    high = last_rowid(db)
    db.execute(_CODE_ABOVE, {"low": max(high - SCAN, 0), "high": high})


def uncoded(db: Db) -> int:
    """How many unredacted memories have no code (some may hold no known word)."""
    return int(
        db.scalar(
            "SELECT count(*) FROM memories m WHERE m.redacted_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM memory_meaning c WHERE c.rowid = m.rowid)"
        )
    )


def code_missing(db: Db, low: int, high: int) -> None:
    """Code the memories with rowids in (low, high] that have no code."""
    db.execute(_CODE_ABOVE, {"low": low, "high": high})
