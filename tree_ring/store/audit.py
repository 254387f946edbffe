"""The append-only, hash-chained audit log of every mutation.

Each entry records time, actor, origin, action and target (a memory id, never
memory text) and carries the hash of the previous entry, so `verify` finds any
edited, removed or reordered entry.
"""

from __future__ import annotations

from tree_ring.model import jsontext
from tree_ring.model.actor import Actor
from tree_ring.model.frozen import Frozen
from tree_ring.model.record import Memory, canonical_json, json_string, json_text, now_iso, sha256
from tree_ring.store import rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from tree_ring.store.sql import Db


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


def brought(db: Db, memory_id: str, *, limit: int = 100) -> list[dict[str, Any]]:
    """The entries that recorded the tombstones of `memory_id` when none
    names it: an import or a team ledger sync that brought them, naming
    their hashes (a memory forgotten in another store, the one a refusal
    names). Read rarely, by a person following that refusal's hint, which
    promises why: an entry that records no reason shows the one the
    tombstones of `memory_id` keep (the forgetting person's, carried with
    them), as its detail's `reason`."""
    hashes = [
        str(row[0])
        for row in db.execute(
            "SELECT content_hash FROM tombstone_ids WHERE memory_id = ?"
            " UNION SELECT content_hash FROM content_tombstones WHERE memory_id = ? LIMIT 8",
            (memory_id, memory_id),
        )
    ]
    if not hashes:
        return []
    naming = " OR ".join("instr(detail, ?) > 0" for _ in hashes)
    sql = f"SELECT * FROM audit_log WHERE {naming} ORDER BY seq DESC LIMIT ?"
    found = [dict(row) for row in db.execute(sql, (*hashes, limit))][::-1]
    reason = db.scalar(
        "SELECT reason FROM content_tombstones WHERE memory_id = ? AND reason != ''"
        " ORDER BY created_at LIMIT 1",
        (memory_id,),
    )
    return [_with_reason(entry, str(reason)) for entry in found] if reason else found


def _with_reason(entry: dict[str, Any], reason: str) -> dict[str, Any]:
    """`entry` with `reason` in its detail, unless the detail gives one."""
    try:
        detail = jsontext.as_object(jsontext.loads(str(entry.get("detail") or "{}")))
    except ValueError:
        return entry
    if detail is None or "reason" in detail:
        return entry
    return {**entry, "detail": canonical_json({**detail, "reason": reason})}


def count(db: Db, *, target: str | None = None) -> int:
    """How many entries the log holds; with `target`, those about it."""
    if target:
        return int(db.scalar("SELECT count(*) FROM audit_log WHERE target = ?", (target,)) or 0)
    return int(db.scalar("SELECT count(*) FROM audit_log") or 0)


# A person's re-admission of forgotten content (`write/readmit.py`), as the
# entry that records it.
READMISSION = "tombstone-override"


