"""The rows a file sync (`sources/`) wrote: found by their ids, which carry
the adapter's name (`mem_<adapter>_<key hash>`, then `_r2`, `_r3`, ...)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.store.sql import Db

_PRIOR = (
    "SELECT * FROM memories WHERE project = ? AND source_type = ?"
    " AND id LIKE ? ESCAPE '\\' AND retired_at IS NULL AND superseded_by IS NULL"
    " AND redacted_at IS NULL AND trust != 'rejected' ORDER BY created_at, id"
)


def current(db: Db, project: str, adapter: str) -> list[Any]:
    """The project's rows `adapter` wrote that are still current, oldest first."""
    pattern = f"mem\\_{adapter}\\_%"
    return db.query(_PRIOR, (project, adapter, pattern))


def versions(db: Db, base: str) -> set[str]:
    """`base` and its later versions (`base_r2`, ...) among the stored ids."""
    found = db.execute(
        "SELECT id FROM memories WHERE id = ? OR id LIKE ? ESCAPE '\\'",
        (base, base.replace("_", "\\_") + "\\_r%"),
    )
    return {row[0] for row in found}
