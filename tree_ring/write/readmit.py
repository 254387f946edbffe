"""`remember --override-tombstone --reason`: a person admits forgotten content again.

Nothing forgotten comes back on its own; this is the one way a person brings
a claim back, and it never makes the claim believed at once. The memory is
stored `pending`, so it waits in the review queue like any unvouched write,
and an audit entry (`tombstone-override`) names the tombstones it was written
over, the memories they were recorded for and the person's reason. `review
approve` then accepts it, letting through those tombstones only, read from
that entry. The tombstones stay: anyone else writing the same claim is still
refused.

Only a person: an agent's override is refused whatever it holds, because
deciding that forgotten content may return is the decision forgetting
protects. Content with no tombstone is refused too: the flag promises a
pending row and an audit entry, and plain `remember` is the verb for the rest.

The re-admission travels with the row (`carried`): an export row and a team
ledger line hold it under `readmitted` (who, when, why, and the tombstone
keys it was written over). Where the row comes through a channel that can
vouch for a person (a person's import, the upstream's ledger) the store takes
the re-admission too (`take_carried`), recording it as its own audit entry;
from anywhere else (an agent's import, a ledger line this clone cannot trace
upstream) it is only words, and the tombstones refuse the row as before.
"""

from __future__ import annotations

import json
from typing import Any

from tree_ring.model.actor import Actor
from tree_ring.model.errors import Denied, UsageError
from tree_ring.model.record import MAX_REF, Memory, compiled_patterns, parse_time
from tree_ring.store import audit, tombstones
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct, pipeline
from tree_ring.write.pipeline import WriteResult

ACTION = audit.READMISSION


def remember_over_tombstone(
    store: Store, memory: Memory, actor: Actor, reason: str | None
) -> WriteResult:
    if actor.origin.is_agent:
        raise Denied(
            f"--override-tombstone is a person's decision; {actor.origin.kind} may not "
            "bring forgotten content back (a person can, at a terminal)"
        )
    reason = correct.check_reason(reason)
    memory = pipeline.prepare(memory)
    with store.write() as db:
        stones = tombstones.find_all(db, memory.project, tombstones.check_keys(memory))
        if not stones:
            raise UsageError(
                "nothing to override: this content was never forgotten or rejected; "
                "store it with remember, without --override-tombstone"
            )
        forgotten = list(dict.fromkeys(str(s["memory_id"]) for s in stones))
        memory = memory.replace(
            trust="pending",
            review_reason=f"written over the tombstone of {', '.join(forgotten)}: {reason}",
        )
        keys = frozenset(str(s["content_hash"]) for s in stones)
        result = pipeline.insert_prepared(db, memory, actor, overriding=keys)
        if result.created:
            detail = {
                "reason": reason,
                "overrides": sorted(keys),
                "forgotten": forgotten,
                "kinds": sorted({str(s["kind"]) for s in stones}),
            }
            audit.append(db, actor, ACTION, result.id, detail, at=memory.created_at)
    return result


def overridden(db: Db, memory_id: str) -> list[str]:
    """The tombstone keys a person wrote `memory_id` over, from the audit log."""
    keys: list[str] = []
    for detail in audit.details(db, ACTION, memory_id):
        keys += [str(k) for k in json.loads(detail).get("overrides", [])]
    return keys


CARRIED = "readmitted"  # the key an export row or a ledger line carries it under


def carried(db: Db) -> dict[str, dict[str, Any]]:
    """Memory id -> its re-admission as a row carries it, for every row a
    person wrote over tombstones here or that arrived carrying one."""
    return audit.readmissions(db)


def parse_carried(value: Any) -> dict[str, Any] | None:
    """A carried re-admission checked as strictly as a write: its text by the
    guard, its keys by shape; None when the row carries none."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise UsageError(f"{CARRIED} must be an object with at, by, reason and overrides")
    data: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    keys: Any = data.get("overrides")
    if not isinstance(keys, list) or not keys or len(keys) > 1_000:  # pyright: ignore[reportUnknownArgumentType]
        raise UsageError(f"{CARRIED}.overrides lists the tombstone keys (sha256:<hex>, 1 to 1,000)")
    shape = compiled_patterns().content_hash
    hashes: list[str] = [k for k in keys if isinstance(k, str) and shape.match(k)]  # pyright: ignore[reportUnknownVariableType]
    if len(hashes) != len(keys):  # pyright: ignore[reportUnknownArgumentType]
        raise UsageError(f"{CARRIED}.overrides lists sha256:<hex> keys only")
    return {
        "at": parse_time(str(data.get("at", "")), f"{CARRIED}.at"),
        "by": correct.check_reason(str(data.get("by") or "")),
        "reason": correct.check_reason(str(data.get("reason") or "")),
        "overrides": sorted(set(hashes)),
    }


def waiting_here(
    db: Db, memory: Memory, readmission: dict[str, Any], brought: frozenset[str]
) -> Memory | None:
    """A carried re-admission of content forgotten here: the row as it waits,
    pending, for a person's review here; None when none of its keys is
    tombstoned here but by what the same import `brought` (the tombstones of
    the file it came with). Here is this store and the store it answers to
    (`tombstones.answered`: for a project, the person's user store), as for
    any write into it. A file vouches for where it was written, never for
    what was forgotten here."""
    checked = [key for key in tombstones.check_keys(memory) if key not in brought]
    if not tombstones.answered(db, memory.project or "", checked):
        return None
    why = "forgotten here, and re-admitted where it was exported by {by}: {reason}"
    return memory.replace(
        trust="pending",
        reviewed_by=None,
        reviewed_at=None,
        review_reason=why.format_map(readmission)[:MAX_REF],
    )


def take_carried(db: Db, actor: Actor, memory_id: str, readmission: dict[str, Any]) -> None:
    """Record a re-admission a trusted channel carried in, as this store's own
    audit entry (what `overridden` and `review approve` read)."""
    detail: dict[str, Any] = {
        "reason": readmission["reason"],
        "overrides": readmission["overrides"],
        "forgotten": list[str](),
        "kinds": list[str](),
        "by": readmission["by"],
    }
    audit.append(db, actor, ACTION, memory_id, detail, at=readmission["at"])
