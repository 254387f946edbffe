"""The forget_requests table: what an agent asked a person to forget."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db


def waiting_id(db: Db, memory_id: str, mode: str) -> Any:
    """The id of the request for `memory_id` and `mode` that still waits, or None."""
    return db.scalar(
        "SELECT id FROM forget_requests WHERE memory_id = ? AND mode = ? AND decision IS NULL",
        (memory_id, mode),
    )


def insert(db: Db, values: Sequence[Any]) -> None:
    """A new request: (id, project, memory id, mode, reason, actor, origin, session, created at)."""
    db.execute(
        "INSERT INTO forget_requests(id, project, memory_id, mode, reason, actor, origin,"
        " session, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        values,
    )


def waiting(db: Db, project: str, reader: Identity | None = None) -> list[Any]:
    """The project's requests that wait for a person, oldest first; with
    `reader` (an agent's identity), only those about a row it may read
    (`live.visible`): a request names its row and may quote it."""
    sql = "SELECT r.* FROM forget_requests r WHERE r.project = :project AND r.decision IS NULL"
    params: dict[str, Any] = {"project": project}
    if reader is not None:
        from tree_ring.store import live

        clause = live.visible(reader)
        sql += f" AND EXISTS (SELECT 1 FROM memories m WHERE m.id = r.memory_id AND {clause.sql})"
        params.update(clause.params)
    return db.query(sql + " ORDER BY r.created_at, r.id", params)


def waiting_count(db: Db, project: str) -> int:
    """How many of the project's requests wait for a person."""
    found = db.scalar(
        "SELECT count(*) FROM forget_requests WHERE project = ? AND decision IS NULL", (project,)
    )
    return int(found or 0)


def get(db: Db, request_id: str) -> Any:
    """The request's row, or None."""
    return db.execute("SELECT * FROM forget_requests WHERE id = ?", (request_id,)).fetchone()


def decide(db: Db, request_id: str, decision: str, by: str, at: str, reason: str) -> None:
    """Close a request with a person's decision."""
    db.execute(
        "UPDATE forget_requests SET decision = ?, decided_by = ?, decided_at = ?,"
        " decision_reason = ? WHERE id = ?",
        (decision, by, at, reason, request_id),
    )
