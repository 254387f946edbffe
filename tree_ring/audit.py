"""The append-only, hash-chained audit log of every mutation.

Each entry records time, actor, origin, action and target (a memory id, never
memory text) and carries the hash of the previous entry, so `verify` finds any
edited, removed or reordered entry.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from tree_ring.identity import Origin
from tree_ring.record import canonical_json, now_iso, sha256


@dataclass(frozen=True)
class Actor:
    """Who performed a mutation, for the audit log and the row itself."""

    name: str
    origin: Origin
    # The coordinator capability as TREE_RING_COORDINATOR_TOKEN gave it, held in
    # memory so `policy.authorize` can check it deep in a write; never stored,
    # logged or printed (repr=False keeps it out of tracebacks too).
    capability: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def person(cls) -> Actor:
        return cls("person", Origin("person"))


def _entry_hash(entry: dict[str, Any], prev_hash: str) -> str:
    return sha256(canonical_json({**entry, "prev_hash": prev_hash}))


def append(
    conn: sqlite3.Connection,
    actor: Actor,
    action: str,
    target: str,
    detail: dict[str, Any] | None = None,
    *,
    at: str | None = None,
) -> None:
    """Add one entry; the caller's transaction makes it atomic with the change."""
    last = conn.execute("SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
    prev_hash = last[0] if last else ""
    entry: dict[str, Any] = {
        "at": at or now_iso(),
        "actor": actor.name,
        "origin": actor.origin.kind,
        "session": actor.origin.session,
        "action": action,
        "target": target,
        "detail": canonical_json(detail or {}),
    }
    conn.execute(
        "INSERT INTO audit_log(at, actor, origin, session, action, target, detail, prev_hash, hash)"
        " VALUES (:at, :actor, :origin, :session, :action, :target, :detail, :prev_hash, :hash)",
        {**entry, "prev_hash": prev_hash, "hash": _entry_hash(entry, prev_hash)},
    )


def entries(
    conn: sqlite3.Connection, *, limit: int = 100, target: str | None = None
) -> list[dict[str, Any]]:
    sql = "SELECT * FROM audit_log"
    params: list[Any] = []
    if target:
        sql += " WHERE target = ?"
        params.append(target)
    sql += " ORDER BY seq DESC LIMIT ?"
    params.append(limit)
    return [dict(row) for row in conn.execute(sql, params)][::-1]


@dataclass(frozen=True)
class Verification:
    ok: bool
    checked: int
    first_bad: int | None = None
    problem: str = ""


def verify(conn: sqlite3.Connection) -> Verification:
    prev_hash = ""
    count = 0
    for row in conn.execute("SELECT * FROM audit_log ORDER BY seq"):
        count += 1
        entry = {
            key: row[key]
            for key in ("at", "actor", "origin", "session", "action", "target", "detail")
        }
        if row["prev_hash"] != prev_hash:
            return Verification(False, count, row["seq"], "link to the previous entry is broken")
        if row["hash"] != _entry_hash(entry, prev_hash):
            return Verification(False, count, row["seq"], "entry was changed after it was written")
        prev_hash = row["hash"]
    return Verification(True, count)
