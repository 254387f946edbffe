"""The meaning codes' table (`memory_meaning`, model/vectors.py): coding the
memories that have no code.

A memory written one at a time is coded by the insert trigger, and a bulk
write's rows in one statement when they are indexed (`fts.index_since`),
each in the write's own transaction; the migration that made the table codes
every row the store held. A memory written while the vector table was
missing has no code: `tree-ring maintain --vacuum` codes it (`code_missing`),
and recall meanwhile weighs it from its text.
"""

from __future__ import annotations

from tree_ring.store.sql import MEANING_FUNCTION, Db

_CODE_BETWEEN = (
    "INSERT OR REPLACE INTO memory_meaning(rowid, code) SELECT rowid, code FROM ("
    f"SELECT m.rowid AS rowid, {MEANING_FUNCTION}(CAST(m.summary AS BLOB), "
    "CAST(m.details AS BLOB), CAST(m.tags AS BLOB)) AS code "
    "FROM memories m WHERE m.rowid > :low AND (:high IS NULL OR m.rowid <= :high) "
    "AND m.redacted_at IS NULL "
    "AND NOT EXISTS (SELECT 1 FROM memory_meaning c WHERE c.rowid = m.rowid)"
    ") WHERE code IS NOT NULL"
)


def uncoded(db: Db) -> int:
    """How many unredacted memories have no code but would be given one (a
    text that holds no known word has none); only the uncoded are coded to tell."""
    return int(
        db.scalar(
            "SELECT count(*) FROM memories m WHERE m.redacted_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM memory_meaning c WHERE c.rowid = m.rowid) "
            f"AND {MEANING_FUNCTION}(CAST(m.summary AS BLOB), CAST(m.details AS BLOB), "
            "CAST(m.tags AS BLOB)) IS NOT NULL"
        )
    )


def code_missing(db: Db, low: int = 0, high: int | None = None) -> None:
    """Code the memories past rowid `low` (up to `high`, when given) that
    have no code."""
    db.execute(_CODE_BETWEEN, {"low": low, "high": high})
