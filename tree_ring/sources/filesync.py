"""Syncing memory from files the project already keeps (`dox sync`, `revolve sync`).

An adapter (dox.py, revolve.py) turns files into memories, read by
`sources`; this module does the rest, the same way for every adapter:

- a plan against the rows earlier syncs wrote: a key whose newest row says
  the same is unchanged; a changed one is a new row that supersedes the old
  (validity closed when the new one starts to hold); a key that is gone is
  paired with a new key of the same group (a renumbered section, an outcome
  that changed) and superseded by it, or else retired; a key still there
  whose new text is refused (skipped) keeps its row as it was, held. Nothing
  is deleted.
  A key's first row has its stable id; a later version takes the next free
  `_rN` suffix, free meaning no row and no tombstone or redaction ever had
  it (`synced.taken`): a forgotten row's id never comes back.
- a row whose words are new but whose details (what the adapter writes
  beside them: the file, the heading) are those of a row that was forgotten
  or rejected says which revision of its key it is, in one more sentence of
  its details (`_revised`), so the tombstone of the forgotten words does not
  refuse the new ones. Words still forgotten stay refused.
- applying it in one transaction through the write path, so the guard,
  tombstones, trust and the audit log apply as to any write. Who runs the
  sync decides trust (`admission`): a person's heartwood is accepted, an
  agent's waits for review, and an agent cannot retire or replace what a
  person synced. A dry run reports the plan and writes nothing.

Files outside what this run read are left alone: a sync of one folder, a
file over its cap or one past `max_files` never retires another file's rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tree_ring.govern import admission, coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, canonical_json, now_iso
from tree_ring.sources.files import Adapter, Scan, stable_id
from tree_ring.store import rows, synced, tombstones
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct, pipeline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.progress import Progress

# -- the plan -----------------------------------------------------------------

# Why a row whose source now holds text that cannot be stored stays.
HELD_REFUSED = "its source now holds text that is not stored (see skipped); this row is kept"


@dataclass(frozen=True)
class Change:
    kind: str  # create | update | unchanged | retire | held | forgotten
    key: str
    memory: Memory | None = None  # the new row (create, update)
    old: tuple[Memory, ...] = ()  # the rows it replaces or retires, or keeps
    reason: str = ""  # why a row would wait, stay, or be retired


@dataclass
class Plan:
    adapter: str
    scan: Scan
    changes: list[Change] = field(default_factory=lambda: [])

    def of(self, kind: str) -> list[Change]:
        return [change for change in self.changes if change.kind == kind]


def _current(db: Db, adapter: Adapter, project: str) -> dict[str, list[Memory]]:
    """Rows earlier syncs wrote that are still current, by key, oldest first."""
    found: dict[str, list[Memory]] = {}
    for row in synced.current(db, project, adapter.name):
        memory = rows.from_row(row)
        found.setdefault(adapter.key_of(memory), []).append(memory)
    return found


def _same(a: Memory, b: Memory) -> bool:
    return (a.content_hash, a.ring, a.event_type, a.source_ref, a.source_quote) == (
        b.content_hash,
        b.ring,
        b.event_type,
        b.source_ref,
        b.source_quote,
    )


def _in_scope(adapter: Adapter, scan: Scan, memory: Memory) -> bool:
    """Whether this run may retire `memory`: its file was read, or is gone."""
    file = adapter.file_of(memory)
    if scan.prefix and file != scan.prefix and not file.startswith(scan.prefix + "/"):
        return False
    if file in scan.read:
        return True
    path = scan.base / file
    return not (path.is_file() and not path.is_symlink())


def plan(db: Db, adapter: Adapter, scan: Scan, project: str, actor: Actor) -> Plan:
    result = Plan(adapter.name, scan)
    current = _current(db, adapter, project)
    fresh: list[Memory] = []
    for memory in scan.memories:
        key = adapter.key_of(memory)
        old = current.pop(key, [])
        if old and _same(old[-1], _as_kept(memory, old[-1], key)):
            result.changes.append(Change("unchanged", key, None, (old[-1],)))
        elif old:
            result.changes.append(Change("update", key, memory, tuple(old)))
        else:
            fresh.append(memory)
    # A key that is gone but has a new key in its group was renumbered or
    # reclassified: the new row replaces it rather than standing beside it.
    leftover: dict[str, list[str]] = {}
    for key, old in current.items():
        if _in_scope(adapter, scan, old[-1]) and key not in scan.gone:
            leftover.setdefault(adapter.group_of(old[-1]), []).append(key)
    for memory in fresh:
        keys = leftover.get(adapter.group_of(memory))
        old = current.pop(keys.pop(0)) if keys else []
        result.changes.append(
            Change("update" if old else "create", adapter.key_of(memory), memory, tuple(old))
        )
    for key, old in current.items():
        if not _in_scope(adapter, scan, old[-1]):
            continue
        if key in scan.gone:
            # Its source is still there but now holds text that cannot be
            # stored (an invisible character, a secret): the earlier row
            # stays as it was, so one character added to a file cannot take
            # a rule out of every brief. Fixed, it updates; removed, it retires.
            result.changes.append(Change("held", key, None, tuple(old), HELD_REFUSED))
        else:
            result.changes.append(Change("retire", key, None, tuple(old), "gone from its source"))
    _assign_ids(db, adapter, result)
    _check(db, project, result, actor)
    return result


def _assign_ids(db: Db, adapter: Adapter, result: Plan) -> None:
    """The key's stable id, or its next `_rN` version when that is taken."""
    taken = synced.taken(db, adapter.name)
    for index, change in enumerate(result.changes):
        if change.memory is None:
            continue
        base = stable_id(adapter.name, change.key)
        memory_id, version = base, 1
        while memory_id in taken:
            version += 1
            memory_id = f"{base}_r{version}"
        supersedes = tuple(old.id for old in change.old)
        memory = change.memory.replace(id=memory_id, supersedes=supersedes)
        result.changes[index] = Change(change.kind, change.key, memory, change.old)


