"""Correcting memory: forget (delete or redact) and supersede.

Forgetting keeps the reason, and records a content tombstone (the hash of the
normalised content, per project) so the same text cannot return under a new
id or through an import. Afterwards the FTS index is merged and the WAL
checkpointed, so the forgotten words are gone from the index and, with
`secure_delete`, from the file's free pages too.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_ring import guard
from tree_ring.govern import admission, coordinator
from tree_ring.model.errors import Conflict, UsageError
from tree_ring.model.record import REDACTED, Memory, content_hash, now_iso
from tree_ring.store import audit, rows
from tree_ring.store.audit import Actor
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import pipeline, propagate
from tree_ring.write.pipeline import WriteResult

MAX_REASON = 1_000


def check_reason(reason: str | None) -> str:
    text = (reason or "").strip()
    if not text:
        raise UsageError("a reason is required (--reason); it is kept in the audit log")
    if len(text) > MAX_REASON or any(ord(c) < 32 for c in text):
        raise UsageError(f"the reason must be one line of at most {MAX_REASON} characters")
    guard.check_fields({"reason": text})
    return text


@dataclass(frozen=True)
class Forgotten:
    id: str
    mode: str
    reason: str


def tombstone(db: Db, memory: Memory, kind: str, reason: str, actor: Actor, at: str) -> None:
    db.execute(
        "INSERT INTO content_tombstones"
        "(project, content_hash, kind, reason, memory_id, actor, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(project, content_hash) DO UPDATE SET"
        " kind = excluded.kind, reason = excluded.reason, memory_id = excluded.memory_id,"
        " actor = excluded.actor, created_at = excluded.created_at",
        (
            memory.project or "",
            content_hash(memory.summary, memory.details),
            kind,
            reason,
            memory.id,
            actor.name,
            at,
        ),
    )


def forget(store: Store, memory_id: str, *, mode: str, reason: str, actor: Actor) -> Forgotten:
    if mode not in ("delete", "redact"):
        raise UsageError("--mode must be delete or redact")
    reason = check_reason(reason)
    with store.write() as db:
        forget_in(db, rows.get(db, memory_id), mode, reason, actor, now_iso())
    scrub(store)
    return Forgotten(memory_id, mode, reason)


def forget_in(db: Db, memory: Memory, mode: str, reason: str, actor: Actor, now: str) -> None:
    """The transactional half of forgetting, for every path that removes a memory."""
    memory_id = memory.id
    if memory.redacted_at is not None and mode == "redact":
        raise Conflict(f"{memory_id} is already redacted; use --mode delete to remove it")
    coordinator.authorize(db, f"forget.{mode}", actor, memory_id)
    if memory.redacted_at is None:
        tombstone(db, memory, "forgotten", reason, actor, now)
    if mode == "delete":
        db.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
        # Only a hard delete releases the operation claim and the id.
        db.execute("DELETE FROM operation_claims WHERE memory_id = ?", (memory_id,))
        db.execute("DELETE FROM redaction_tombstones WHERE memory_id = ?", (memory_id,))
    else:
        rows.update(
            db,
            memory_id,
            summary=REDACTED,
            details="",
            tags=(),
            source_ref="",
            source_quote="",
            event_type="redacted",
            sensitivity="private",
            operation_id=None,
            agent_profile=None,
            workflow_id=None,
            session_id=None,
            links=(),
            content_hash=content_hash(REDACTED, ""),
            redacted_at=now,
            retired_at=memory.retired_at or now,
            updated_at=now,
        )
        db.execute(
            "INSERT OR IGNORE INTO redaction_tombstones(memory_id, created_at) VALUES (?, ?)",
            (memory_id, now),
        )
    propagate.forgotten(db, memory, actor, now)  # tree nodes and consolidations over it
    audit.append(db, actor, "forget", memory_id, {"mode": mode, "reason": reason}, at=now)


def scrub(store: Store) -> None:
    """Merge the FTS index so deleted terms leave it, then checkpoint the WAL."""
    with store.write() as db:
        db.execute("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')")
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _not_live(memory: Memory) -> str | None:
    if memory.redacted_at is not None:
        return "it was redacted"
    if memory.trust == "rejected":
        return "it was rejected in review"
    if memory.superseded_by is not None:
        return f"it was already superseded by {memory.superseded_by}"
    if memory.retired_at is not None:
        return "it was retired"
    return None


def closed_validity(old: Memory, new: Memory) -> str:
    """Where the old fact's validity ends once `new` replaces it.

    A replacement that starts to hold after the old fact did is a change in the
    world: the old fact held until then. One that held from the old fact's
    start (or before) is a correction: the old fact never held, an empty
    interval. An end the old row already had is kept if it is earlier.
    """
    end = new.valid_from if new.valid_from > old.valid_from else old.valid_from
    if old.valid_to is not None and old.valid_to < end:
        end = old.valid_to
    return end


def supersede_in(db: Db, old: Memory, new_id: str, reason: str, actor: Actor, at: str) -> bool:
    """Replace `old` by `new_id`; True if it took effect, False if it waits.

    Both rows must be live and in one project. While the new row is pending or
    disputed the replacement is recorded on it (`supersedes`) and takes effect
    when a reviewer approves it, so the store never believes neither. An agent
    may retire only what it wrote itself (governance.owns); anything else is a
    person's decision, or the coordinator's.
    """
    if old.id == new_id:
        raise UsageError("a memory cannot supersede itself")
    problem = _not_live(old)
    if problem is not None:
        raise Conflict(f"{old.id} cannot be superseded: {problem}")
    new = rows.get(db, new_id)
    if new.project != old.project:
        raise UsageError(f"{new_id} belongs to another project; it cannot supersede {old.id}")
    problem = _not_live(new)
    if problem is not None:
        raise Conflict(f"{new_id} cannot supersede anything: {problem}")
    detail: dict[str, str] = {"superseded_by": new_id, "reason": reason}
    takes_effect = new.trust == "accepted"
    if takes_effect:
        shared = admission.is_agent(actor) and not admission.owns(old, actor)
        coordinator.authorize(db, "supersede.shared" if shared else "supersede", actor, old.id)
        detail["valid_to"] = closed_validity(old, new)
        rows.update(
            db,
            old.id,
            superseded_by=new_id,
            valid_to=detail["valid_to"],
            retired_at=at,
            updated_at=at,
        )
    else:
        detail["waits_for"] = f"review of {new_id}"
    if old.id not in new.supersedes:
        rows.update(db, new_id, supersedes=(*new.supersedes, old.id), updated_at=at)
    audit.append(db, actor, "supersede", old.id, detail, at=at)
    return takes_effect


def may_retire(db: Db, memory: Memory, actor: Actor) -> bool:
    """Whether `actor` may retire `memory` now: a person, the coordinator, or
    an agent retiring what it wrote itself (`supersede_in` applies the same rule)."""
    return (
        not admission.is_agent(actor)
        or admission.owns(memory, actor)
        or coordinator.holds(db, actor)
    )


def retire_in(db: Db, memory: Memory, reason: str, actor: Actor, at: str) -> str:
    """Retire a live row that nothing replaces: its source no longer says it.

    The row stays on record (`--as-of` still finds it) with its validity
    closed at `at`, and the audit log keeps the reason. Returns where validity
    ended. An agent may retire only what it wrote itself, as with supersession.
    """
    problem = _not_live(memory)
    if problem is not None:
        raise Conflict(f"{memory.id} cannot be retired: {problem}")
    shared = admission.is_agent(actor) and not admission.owns(memory, actor)
    coordinator.authorize(db, "supersede.shared" if shared else "supersede", actor, memory.id)
    end = at if at > memory.valid_from else memory.valid_from
    if memory.valid_to is not None and memory.valid_to < end:
        end = memory.valid_to
    rows.update(db, memory.id, valid_to=end, retired_at=at, updated_at=at)
    audit.append(db, actor, "retire", memory.id, {"reason": reason, "valid_to": end}, at=at)
    return end


def supersede(store: Store, old_id: str, new_id: str, *, reason: str, actor: Actor) -> bool:
    reason = check_reason(reason)
    now = now_iso()
    with store.write() as db:
        return supersede_in(db, rows.get(db, old_id), new_id, reason, actor, now)


def remember_superseding(store: Store, memory: Memory, old_id: str, actor: Actor) -> WriteResult:
    """`remember --supersedes ID`: the new row and the link commit together.

    The new row names the old one in `supersedes` before it is admitted, so
    governance sees what it replaces, contradiction checks skip it, and an
    exact retry (same operation id) repeats the same payload.
    """
    if old_id not in memory.supersedes:
        memory = memory.replace(supersedes=(*memory.supersedes, old_id))
    memory = pipeline.prepare(memory)
    with store.write() as db:
        old = rows.get(db, old_id)
        if old.project != memory.project:
            raise UsageError(f"{old_id} belongs to another project; it cannot be superseded here")
        result = pipeline.insert_prepared(db, memory, actor)
        if not result.created:
            return result  # an exact retry: the first call made the link
        supersede_in(db, old, result.id, "replaced by a newer memory", actor, memory.created_at)
    return result
