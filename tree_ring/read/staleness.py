"""Which memories have gone stale: an anchored file changed or gone since
the memory was written (or a person confirmed it).

Only the anchors of the memories a caller already holds are read (the
brief's lines, recall's hits); `project_stale` alone walks every anchored
memory of a project, for `tree-ring stale`. Each file is judged by
`model/anchor.check`: size and time, and a hash only when they disagree.
The project root is where the files are judged: a teammate's clone judges a
ledger's anchors against its own checkout.
"""

from __future__ import annotations

from tree_ring.model.anchor import Check, check
from tree_ring.store import anchors as stored

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db

# How many files one mark names before it says how many more.
SHOWN = 1


def checks(db: Db, root: str, ids: Iterable[str]) -> dict[str, list[Check]]:
    """Each anchored memory of `ids`, with what each of its files is now."""
    return {
        memory_id: [check(root, anchor) for anchor in anchors]
        for memory_id, anchors in stored.of(db, ids).items()
    }


def stale(found: dict[str, list[Check]]) -> dict[str, list[Check]]:
    """Of `found`, the memories with a file changed or gone, and those files."""
    out: dict[str, list[Check]] = {}
    for memory_id, judged in found.items():
        changed = [c for c in judged if c.stale]
        if changed:
            out[memory_id] = changed
    return out


def mark(changed: list[Check]) -> str:
    """`stale: src/x.py changed since 2026-11-30`, and `(+2 more)` past the first."""
    words = "; ".join(c.words() for c in changed[:SHOWN])
    more = len(changed) - SHOWN
    return f"stale: {words}" + (f" (+{more} more)" if more > 0 else "")


def project_stale(
    store: Store, project: str, reader: Identity | None = None
) -> list[tuple[Memory, list[Check]]]:
    """Every memory of the project on record whose anchored files moved, oldest
    id first; with `reader` (an agent's identity), of the rows it may read."""
    from tree_ring.store import rows

    ids = stored.anchored(store.db, project, reader)
    found = stale(checks(store.db, store.root_str, ids))
    return [
        (rows.get(store.db, memory_id), found[memory_id]) for memory_id in ids if memory_id in found
    ]


def as_dicts(judged: list[Check]) -> list[dict[str, object]]:
    """Anchors with their state, as `--json` prints them."""
    return [{**c.anchor.to_dict(), "state": c.state} for c in judged]