def _version(memory_id: str) -> int:
    """The revision an id names: 1 for a key's stable id, N for `ID_rN`."""
    head, _, tail = memory_id.rpartition("_r")
    return int(tail) if head and tail.isdigit() and tail[0] != "0" else 1


def _revised(memory: Memory, key: str) -> Memory:
    """`memory` with a sentence naming its revision of `key` after its details.

    A forget or a rejection tombstones a row's details whole, and an
    adapter's details come from its file and heading (or outcome) alone
    (`Source AGENTS.md remains authoritative ... Heading: Rules.`), so that
    tombstone would refuse every later text of the key, and of any key with
    the same heading in the file. The sentence makes the details this row's
    own: its id is never taken again, so neither are they.
    It has more words than a write's check trims off either end
    (`tombstones.TRIM`), so the forgotten details are not found inside it."""
    sentence = f"This is revision {_version(memory.id)} of {key}."
    return memory.replace(details=f"{memory.details} {sentence}").with_hash()


def _as_kept(memory: Memory, row: Memory, key: str) -> Memory:
    """`memory` (read from its source, no id yet) as `row`, the key's current
    row, was written: with `row`'s revision sentence when `row` has one."""
    if row.details == memory.details:
        return memory
    revised = _revised(memory.replace(id=row.id), key)
    return revised.replace(id=memory.id) if revised.details == row.details else memory


def _stone(db: Db, project: str, result: Plan, memory: Memory) -> Any:
    """The first tombstone that refuses `memory`, read as a write of it is
    (`tombstones.check_keys`) and line by line, or None."""
    keys = tombstones.check_keys(memory)
    for line in result.scan.lines.get(memory.source_ref, ()):
        keys += tombstones.keys(line.lstrip("-*").strip(), "")
    return tombstones.find(db, project, keys)


def _refusal(db: Db, project: str, result: Plan, memory: Memory, stone: Any) -> str:
    """Why `memory` is not stored: its words were forgotten (or rejected),
    or, when none of them were, the source ref its earlier text was
    forgotten with (a forget before synced rows kept their refs writable)."""
    words = tombstones.keys(memory.summary, "", [memory.source_quote])
    for line in result.scan.lines.get(memory.source_ref, ()):
        words += tombstones.keys(line.lstrip("-*").strip(), "")
    found = tombstones.find(db, project, words)
    if found is not None:
        return str(tombstones.refused(found))
    ref = memory.source_ref
    place = tombstones.find(db, project, tombstones.keys("", "", [ref]))
    if place is not None:
        return (
            f"its words are not forgotten, but its source ref {ref} was, with "
            f"{place['memory_id']} on {place['created_at'][:19]}Z; `tree-ring audit "
            f"--target {place['memory_id']}` shows why"
        )
    return str(tombstones.refused(stone))


def _check(db: Db, project: str, result: Plan, actor: Actor) -> None:
    """What tombstones refuse, what would wait for review, what this actor may not retire."""
    for index, change in enumerate(result.changes):
        memory = change.memory
        if memory is not None:
            if _stone(db, project, result, memory) is not None:
                # Refused as read: with details of its own (`_revised`), only
                # what its words hold can refuse it.
                memory = _revised(memory, change.key)
                stone = _stone(db, project, result, memory)
                if stone is not None:
                    reason = _refusal(db, project, result, memory, stone)
                    result.changes[index] = Change(
                        "forgotten", change.key, memory, change.old, reason
                    )
                    continue
            waits = admission.waiting_reason(db, memory, actor)
            result.changes[index] = Change(change.kind, change.key, memory, change.old, waits or "")
        elif change.kind == "retire" and not all(
            correct.may_retire(db, old, actor) for old in change.old
        ):
            reason = f"{actor.origin.kind} may not retire what it did not sync; a person must"
            result.changes[index] = Change("held", change.key, None, change.old, reason)


# -- applying it ---------------------------------------------------------------


@dataclass(frozen=True)
class Written:
    kind: str
    key: str
    id: str
    trust: str
    replaces: tuple[str, ...] = ()
    reason: str = ""


