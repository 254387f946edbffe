"""Operation claims: which memory each operation id (project, workflow,
agent, id) was first written as, and the hash of what a retry must repeat."""

from __future__ import annotations

from tree_ring.model import jsontext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from tree_ring.store.sql import Db

_INSERT = (
    "INSERT INTO operation_claims(claim, memory_id, payload_hash, created_at) VALUES (?, ?, ?, ?)"
)
_HELD = (
    "SELECT claim, memory_id, payload_hash FROM operation_claims"
    " WHERE claim IN (SELECT value FROM json_each(?))"
)


def insert_many(db: Db, claims: Iterable[Sequence[str]]) -> None:
    """Record (claim, memory id, payload hash, created at) rows, in the caller's transaction."""
    db.executemany(_INSERT, claims)


def held(db: Db, claims: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Claim -> (memory id, payload hash) for the stored claims among `claims`."""
    return {row[0]: (row[1], row[2]) for row in db.execute(_HELD, (jsontext.dumps(claims),))}


def release(db: Db, memory_id: str) -> None:
    """Drop every claim on `memory_id`: its operation ids may be used again."""
    db.execute("DELETE FROM operation_claims WHERE memory_id = ?", (memory_id,))


def release_claim(db: Db, claim: str, memory_id: str) -> None:
    """Drop one claim, if it is held by `memory_id`."""
    db.execute("DELETE FROM operation_claims WHERE claim = ? AND memory_id = ?", (claim, memory_id))
