"""The write path: every verb that adds a memory goes through `store_memory`.

In order: validate the record, run the guard over every text field (a secret
refuses the write before anything is opened), then in one immediate
transaction refuse forgotten content, settle the operation-id claim, decide
the trust state, insert the row (its FTS entry follows by trigger), and append
the audit entry. A memory is retrievable the moment the call returns.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from dataclasses import dataclass
from typing import Any

from tree_ring import audit, governance, guard, policy, rows, summary_tree
from tree_ring.audit import Actor
from tree_ring.errors import Conflict
from tree_ring.record import (
    Memory,
    canonical_json,
    content_hash,
    sha256,
    validate,
)
from tree_ring.store import Store


@dataclass(frozen=True)
class WriteResult:
    id: str
    created: bool  # False when an exact retry returned the existing row
    trust: str
    sensitivity: str
    review_reason: str | None = None


def claim_key(memory: Memory) -> str | None:
    """The idempotency namespace is (project, workflow, agent), as in the original."""
    if not memory.operation_id:
        return None
    parts = [memory.project or "", memory.workflow_id or "", memory.agent_profile or ""]
    return sha256(canonical_json([*parts, memory.operation_id]))


def payload_hash(memory: Memory) -> str:
    """What a retry must repeat exactly. The session is part of it (seed 002)."""
    intent: dict[str, Any] = {
        key: getattr(memory, key)
        for key in (
            "scope",
            "ring",
            "event_type",
            "summary",
            "details",
            "source_type",
            "source_ref",
            "source_quote",
            "salience",
            "confidence",
            "retention",
            "expires_at",
            "session_id",
        )
    }
    intent["tags"] = list(memory.tags)
    intent["supersedes"] = list(memory.supersedes)
    return sha256(canonical_json(intent))


def _stronger(a: str, b: str) -> str:
    """The more restrictive of two sensitivities; anything beats normal."""
    if a == "normal":
        return b
    if b == "normal":
        return a
    # The guard's order decides, so a field it reads as health is never
    # downgraded by a caller who said "private".
    order = ("secret", *guard.SEVERITY_ORDER)
    rank = {name: i for i, name in enumerate(order)}
    return a if rank.get(a, len(order)) <= rank.get(b, len(order)) else b


def tombstone_for(conn: sqlite3.Connection, project: str | None, content: str) -> Any:
    return conn.execute(
        "SELECT kind, reason, created_at, memory_id FROM content_tombstones "
        "WHERE project = ? AND content_hash = ?",
        (project or "", content),
    ).fetchone()


def refuse_if_tombstoned(conn: sqlite3.Connection, memory: Memory) -> None:
    stone = tombstone_for(conn, memory.project, memory.content_hash)
    if stone is not None:
        verb = "forgotten" if stone["kind"] == "forgotten" else "rejected in review"
        raise Conflict(
            f"this memory was {verb} on {stone['created_at'][:19]}Z "
            f"(was {stone['memory_id']}; reason: {stone['reason']}); it will not be stored again"
        )


def prepare(memory: Memory) -> Memory:
    """Validate and guard; raises before any transaction is opened."""
    validate(memory)
    found = guard.check_fields(memory.text_fields())
    # One replace, not two: a Memory has 36 fields and bulk imports make millions.
    return dataclasses.replace(
        memory,
        sensitivity=_stronger(memory.sensitivity, found),
        content_hash=content_hash(memory.summary, memory.details),
    )


def store_memory(store: Store, memory: Memory, actor: Actor) -> WriteResult:
    memory = prepare(memory)
    with store.write() as conn:
        return insert_prepared(conn, memory, actor)


def insert_prepared(
    conn: sqlite3.Connection,
    memory: Memory,
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
) -> WriteResult:
    """The transactional half of a write; the caller holds the transaction."""
    if memory.trust != "rejected":
        # A restored row that arrives rejected brings no belief back with it.
        refuse_if_tombstoned(conn, memory)
    claim = claim_key(memory)
    intent = payload_hash(memory)
    if claim is not None:
        held = conn.execute(
            "SELECT memory_id, payload_hash FROM operation_claims WHERE claim = ?", (claim,)
        ).fetchone()
        if held is not None:
            existing = rows.find(conn, held["memory_id"])
            if existing is None or existing.redacted_at is not None:
                raise Conflict(
                    f"operation id {memory.operation_id!r} belonged to a memory that was "
                    "redacted; use a new operation id"
                )
            if held["payload_hash"] != intent:
                raise Conflict(
                    f"operation id {memory.operation_id!r} was already used for a different "
                    f"memory ({existing.id}); an exact retry must repeat it, or use a new id"
                )
            return WriteResult(existing.id, False, existing.trust, existing.sensitivity)
    if rows.find(conn, memory.id) is not None:
        raise Conflict(f"memory {memory.id} already exists; give a new id or omit it")
    if conn.execute(
        "SELECT 1 FROM redaction_tombstones WHERE memory_id = ?", (memory.id,)
    ).fetchone():
        raise Conflict(f"memory id {memory.id} was redacted and cannot be reused")
    if action == "create":
        # Bulk actions (import, consolidate, ...) are authorized once by their caller.
        policy.authorize(conn, policy.create_action(memory, actor), actor, memory.id)
    if admit:
        memory = governance.admit(conn, memory, actor)
    rows.insert(conn, memory)
    if claim is not None:
        conn.execute(
            "INSERT INTO operation_claims(claim, memory_id, payload_hash, created_at) "
            "VALUES (?, ?, ?, ?)",
            (claim, memory.id, intent, memory.created_at),
        )
    audit.append(
        conn,
        actor,
        action,
        memory.id,
        {
            "ring": memory.ring,
            "scope": memory.scope,
            "trust": memory.trust,
            "sensitivity": memory.sensitivity,
            "content_hash": memory.content_hash,
            "operation_id": memory.operation_id,
        },
        at=memory.created_at,
    )
    governance.after_insert(conn, memory, actor)
    summary_tree.on_insert(conn, memory)  # a shared, accepted memory joins the project's tree
    return WriteResult(memory.id, True, memory.trust, memory.sensitivity, memory.review_reason)
