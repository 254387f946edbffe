"""`remember --override-tombstone --reason`: a person admits forgotten content again.

Nothing forgotten comes back on its own; this is the one way a person brings
a claim back, and it never makes the claim believed at once. The memory is
stored `pending`, so it waits in the review queue like any unvouched write,
and an audit entry (`tombstone-override`) names the tombstones it was written
over, the memories they were recorded for and the person's reason. `review
approve` then accepts it, letting through those tombstones only, read from
that entry. The tombstones stay: anyone else writing the same claim is still
refused.

A row this store keeps can be re-admitted as it stands (`review readmit
ID`, `readmit_kept`), and a `remember --override-tombstone` of content a row
already holds in the same place (`rows.content_key`) re-admits that row
rather than writing a copy beside it. The audit entry names the row, which
keeps its trust: a person stands behind it here already, and a waiting row
still waits for `review approve`, which reads the entry. This is how a
memory the team's tombstones refuse elsewhere (a forget that raced its
write: `tree-ring doctor` names it) comes to travel under its own id. A copy
would leave the original's line for every clone to drop and for the clones
that keep it to write back at every sync.

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
from collections.abc import Mapping, Sequence
from typing import Any

from tree_ring.model import imported
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict, Denied, UsageError
from tree_ring.model.record import (
    MAX_REF,
    PRIVATE_SCOPES,
    Memory,
    compiled_patterns,
    now_iso,
    parse_time,
)
from tree_ring.store import audit, live, rows, tombstones
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct, pipeline
from tree_ring.write.pipeline import WriteResult

ACTION = audit.READMISSION
# Where a re-admission's reason goes, as a refusal of it says (`reasons.kept`).
TRAVELS = "travels with the re-admission to every clone"


# Tombstones held elsewhere (the team ledger's, `ledger_check.refusals`):
# content_hash, memory_id and kind each.
Refusing = Sequence[Mapping[str, Any]]


def remember_over_tombstone(
    store: Store,
    memory: Memory,
    actor: Actor,
    reason: str | None,
    elsewhere: Refusing = (),
    around: tuple[Db, str] | None = None,
) -> WriteResult:
    """Write `memory` over the tombstones that refuse it: those of this
    store, and those of `elsewhere` that name its content (as `readmit_kept`).
    `around`: the store and id of the project a user-store write is made
    from, whose forgets the reason may not quote either (as `readmit_kept`)."""
    _person_only(actor, "--override-tombstone")
    reason = correct.check_reason(reason)
    memory = pipeline.prepare(memory)
    with store.write() as db:
        stones = _refusing(db, memory, elsewhere)
        if not stones:
            raise UsageError(
                "nothing to override: this content was never forgotten or rejected; "
                "store it with remember, without --override-tombstone"
            )
        _travelling_reason(db, memory.project or "", reason, around)
        kept = rows.standing_with_content(db, [memory]).get(rows.content_key(memory))
        if kept is not None:
            row = rows.get(db, kept)
            _not_forgotten_itself(row, stones)
            return _readmitted(db, row, stones, actor, reason, memory.created_at)
        forgotten = list(dict.fromkeys(str(s["memory_id"]) for s in stones))
        memory = memory.replace(
            trust="pending",
            review_reason=f"written over the tombstone of {', '.join(forgotten)}: {reason}",
        )
        keys = frozenset(str(s["content_hash"]) for s in stones)
        result = pipeline.insert_prepared(db, memory, actor, overriding=keys)
        if result.created:
            audit.append(
                db, actor, ACTION, result.id, _detail(stones, reason), at=memory.created_at
            )
    return result


def readmit_kept(
    store: Store,
    memory_id: str,
    actor: Actor,
    reason: str | None,
    elsewhere: Refusing = (),
    around: tuple[Db, str] | None = None,
) -> WriteResult:
    """`review readmit ID`: a row this store keeps, re-admitted as it stands
    over the tombstones its content matches: those of this store, and those
    of `elsewhere` (the team ledger's, read before the write begins).
    `around`: the store and id of the project a user-store row is re-admitted
    from (whose tombstones the store answers to, `tombstones.answer_to`):
    the reason may not quote what it forgot either (its reads and exports
    of the user store show the reason)."""
    _person_only(actor, "re-admitting")
    reason = correct.check_reason(reason)
    at = now_iso()
    with store.write() as db:
        row = rows.get(db, memory_id)
        if not live.python(live.STANDING, {"live_t": at})(row):
            raise Conflict(
                f"{row.id} is no longer kept (retired, redacted, superseded or rejected); "
                "only a memory that stands can be re-admitted as it is"
            )
        if row.scope in PRIVATE_SCOPES:
            raise Conflict(
                f"{row.id} is in its {row.scope} partition, which never travels: no clone "
                "refuses it, so there is nothing to re-admit"
            )
        stones = _refusing(db, row, elsewhere)
        if not stones:
            raise UsageError(
                f"nothing to re-admit: no tombstone here or in the team ledger refuses "
                f"{row.id}'s content; run `tree-ring sync` first if a teammate's forget "
                "is not in this store yet"
            )
        _not_forgotten_itself(row, stones)
        _travelling_reason(db, row.project or "", reason, around)
        return _readmitted(db, row, stones, actor, reason, at)


def _not_forgotten_itself(row: Memory, stones: Sequence[Mapping[str, Any]]) -> None:
    """Refuse to re-admit a row whose own id a tombstone names: every clone
    refuses that id for ever, so its words must travel under another."""
    if row.id in {str(s["memory_id"]) for s in stones}:
        raise Conflict(
            f"{row.id} itself was forgotten, and a forgotten id never comes back: forget it "
            f"here too (`tree-ring forget {row.id} --mode delete --reason WHY`), then write its "
            "words again under a new id (`tree-ring remember TEXT --override-tombstone "
            "--reason WHY`, and `tree-ring review approve` it)"
        )


def _refusing(db: Db, memory: Memory, elsewhere: Refusing) -> list[Mapping[str, Any]]:
    """The tombstones that refuse `memory`: this store's, then `elsewhere`'s."""
    keys = tombstones.check_keys(memory)
    held = set(keys)
    return [
        *tombstones.find_all(db, memory.project, keys),
        *(stone for stone in elsewhere if stone["content_hash"] in held),
    ]


def _travelling_reason(
    db: Db, project: str, reason: str, around: tuple[Db, str] | None = None
) -> None:
    """Refuse a reason that quotes what the project forgot (`reasons.kept`):
    it travels with the row, in its ledger line and its export row, to every
    clone. For a user-store row, what the project it is written from
    (`around`) forgot too: that project's reads and exports of the user
    store show it."""
    from tree_ring.govern import reasons

    reasons.kept(db, project, reason, TRAVELS, around)


def _person_only(actor: Actor, what: str) -> None:
    if actor.origin.is_agent:
        raise Denied(
            f"{what} is a person's decision; {actor.origin.kind} may not "
            "bring forgotten content back (a person can, at a terminal)"
        )


def _detail(stones: Sequence[Mapping[str, Any]], reason: str) -> dict[str, Any]:
    """The audit entry's detail: why, the tombstones written over and whose they were."""
    return {
        "reason": reason,
        "overrides": sorted({str(s["content_hash"]) for s in stones}),
        "forgotten": list(dict.fromkeys(str(s["memory_id"]) for s in stones)),
        "kinds": sorted({str(s["kind"]) for s in stones}),
    }


def _readmitted(
    db: Db, row: Memory, stones: Sequence[Mapping[str, Any]], actor: Actor, reason: str, at: str
) -> WriteResult:
    """Re-admit a standing row: the audit entry its ledger line and exports carry."""
    from tree_ring.store.user import USER_PROJECT

    audit.append(db, actor, ACTION, row.id, _detail(stones, reason), at=at)
    return WriteResult(
        row.id,
        False,
        row.trust,
        row.sensitivity,
        row.review_reason,
        readmitted=True,
        shared=row.project != USER_PROJECT,
    )


def overridden(db: Db, memory_id: str) -> list[str]:
    """The tombstone keys a person wrote `memory_id` over, from the audit log."""
    keys: list[str] = []
    for detail in audit.details(db, ACTION, memory_id):
        keys += [str(k) for k in json.loads(detail).get("overrides", [])]
    return keys


CARRIED = "readmitted"  # the key an export row or a ledger line carries it under


def carried(db: Db, project: str) -> dict[str, dict[str, Any]]:
    """Memory id -> its re-admission as a row of `project` carries it, for
    every row a person wrote over tombstones here or that arrived carrying
    one: its reason with what the project forgot since withheld
    (`govern/reasons.py`), as every read shows it."""
    from tree_ring.govern import reasons

    return reasons.readmissions_shown(db, project, audit.readmissions(db))


def parse_carried(value: Any) -> dict[str, Any] | None:
    """A carried re-admission checked as strictly as a write: its text by the
    guard, its keys by shape; None when the row carries none."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise UsageError(f"{CARRIED} must be an object with at, by, reason and overrides")
    data: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    if "overrides" not in data:
        raise UsageError(
            f"{CARRIED} has no overrides: it lists the tombstone keys it re-admits "
            "(sha256:<hex>, 1 to 1,000)"
        )
    keys: Any = data["overrides"]
    if not isinstance(keys, list) or not keys or len(keys) > 1_000:  # pyright: ignore[reportUnknownArgumentType]
        raise UsageError(f"{CARRIED}.overrides lists the tombstone keys (sha256:<hex>, 1 to 1,000)")
    shape = compiled_patterns().content_hash
    hashes: list[str] = [k for k in keys if isinstance(k, str) and shape.match(k)]  # pyright: ignore[reportUnknownVariableType]
    if len(hashes) != len(keys):  # pyright: ignore[reportUnknownArgumentType]
        raise UsageError(f"{CARRIED}.overrides lists sha256:<hex> keys only")
    return {
        "at": parse_time(imported.text(data.get("at"), f"{CARRIED}.at"), f"{CARRIED}.at"),
        "by": correct.check_reason(imported.text(data.get("by"), f"{CARRIED}.by")),
        "reason": correct.check_reason(imported.text(data.get("reason"), f"{CARRIED}.reason")),
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
    audit entry (what `overridden` and `review approve` read). Its reason
    keeps none of what this store forgot: a line written before a forget had
    reached its clone can quote it."""
    from tree_ring.govern import reasons

    row = rows.find(db, memory_id)
    reason = str(readmission["reason"])
    if row is not None:
        reason = reasons.Withholding(db).reason(row.project or "", reason)
    detail: dict[str, Any] = {
        "reason": reason,
        "overrides": readmission["overrides"],
        "forgotten": list[str](),
        "kinds": list[str](),
        "by": readmission["by"],
    }
    audit.append(db, actor, ACTION, memory_id, detail, at=readmission["at"])
