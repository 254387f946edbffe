"""What `tree-ring usage` and `maintain --suggest` read from the store.

The usage log (`store/usage_log.py`) holds ids; the store says which of
them are still memories, which captures the checkpoints stored, and which
live memories were written before a cutoff (the candidates nothing used).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

# The stop checkpoint's capture command names operation ids auto-<checkpoint>-N
# (hook/adapter.capture_command); the MCP capture tool takes the same.
CAPTURES_SQL = (
    "SELECT count(*) FROM memories WHERE project IS :project AND operation_id LIKE 'auto-%'"
    " AND created_at >= :since"
)
# Live, believed rows of the project recorded before :before, oldest first:
# those the usage log may show nobody has used since.
UNUSED_CANDIDATES_SQL = (
    "SELECT id, summary, ring, created_at FROM memories"
    " WHERE project IS :project AND trust = 'accepted' AND retired_at IS NULL"
    " AND redacted_at IS NULL AND superseded_by IS NULL AND created_at < :before"
    " ORDER BY created_at, id"
)
DISPUTED_SQL = (
    "SELECT id, summary, ring, created_at, review_reason FROM memories"
    " WHERE project IS :project AND trust = 'disputed' AND retired_at IS NULL"
    " AND redacted_at IS NULL ORDER BY created_at, id"
)
SUMMARIES_SQL = "SELECT id, summary FROM memories WHERE id IN (SELECT value FROM json_each(?))"


def captures_since(db: Db, project: str | None, since: str) -> int:
    """Memories the checkpoint's captures stored since `since` (still on record)."""
    return int(db.scalar(CAPTURES_SQL, {"project": project, "since": since}) or 0)


def older_than(db: Db, project: str | None, before: str) -> list[tuple[str, str, str, str]]:
    """(id, summary, ring, created_at) of live rows recorded before `before`."""
    found = db.execute(UNUSED_CANDIDATES_SQL, {"project": project, "before": before})
    return [(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in found]


def disputed(db: Db, project: str | None) -> list[tuple[str, str, str, str, str]]:
    """(id, summary, ring, created_at, review_reason) of disputed rows still on record."""
    found = db.execute(DISPUTED_SQL, {"project": project})
    return [(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4] or "")) for r in found]


def summaries(db: Db, ids: list[str]) -> dict[str, str]:
    """The summary of each id still stored; a forgotten one is absent."""
    from tree_ring.model import jsontext

    if not ids:
        return {}
    return {str(r[0]): str(r[1]) for r in db.execute(SUMMARIES_SQL, (jsontext.dumps(ids),))}
