"""The rows a file sync (`sources/`) wrote: found by their ids, which carry
the adapter's name (`mem_<adapter>_<key hash>`, then `_r2`, `_r3`, ...)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db

# The file syncs, each the source type, the scope and the id prefix of its rows.
ADAPTERS = ("dox", "revolve")

_PRIOR = (
    "SELECT * FROM memories WHERE project = ? AND source_type = ?"
    " AND id LIKE ? ESCAPE '\\' AND retired_at IS NULL AND superseded_by IS NULL"
    " AND redacted_at IS NULL AND trust != 'rejected' ORDER BY created_at, id"
)


def current(db: Db, project: str, adapter: str) -> list[Any]:
    """The project's rows `adapter` wrote that are still current, oldest first."""
    pattern = f"mem\\_{adapter}\\_%"
    return db.query(_PRIOR, (project, adapter, pattern))


# Every id a file sync's rows can never take again: a row's (any state), and
# one a tombstone or a redaction was recorded for. The team ledger says one
# line an id, and a forgotten id's line is its tombstone: a row that took
# the id again would never reach another clone, and could bring back what
# the forget took. What the ledger brings a clone (rows, tombstones,
# redactions) is recorded the same way, so every clone finds the same ids.
_TAKEN = (
    "SELECT id FROM memories WHERE id >= :low AND id < :high"
    " UNION SELECT memory_id FROM tombstone_ids WHERE memory_id >= :low AND memory_id < :high"
    " UNION SELECT memory_id FROM content_tombstones"
    " WHERE memory_id >= :low AND memory_id < :high"
    " UNION SELECT memory_id FROM redaction_tombstones"
    " WHERE memory_id >= :low AND memory_id < :high"
)


def wrote(memory: Memory) -> bool:
    """Whether a file sync wrote `memory` here or in a teammate's clone: its
    source type, scope and id all name the sync (only a sync, an import or
    the team ledger chooses an id), and it was not imported."""
    kind = memory.source_type
    return (
        kind in ADAPTERS
        and memory.scope == kind
        and memory.id.startswith(f"mem_{kind}_")
        and memory.origin != "import"
    )


def taken(db: Db, adapter: str) -> set[str]:
    """The ids under `adapter`'s prefix (`mem_<adapter>_`) that are taken:
    held by a row in any state, or recorded as forgotten, rejected,
    withdrawn or redacted. One read for a whole sync's plan."""
    low = f"mem_{adapter}_"
    high = low[:-1] + chr(ord("_") + 1)  # the first id past the prefix
    return {str(row[0]) for row in db.execute(_TAKEN, {"low": low, "high": high})}


def said(memory: Memory) -> str | None:
    """What a Revolve record's row says, without the words that name its file
    (`Revolve <outcome> evidence from <file>: <what it says>`, as
    `sources/revolve.py` writes it): the claim a forget of the row takes,
    and what a write of it in another file, or alone, is checked by. None
    for any other row."""
    head = f" evidence from {memory.source_ref}: "
    summary = memory.summary
    if not (memory.source_ref and summary.startswith("Revolve ") and head in summary):
        return None
    rest = summary.split(head, 1)[1].strip()
    return rest or None
