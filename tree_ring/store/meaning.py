"""The meaning codes' table (`memory_meaning`, model/vectors.py): coding the
memories that have no code, and coding them all again when the vector table
that made them is not the one installed.

A memory written one at a time is coded by the insert trigger, and a bulk
write's rows in one statement when they are indexed (`fts.index_since`),
each in the write's own transaction. A memory written while the vector table
was missing has no code: `tree-ring maintain --vacuum` codes it
(`code_missing`), and recall meanwhile weighs it from its text.

Codes are comparable only with a question read by the same table:
`meaning_source` names the table (`vectors.identity()`) that made them. A
Tree Ring whose vector table differs (a new release's) finds the codes
`stale`, and the first recall that may write codes every memory again
(read/meaning.py, `current`), once: about a tenth of a millisecond a
memory. No migration does it, because the first open after an upgrade is
usually a hook's, and a hook must neither read the vector table nor keep a
session waiting (at 100,000 memories the coding takes longer than a hook is
given). Until then, and whenever the store cannot be written, recall weighs
its candidates from their text; `tree-ring doctor --repair` and `tree-ring
maintain --vacuum` code them too.

Tree Ring writes a code only as the installed table makes it, and only for
an unredacted memory. A code of another type or size, or one of a memory
gone or redacted, was edited outside it: recall never reads the first
(`SOUND`, read/meaning.py) nor sees the second, `tree-ring doctor` counts
both (`unsound`), and `doctor --repair` and `tree-ring maintain --vacuum`
delete them and code those memories again.
"""

from __future__ import annotations

from tree_ring.store.sql import MEANING_FUNCTION, Db

# The record of which vector table made the codes (migration 0013).
MEANING_SOURCE = """CREATE TABLE meaning_source (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    vectors  TEXT NOT NULL  -- vectors.identity() of the table that made every code
)"""

# A code as the installed table makes one: a blob of `vectors.code_size()`
# bytes (bound as :size); 1 or 0. SQLite tells a value's type, and a blob's
# length, without loading it, so testing this never reads a code of any size.
SOUND = "CASE typeof(code) WHEN 'blob' THEN length(code) = :size ELSE 0 END"

# A code whose memory is gone, or redacted (which takes its code away).
_STRAY = (
    "NOT EXISTS (SELECT 1 FROM memories m "
    "WHERE m.rowid = memory_meaning.rowid AND m.redacted_at IS NULL)"
)

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


def unsound(db: Db) -> tuple[int, int]:
    """(codes that are not a code's type and size, codes of no memory or of
    a redacted one): Tree Ring writes neither, so they were edited outside
    it. Without a vector table installed no code's size is known, and only
    the second are counted."""
    from tree_ring.model import vectors

    size = vectors.code_size()
    row = db.execute(
        f"SELECT count(*) FILTER (WHERE :size > 0 AND NOT ({SOUND}) AND NOT ({_STRAY})), "
        f"count(*) FILTER (WHERE {_STRAY}) FROM memory_meaning",
        {"size": size},
    ).fetchone()
    return int(row[0]), int(row[1])


def drop_unsound(db: Db) -> int:
    """Delete the codes `unsound` counts, so that `code_missing` codes their
    memories again; how many were deleted."""
    from tree_ring.model import vectors

    return db.execute(
        f"DELETE FROM memory_meaning WHERE (:size > 0 AND NOT ({SOUND})) OR {_STRAY}",
        {"size": vectors.code_size()},
    ).rowcount


def recorded(db: Db) -> bool:
    """Whether the store has its record of the codes' source (`doctor
    --repair` restores a dropped one)."""
    return bool(
        db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meaning_source'")
    )


def source(db: Db) -> str | None:
    """The identity of the vector table that made the codes; None when
    unknown (no table made them, or the record is missing)."""
    if not recorded(db):
        return None  # a store whose record was dropped
    found = db.scalar("SELECT vectors FROM meaning_source WHERE id = 1")
    return found if isinstance(found, str) else None


def stale(db: Db) -> bool:
    """Whether the codes were made by another vector table than the one
    installed (there being none installed, there is nothing to compare)."""
    from tree_ring.model import vectors  # not at import: hooks import this module

    installed = vectors.identity()
    return installed is not None and source(db) != installed


def recode(db: Db) -> int:
    """Every memory coded again by the installed table, which is recorded
    as the codes' source; how many memories have a code."""
    from tree_ring.model import vectors

    db.execute("DELETE FROM memory_meaning")
    code_missing(db)
    db.execute("DELETE FROM meaning_source")
    installed = vectors.identity()
    if installed is not None:
        db.execute("INSERT INTO meaning_source(id, vectors) VALUES (1, ?)", (installed,))
    return int(db.scalar("SELECT count(*) FROM memory_meaning"))


def adopt(db: Db) -> None:
    """Record the installed table as the codes' source of a store that holds
    no memory (a new one): nothing needs coding, and the trigger codes what
    is written next with that table. A store that holds memories keeps its
    record, and its codes are coded again by the first recall (read/meaning.py,
    `current`)."""
    if db.scalar("SELECT 1 FROM memories LIMIT 1") is None:
        recode(db)
