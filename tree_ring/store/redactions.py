"""Redaction tombstones: the ids of redacted memories, which are never used again."""

from __future__ import annotations

from tree_ring.model import jsontext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_ring.store.sql import Db


def among(db: Db, ids: Iterable[str]) -> set[str]:
    """Which of `ids` were redacted."""
    sql = (
        "SELECT memory_id FROM redaction_tombstones"
        " WHERE memory_id IN (SELECT value FROM json_each(?))"
    )
    return {row[0] for row in db.execute(sql, (jsontext.dumps(list(ids)),))}


def mark(db: Db, memory_id: str, at: str) -> None:
    """Record `memory_id` as redacted at `at`, unless it already is."""
    db.execute(
        "INSERT OR IGNORE INTO redaction_tombstones(memory_id, created_at) VALUES (?, ?)",
        (memory_id, at),
    )


def unmark(db: Db, memory_id: str) -> None:
    """Release a hard-deleted memory's id."""
    db.execute("DELETE FROM redaction_tombstones WHERE memory_id = ?", (memory_id,))
