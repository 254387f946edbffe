"""The append-only, hash-chained audit log of every mutation.

Each entry records time, actor, origin, action and target (a memory id, never
memory text) and carries the hash of the previous entry, so `verify` finds any
edited, removed or reordered entry.
"""

from __future__ import annotations

from tree_ring.model.frozen import Frozen, field
from tree_ring.model.identity import Origin
from tree_ring.model.record import canonical_json, json_string, json_text, now_iso, sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from tree_ring.store.sql import Db


class Actor(Frozen):
    """Who performed a mutation, for the audit log and the row itself."""

    name: str
    origin: Origin
    # The coordinator capability as TREE_RING_COORDINATOR_TOKEN gave it, held in
    # memory so `coordinator.authorize` can check it deep in a write; never stored,
    # logged or printed (repr=False keeps it out of tracebacks too).
    capability: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def person(cls) -> Actor:
        return cls("person", Origin("person"))


# canonical_json (record.py) of an entry and the hash it links to, written
# out field by field. Every value is text or None and the keys are fixed, and
# the general encoder costs a bulk write more than the row it hashes; a test
# holds the two to the same bytes. Keys in sorted order, as canonical_json.
_ENTRY = (
    '{"action":%s,"actor":%s,"at":%s,"detail":%s,"origin":%s,'
    '"prev_hash":%s,"session":%s,"target":%s}'
)


def _entry_hash(fields: tuple[str, ...]) -> str:
    """sha256 of canonical_json of an entry plus prev_hash; `fields` are its
    values already written as JSON, in `_ENTRY`'s (sorted) key order."""
    return sha256(_ENTRY % fields)


def append(
    db: Db,
    actor: Actor,
    action: str,
    target: str,
    detail: dict[str, Any] | None = None,
    *,
    at: str | None = None,
) -> None:
    """Add one entry; the caller's transaction makes it atomic with the change."""
    append_many(db, actor, action, [(target, canonical_json(detail or {}), at or now_iso())])


def append_many(
    db: Db,
    actor: Actor,
    action: str,
    items: Iterable[tuple[str, str, str]],
) -> None:
    """Add one entry per (target, detail as canonical JSON, at), in order, chained
    from the current head.

    The head is read once and the chain is hashed here, so a bulk write pays one
    read and one insert statement for its entries, not a round trip per entry.
    """
    last = db.execute("SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
    prev_hash: str = last[0] if last else ""
    name, origin, session = actor.name, actor.origin.kind, actor.origin.session
    # The fields every entry of the call shares, written once.
    action_, name_, origin_, session_ = map(json_text, (action, name, origin, session))
    values: list[tuple[str, ...]] = []
    for target, detail, at in items:
        at_, detail_, prev_ = json_string(at), json_string(detail), json_string(prev_hash)
        written = (action_, name_, at_, detail_, origin_, prev_)
        digest = _entry_hash((*written, session_, json_string(target)))
        values.append((at, name, origin, action, target, detail, prev_hash, digest))
        prev_hash = digest
    columns = ["at", "actor", "origin", "action", "target", "detail", "prev_hash", "hash"]
    # Binding None costs sqlite3 an adapter lookup per row; the session is the
    # same for every entry of a call, so when there is none it is left out.
    if session is not None:
        columns.append("session")
        values = [(*row, session) for row in values]
    db.executemany(
        f"INSERT INTO audit_log({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        values,
    )


def entries(db: Db, *, limit: int = 100, target: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM audit_log"
    params: list[Any] = []
    if target:
        sql += " WHERE target = ?"
        params.append(target)
    sql += " ORDER BY seq DESC LIMIT ?"
    params.append(limit)
    return [dict(row) for row in db.execute(sql, params)][::-1]


class Verification(Frozen):
    ok: bool
    checked: int
    first_bad: int | None = None
    problem: str = ""


def verify(db: Db) -> Verification:
    prev_hash = ""
    count = 0
    for row in db.execute("SELECT * FROM audit_log ORDER BY seq"):
        count += 1
        if row["prev_hash"] != prev_hash:
            return Verification(False, count, row["seq"], "link to the previous entry is broken")
        fields = (row["action"], row["actor"], row["at"], row["detail"], row["origin"])
        written = tuple(
            json_text(value) for value in (*fields, prev_hash, row["session"], row["target"])
        )
        if row["hash"] != _entry_hash(written):
            return Verification(False, count, row["seq"], "entry was changed after it was written")
        prev_hash = row["hash"]
    return Verification(True, count)