def head(db: Db) -> tuple[int, str]:
    """(seq, hash) of the log's last entry; (0, "") for an empty log."""
    row = db.execute("SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
    return (int(row[0]), str(row[1])) if row else (0, "")


def hash_at(db: Db, seq: int) -> Any:
    """The hash of entry `seq`, or None when the log does not hold it."""
    row = db.execute("SELECT hash FROM audit_log WHERE seq = ?", (seq,)).fetchone()
    return None if row is None else row[0]


def details(db: Db, action: str, target: str) -> list[str]:
    """The detail (canonical JSON) of every entry of `action` on `target`, in the table's order."""
    sql = "SELECT detail FROM audit_log WHERE action = ? AND target = ?"
    return [row[0] for row in db.execute(sql, (action, target))]


def readmissions(db: Db, ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """Memory id -> its re-admission as a row carries it (`at`, `by`, `reason`,
    `overrides`), for every row a person wrote over tombstones here or that
    arrived carrying one; with `ids`, for those rows only."""
    # The action as a literal, so the partial index `audit_readmissions` serves it.
    sql = f"SELECT target, at, actor, detail FROM audit_log WHERE action = '{READMISSION}'"
    params: list[Any] = []
    if ids is not None:
        sql += " AND target IN (SELECT value FROM json_each(?))"
        params.append(canonical_json(sorted(set(ids))))
    found: dict[str, dict[str, Any]] = {}
    for target, at, actor, detail in db.execute(sql + " ORDER BY seq", params):
        said = _mapping(jsontext.loads(detail))
        held = found.get(str(target))
        before: list[str] = held["overrides"] if held else []
        overrides = sorted({*before, *(str(k) for k in _sequence(said.get("overrides")))})
        found[str(target)] = {
            "at": str(at),
            "by": str(said.get("by") or actor),
            "reason": str(said.get("reason", "")),
            "overrides": overrides,
        }
    return found


# -------------------------------------------------------------- row states
#
# An entry that creates, changes or removes memory rows names each one's state
# after it (`detail["states"]`: id -> `state_hash`, or GONE), so `verify` can
# tell a row that changed without an entry (an UPDATE by hand) from one that
# changed through Tree Ring. An entry that tombstones content lists the keys
# (`detail["tombstones"]`), so a tombstone deleted by hand shows too.

GONE = "gone"
_UPDATED_AT = rows.COLUMNS.index("updated_at")


def state_hash(memory: Memory) -> str:
    """sha256 over every column of the row as stored, but `updated_at`: the
    clock of the change, which the entry's own time records."""
    values = rows.to_values(memory)
    del values[_UPDATED_AT]
    return sha256(jsontext.dumps(values, compact=True))


def states_of(db: Db, memory_ids: Iterable[str]) -> dict[str, str]:
    """The current state of each row (GONE when there is none), for an entry."""
    wanted = list(dict.fromkeys(memory_ids))
    found = {
        row["id"]: state_hash(rows.from_row(row))
        for row in db.execute(
            "SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?))",
            (jsontext.dumps(wanted),),
        )
    }
    return {memory_id: found.get(memory_id, GONE) for memory_id in wanted}


def record(
    db: Db,
    actor: Actor,
    action: str,
    target: str,
    detail: dict[str, Any],
    *,
    changed: Iterable[str] = (),
    at: str | None = None,
) -> None:
    """`append`, with the state each `changed` row is left in."""
    states = states_of(db, changed)
    append(db, actor, action, target, {**detail, "states": states} if states else detail, at=at)


class Verification(Frozen):
    ok: bool
    checked: int
    first_bad: int | None = None  # the first entry found wrong, when an entry is
    problem: str = ""  # the first problem, in words
    problems: tuple[str, ...] = ()  # every problem found (at most MAX_PROBLEMS)
    unanchored: int = 0  # rows last changed before entries named states


MAX_PROBLEMS = 50


def verify(db: Db) -> Verification:
    """Check the chain, then hold the rows and tombstones against it.

    The chain: every entry links to the one before and hashes to what it
    says; seqs run 1, 2, 3, ... with no gap, and the last is the highest seq
    the table ever handed out (so entries cut off the end show). Then every
    memory row must match the state its last entry named, a row named gone
    must be gone, a row with no entry at all is unexplained, and every
    tombstone must be listed by an entry, as every listed one must exist.
    Someone who can write the file can rewrite all of this consistently;
    what this finds is every change made without rewriting the chain.
    """
    problems: list[str] = []
    first_bad: int | None = None

    def bad(message: str, seq: int | None = None) -> None:
        nonlocal first_bad
        if first_bad is None and seq is not None:
            first_bad = seq
        if len(problems) < MAX_PROBLEMS:
            problems.append(message)

    prev_hash = ""
    count = 0
    expected_seq = 1
    last_state: dict[str, tuple[str, int]] = {}
    targets: set[str] = set()
    listed: set[str] = set()
    # Memory id -> (seq, at) of the last entry that tombstoned content as it.
    forgot: dict[str, tuple[int, str]] = {}
    for row in db.execute("SELECT * FROM audit_log ORDER BY seq"):
        count += 1
        seq: int = row["seq"]
        if seq != expected_seq:
            bad(f"entries {expected_seq} to {seq - 1} are missing", seq)
        expected_seq = seq + 1
        if row["prev_hash"] != prev_hash:
            bad(f"entry {seq}: the link to the previous entry is broken", seq)
        fields = (row["action"], row["actor"], row["at"], row["detail"], row["origin"])
        written = tuple(
            json_text(value) for value in (*fields, row["prev_hash"], row["session"], row["target"])
        )
        if row["hash"] != _entry_hash(written):
            bad(f"entry {seq} was changed after it was written", seq)
        prev_hash = row["hash"]
        targets.add(row["target"])
        detail = _detail(row["detail"])
        for memory_id, state in _mapping(detail.get("states")).items():
            last_state[memory_id] = (str(state), seq)
        keys = _sequence(detail.get("tombstones"))
        listed.update(str(key) for key in keys)
        # An import's entry names the import, no memory; a line only the ledger's
        # history holds names none either (`team/ledger_stones.py`).
        target = str(row["target"])
        if keys and row["action"] in _FORGETS and target.startswith("mem_"):
            if not detail.get("history"):
                forgot[target] = (seq, str(row["at"]))
    handed_out = db.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'")
    if handed_out is not None and int(handed_out) != expected_seq - 1:
        bad(
            f"entries {expected_seq} to {int(handed_out)} were removed from the end of the log",
            expected_seq,
        )
    unanchored = 0
    present: set[str] = set()
    for row in db.execute("SELECT * FROM memories"):
        memory = rows.from_row(row)
        present.add(memory.id)
        known = last_state.get(memory.id)
        if known is None:
            if memory.id in targets:
                unanchored += 1  # written before entries named states
            else:
                bad(f"memory {memory.id} has no audit entry")
        elif known[0] == GONE:
            bad(f"memory {memory.id} is present though entry {known[1]} removed it", known[1])
        elif known[0] != state_hash(memory):
            bad(f"memory {memory.id} differs from its state in entry {known[1]}", known[1])
    for memory_id, (state, seq) in last_state.items():
        if state == GONE or memory_id in present:
            continue
        # Every read skips a row holding a value none can use (a hand edit):
        # it is there, and `doctor` names the value.
        if db.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone():
            bad(
                f"memory {memory_id} holds a value no read can use (edited outside Tree Ring; "
                "`tree-ring doctor` names it)",
                seq,
            )
        else:
            bad(f"memory {memory_id} was removed without an audit entry (last: entry {seq})", seq)
    stones = {row[0] for row in db.execute("SELECT content_hash FROM content_tombstones")}
    if stones - listed:
        bad(f"{len(stones - listed)} tombstone(s) are named by no audit entry")
    if listed - stones:
        bad(f"{len(listed - stones)} tombstone(s) named in the audit log are missing")
    # Which memory each was forgotten as (the team ledger says it, line by
    # line): only what a tombstone holds, never a memory this store keeps.
    named = {row[0] for row in db.execute("SELECT DISTINCT content_hash FROM tombstone_ids")}
    if named - stones:
        bad(f"{len(named - stones)} tombstone id record(s) name content no tombstone holds")
    keeps = db.scalar(_NAMES_KEPT)
    if keeps:
        bad(f"{keeps} tombstone id record(s) name a memory this store keeps")
    since = db.scalar("SELECT applied_at FROM schema_migrations WHERE name = ?", (_IDS,))
    ids = {row[0] for row in db.execute("SELECT DISTINCT memory_id FROM tombstone_ids")}
    lost = [
        seq
        for memory_id, (seq, at) in forgot.items()
        if since is not None and at >= since and memory_id not in ids
    ]
    if lost:
        bad(f"{len(lost)} forgotten memory(ies) lost their tombstone id records", min(lost))
    ok = not problems
    return Verification(
        ok, count, first_bad, problems[0] if problems else "", tuple(problems), unanchored
    )


# The entries that tombstone content as the memory they target: a forget here,
# a forget taken from the team ledger (not one only its history holds).
_FORGETS = frozenset({"forget", "tombstone"})
# The migration that records the memories tombstones were recorded as: the
# entries since then each have theirs.
_IDS = "0021_tombstone_ids"
# A tombstone recorded for a memory that stands: none is, but a consolidation
# rewritten in place, whose old text stays tombstoned under its own id.
_NAMES_KEPT = (
    "SELECT count(*) FROM tombstone_ids t JOIN memories m ON m.id = t.memory_id"
    " WHERE m.retired_at IS NULL AND m.redacted_at IS NULL AND m.source_type != 'consolidation'"
)


def _detail(text: str) -> dict[str, Any]:
    try:
        value = jsontext.loads(text)
    except ValueError:
        return {}
    return jsontext.as_object(value) or {}


def _mapping(value: Any) -> dict[str, Any]:
    return jsontext.as_object(value) or {}


def _sequence(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []  # pyright: ignore[reportUnknownVariableType]
