"""Which memories have gone stale: an anchored file changed or gone since
the memory was written (or a person confirmed it).

Only the anchors of the memories a caller already holds are read (the
brief's lines, recall's hits); `project_stale` alone walks every anchored
memory of a project, for `tree-ring stale`. Each file is judged by
`model/anchor.Checker`: size and time, and a hash only when they disagree,
once a file however many memories anchor it; the brief hashes at most
`anchor.HASH_BUDGET` bytes and leaves the rest unchecked. A hash that finds a
file as anchored keeps its new size and time (`keep_seen`), so a checkout
that moved only the time costs one read, not one a session.
The project root is where the files are judged: a teammate's clone judges a
ledger's anchors against its own checkout.
"""

from __future__ import annotations

from tree_ring.model.errors import TreeRingError
from tree_ring.store import anchors as stored

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_ring.model.anchor import Check
    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db

# How many files one mark names before it says how many more.
SHOWN = 1


def checks(
    db: Db, root: str, ids: Iterable[str], *, bounded: bool = False
) -> dict[str, list[Check]]:
    """Each anchored memory of `ids`, with what each of its files is now: in
    one pass, so each file is hashed at most once, and `bounded`, no more
    than the anchor model's HASH_BUDGET bytes hashed (a file past it is
    unchecked). The anchor model is loaded only when one of `ids` has anchors."""
    anchored = stored.of(db, ids)
    if not anchored:
        return {}
    from tree_ring.model import anchor

    checker = anchor.Checker(root, anchor.HASH_BUDGET if bounded else None)
    return {
        memory_id: [checker.check(anchor) for anchor in anchors]
        for memory_id, anchors in anchored.items()
    }


def judge(store: Store, ids: Iterable[str], *, bounded: bool = False) -> dict[str, list[Check]]:
    """`checks` against the store's project, keeping what a hash found as anchored."""
    found = checks(store.db, store.root_str, ids, bounded=bounded)
    keep_seen(store, found)
    return found


def keep_seen(store: Store, found: dict[str, list[Check]]) -> None:
    """Record the size and time of each file a hash found as anchored (a
    checkout or a formatter moved only its time), so the next check, the next
    session's brief included, judges it by a `stat` again. Best effort, and
    never a wait: a read-only store, one in a transaction or one another
    writer holds keeps the old values, and the next check hashes again."""
    seen = [
        (c.seen[0], c.seen[1], memory_id, c.anchor.path, c.anchor.blob)
        for memory_id, judged in found.items()
        for c in judged
        if c.seen is not None
    ]
    if not seen or store.read_only or store.db.in_transaction:
        return
    # No wait on another writer: the SessionStart hook must not wait for a cache.
    try:
        with store.write(wait=False) as db:
            stored.keep_seen(db, seen)
    except TreeRingError:
        pass


def stale(found: dict[str, list[Check]]) -> dict[str, list[Check]]:
    """Of `found`, the memories with a file changed or gone, and those files."""
    out: dict[str, list[Check]] = {}
    for memory_id, judged in found.items():
        changed = [c for c in judged if c.stale]
        if changed:
            out[memory_id] = changed
    return out


def unchecked(found: dict[str, list[Check]]) -> dict[str, list[Check]]:
    """Of `found`, the memories with no file stale but some left unchecked
    (past the hash budget), and those files: neither stale nor fresh."""
    out: dict[str, list[Check]] = {}
    for memory_id, judged in found.items():
        left = [c for c in judged if c.unchecked]
        if left and not any(c.stale for c in judged):
            out[memory_id] = left
    return out


def mark(changed: list[Check], head: str = "stale") -> str:
    """`stale: "src/x.py" changed since 2026-11-30`, and `(+2 more)` past the
    first; `unchecked: "src/x.py" not checked this time` with
    `head="unchecked"`."""
    words = "; ".join(c.words() for c in changed[:SHOWN])
    more = len(changed) - SHOWN
    return f"{head}: {words}" + (f" (+{more} more)" if more > 0 else "")


def project_stale(
    store: Store, project: str, reader: Identity | None = None
) -> list[tuple[Memory, list[Check]]]:
    """Every memory of the project on record whose anchored files moved, oldest
    id first; with `reader` (an agent's identity), of the rows it may read."""
    from tree_ring.store import rows

    ids = stored.anchored(store.db, project, reader)
    found = stale(judge(store, ids))
    return [
        (rows.get(store.db, memory_id), found[memory_id]) for memory_id in ids if memory_id in found
    ]


def as_dicts(judged: list[Check]) -> list[dict[str, object]]:
    """Anchors with their state, as `--json` prints them."""
    return [{**c.anchor.to_dict(), "state": c.state} for c in judged]
