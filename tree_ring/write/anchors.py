"""Anchoring a memory to files, and a person's confirm that re-anchors it.

`resolve` turns the paths a caller gave (`remember --file`, MCP `files`) into
anchors, refusing with a one-line error anything that is not a plain file
inside the project; `from_turn` does the same, quietly, for the files the
Stop hook found a turn changing (`model/turn_files.py`). The write verbs
store them with the memory, in its transaction.

`confirm` is a person saying "still true of the files as they are now": the
anchors are measured again (a file that is gone, or is no longer a regular
file, drops out). An agent's
confirm raises what the memory is trusted for, so it waits for a person as
an agent's forget does: a request (`write/requests.py`, mode `confirm`) that
`review approve` carries out.
"""

from __future__ import annotations

import re

from tree_ring import guard
from tree_ring.govern import admission, coordinator, reasons
from tree_ring.model import gitdir, turn_files
from tree_ring.model.actor import Actor
from tree_ring.model.anchor import MAX_FILES, Anchor, measure, measure_file, normalise
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.frozen import Frozen
from tree_ring.model.record import Memory, now_iso
from tree_ring.store import anchors as stored
from tree_ring.store import audit, rows
from tree_ring.write import requests

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db

CONFIRM = "confirm"  # the request mode of an agent's confirm


def check_count(count: int) -> None:
    if count > MAX_FILES:
        raise UsageError(
            f"{count:,} files named; a memory names at most {MAX_FILES} (the files it is about)"
        )


def inside(root: str, folder: str) -> bool:
    """Whether `folder` is the project's root or under it."""
    import os

    for top in {os.path.abspath(root), os.path.realpath(root)}:
        rel = os.path.relpath(os.path.abspath(folder), top)
        if rel == os.curdir or not (rel == os.pardir or rel.startswith(os.pardir + os.sep)):
            return True
    return False


def resolve(root: str, paths: Sequence[str], base: str | None = None) -> tuple[Anchor, ...]:
    """Anchors of `paths` (relative to `base`, else the root) as the files
    are now; a one-line error for the first that cannot be anchored."""
    check_count(len(paths))
    if not paths:
        return ()
    rels = list(dict.fromkeys(normalise(root, raw, base) for raw in paths))
    commit = gitdir.head_commit(root)
    at = now_iso()
    return tuple(measure(root, rel, commit, at) for rel in rels)


def from_turn(root: str, harness: str, session_id: str) -> tuple[Anchor, ...]:
    """Anchors of the files the harness session's last checkpointed turn changed;
    one that is gone or no longer a plain file is left out, silently: the
    list came from a transcript, not from the caller. So is one whose path
    the guard would refuse (`pipeline.anchor_fields`): the capture stands
    without it."""
    found: list[Anchor] = []
    paths = turn_files.load(root, harness, session_id)
    commit = gitdir.head_commit(root) if paths else None
    at = now_iso()
    for rel in paths:
        try:
            guard.check_fields({"file": rel})
            found.append(measure(root, normalise(root, rel), commit, at))
        except TreeRingError:
            continue
    return tuple(found)


def named_in(anchors: Sequence[Anchor], texts: Sequence[str]) -> tuple[Anchor, ...]:
    """Of a turn's `anchors`, those `texts` (a note's words) name: by path,
    by file name, or by file name without its extension (three letters or
    more), as a whole word in any case. A turn edits files the note may not
    be about, and each would mark it stale when it next changes. A note
    naming none of them is anchored to them all, as the turn left them."""
    words: set[str] = set()
    for text in texts:
        for token in _TOKEN.findall(text.casefold()):
            token = token.strip("./-")
            words.add(token)
            words.update(part for part in _PARTS.split(token) if part)
    found: list[Anchor] = []
    for anchor in anchors:
        path = anchor.path.casefold()
        name = path.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
        if {path, name} & words or (len(stem) >= 3 and stem in words):
            found.append(anchor)
    return tuple(found) or tuple(anchors)


_TOKEN = re.compile(r"[\w./-]+")
_PARTS = re.compile(r"[./]")


def attach(db: Db, memory_id: str, anchors: Sequence[Anchor]) -> None:
    """Store `anchors` with a memory just written (the caller's transaction)."""
    if anchors:
        stored.insert(db, memory_id, anchors)


class Confirmed(Frozen):
    id: str
    anchors: tuple[Anchor, ...]  # as now stored (unchanged for a request)
    dropped: tuple[str, ...]  # paths with no regular file now, no longer anchored
    request: str | None = None  # an agent's confirm: the request that waits


def reanchor_in(
    db: Db, root: str, memory: Memory, actor: Actor, reason: str, now: str
) -> Confirmed:
    """Measure the memory's anchored files again and store them; the caller
    holds the transaction. A path with no regular file there now (gone, or a
    folder, a FIFO or a link in its place: what `stale` calls deleted or
    unreadable) drops out of the anchors, never followed through a link."""
    old = stored.of(db, [memory.id]).get(memory.id, [])
    if not old:
        raise UsageError(f"{memory.id} names no files; there is nothing to confirm")
    commit = gitdir.head_commit(root)
    fresh: list[Anchor] = []
    dropped: list[str] = []
    for anchor in old:
        found = measure_file(root, anchor.path, commit, now)
        if found is None:
            dropped.append(anchor.path)
        else:
            fresh.append(found)
    stored.replace(db, memory.id, fresh)
    # The row moves on too: a confirmed memory's ledger line, new files and
    # all, wins over the one it had (`team/ledger.rank`).
    rows.update(db, memory.id, updated_at=now)
    audit.record(
        db,
        actor,
        "confirm",
        memory.id,
        {"paths": [a.path for a in fresh], "dropped": dropped, "reason": reason},
        changed=[memory.id],
        at=now,
    )
    return Confirmed(memory.id, tuple(fresh), tuple(dropped))


def confirm(store: Store, memory_id: str, *, actor: Actor, reason: str | None) -> Confirmed:
    """A person's confirm re-anchors the memory now; an agent's waits for one."""
    from tree_ring.write.correct import check_reason

    text = check_reason(reason) if reason else "confirmed as the files are now"
    now = now_iso()
    with store.write() as db:
        memory = rows.get(db, memory_id)
        if memory.retired_at is not None or memory.redacted_at is not None:
            raise UsageError(f"{memory_id} is no longer on record; there is nothing to confirm")
        if reason:  # the default names nothing
            reasons.kept(db, memory.project or "", text, reasons.IN_AUDIT_LOG)
        if admission.is_agent(actor) and not coordinator.holds(db, actor):
            current = tuple(stored.of(db, [memory.id]).get(memory.id, []))
            if not current:
                raise UsageError(f"{memory_id} names no files; there is nothing to confirm")
            request = requests.ask(db, memory, CONFIRM, text, actor, now)
            return Confirmed(memory.id, current, (), request)
        return reanchor_in(db, store.root_str, memory, actor, text, now)