def apply_in(db: Db, result: Plan, actor: Actor) -> list[Written]:
    """Write the plan; the caller holds the transaction that planned it.

    The new rows go in as one batch through the bulk path (one FTS pass at its
    end), each one still admitted, checked and audited as a single write is;
    then each replaces the rows it names, and what is gone is retired.
    """
    writes = [c for c in result.changes if c.kind in ("create", "update", "retire")]
    if not writes:
        return []
    now = now_iso()
    keys = sorted(change.key for change in writes)
    coordinator.authorize(db, f"sync.{result.adapter}", actor, canonical_json(keys))
    fresh = [change for change in writes if change.memory is not None]
    memories = [change.memory for change in fresh if change.memory is not None]
    outcomes = pipeline.insert_prepared_many(db, memories, actor, action="sync", bulk=True)
    written: list[Written] = []
    for change, outcome in zip(fresh, outcomes, strict=True):
        for old in change.old:
            why = f"{result.adapter} sync: {change.key} changed in its source"
            correct.supersede_in(db, old, outcome.id, why, actor, now)
        old_ids = tuple(old.id for old in change.old)
        reason = outcome.review_reason or ""
        written.append(Written(change.kind, change.key, outcome.id, outcome.trust, old_ids, reason))
    for change in writes:
        if change.memory is None:
            for old in change.old:
                correct.retire_in(db, old, f"{result.adapter} sync: {change.reason}", actor, now)
            old_ids = tuple(old.id for old in change.old)
            written.append(
                Written("retire", change.key, old_ids[-1], "retired", old_ids, change.reason)
            )
    return written


# What a file sync tells its progress: the sources read, the plan, the writes.
STEPS = 3


def run(
    store: Store,
    adapter: Adapter,
    scan: Scan,
    project: str,
    actor: Actor,
    *,
    dry_run: bool,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Plan against the store and, unless this is a dry run, write the plan;
    `progress` is told each step (the scan is the caller's, already done)."""
    what = f"{adapter.name} sync"
    if progress is not None:
        progress(f"{what}: {len(scan.memories)} read", 1, STEPS)
    if dry_run:
        planned = plan(store.db, adapter, scan, project, actor)
        if progress is not None:
            progress(f"{what}: planned", STEPS, STEPS)
        return report(planned, None, dry_run=True)
    with store.write() as db:
        planned = plan(db, adapter, scan, project, actor)
        if progress is not None:
            progress(f"{what}: planned", 2, STEPS)
        written = apply_in(db, planned, actor)
    if progress is not None:
        progress(f"{what}: written", STEPS, STEPS)
    return report(planned, written, dry_run=False)


# An adapter's reading of its files: (source root, project root, identity, actor) -> Scan.
Collect = Callable[[Path, Path, Identity, Actor], Scan]


def sync(
    adapter: Adapter,
    collect: Collect,
    store: Store,
    source_root: Path,
    identity: Identity,
    actor: Actor,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """One adapter's sync: read the files under `source_root`, then `run`.
    Each adapter binds its own first two arguments (`dox.sync`, `revolve.sync`)."""
    scan = collect(source_root, store.root, identity, actor)
    return run(store, adapter, scan, identity.project, actor, dry_run=dry_run, progress=progress)


def compose(identity: Identity, actor: Actor, now: str, **fields: Any) -> Memory:
    """A synced row as the caller writes it; its id comes from the plan."""
    return Memory(
        id="mem_unassigned",
        valid_from=now,
        **actor.stamp(identity, now),
        **fields,
    )


def report(result: Plan, written: list[Written] | None, *, dry_run: bool) -> dict[str, Any]:
    """The run as one JSON document: what changed (or would), and what was left out."""
    scan = result.scan

    def entry(change: Change) -> dict[str, Any]:
        # The new row, or (unchanged, retired, held) the row it is about.
        row = change.memory or change.old[-1]
        return {
            "key": change.key,
            "id": row.id,
            "ring": row.ring,
            "reason": change.reason,
            "replaces": [old.id for old in change.old] if change.memory else [],
        }

    done = {(w.kind, w.key): w for w in written or []}
    changes: dict[str, list[dict[str, Any]]] = {}
    for change in result.changes:
        item = entry(change)
        applied = done.get((change.kind, change.key))
        if applied is not None:
            item |= {"id": applied.id, "trust": applied.trust, "reason": applied.reason}
        changes.setdefault(change.kind, []).append(item)
    return {
        "adapter": result.adapter,
        "dry_run": dry_run,
        "source_root": str(scan.root),
        "files_read": len(scan.read),
        "capped": scan.capped,
        "unlisted": scan.unlisted,
        "changes": {kind: changes.get(kind, []) for kind in KINDS},
        "skipped": [{"where": s.where, "reason": s.reason} for s in scan.skipped],
        "waiting_for_review": sum(
            _waits(item) for kind in ("create", "update") for item in changes.get(kind, [])
        ),
    }


def _waits(item: dict[str, Any]) -> bool:
    """Written: its trust says; planned: a reason to wait means it would."""
    if "trust" in item:
        return item["trust"] != "accepted"
    return bool(item["reason"])


KINDS = ("create", "update", "retire", "unchanged", "held", "forgotten")
