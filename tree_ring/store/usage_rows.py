"""What `tree-ring usage` and `maintain --suggest` read from the store.

The usage log (`store/usage_log.py`) holds ids; the store says which of
them are still memories, which captures the checkpoints stored, and which
live memories were written before a cutoff (the candidates nothing used).
"""

from __future__ import annotations

from tree_ring.store.live import NORMAL, sql, summary_sql, visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

# The stop checkpoint's capture command names operation ids auto-<checkpoint>-N
# (hook/adapter.capture_command); the MCP capture tool takes the same.
CAPTURES_SQL = (
    "SELECT count(*) FROM memories WHERE project IS :project AND operation_id LIKE 'auto-%'"
    " AND created_at >= :since"
)
# Each summary these reports print: a sensitive row's is its sensitivity only.
SUMMARY = summary_sql()
# Live, believed rows of the project recorded before :before, oldest first:
# those the usage log may show nobody has used since.
UNUSED_CANDIDATES_SQL = (
    f"SELECT m.id, {SUMMARY}, m.ring, m.created_at FROM memories m"
    " WHERE m.project IS :project AND {visible} AND m.trust = 'accepted' AND m.retired_at IS NULL"
    " AND m.redacted_at IS NULL AND m.superseded_by IS NULL AND m.created_at < :before"
    " ORDER BY m.created_at, m.id"
)
# The review reason (a refutation's words about the row) only beside its text.
DISPUTED_SQL = (
    f"SELECT m.id, {SUMMARY}, m.ring, m.created_at, m.review_reason,"
    f" {sql([NORMAL])} FROM memories m"
    " WHERE m.project IS :project AND {visible} AND m.trust = 'disputed' AND m.retired_at IS NULL"
    " AND m.redacted_at IS NULL ORDER BY m.created_at, m.id"
)
SUMMARIES_SQL = (
    f"SELECT m.id, {SUMMARY} FROM memories m WHERE m.id IN (SELECT value FROM json_each(?))"
)


def captures_since(db: Db, project: str | None, since: str) -> int:
    """Memories the checkpoint's captures stored since `since` (still on record)."""
    return int(db.scalar(CAPTURES_SQL, {"project": project, "since": since}) or 0)


def _seen(sql_text: str, reader: Identity | None) -> tuple[str, dict[str, Any]]:
    """`sql_text` with its `{visible}` the reader's clause (every partition, without one)."""
    if reader is None:
        return sql_text.format(visible="1"), {}
    clause = visible(reader)
    return sql_text.format(visible=clause.sql), dict(clause.params)


def older_than(
    db: Db, project: str | None, before: str, reader: Identity | None = None
) -> list[tuple[str, str, str, str]]:
    """(id, summary, ring, created_at) of live rows recorded before `before`;
    with `reader` (an agent's identity), of the rows it may read."""
    text, params = _seen(UNUSED_CANDIDATES_SQL, reader)
    found = db.execute(text, {**params, "project": project, "before": before})
    return [(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in found]


def disputed(
    db: Db, project: str | None, reader: Identity | None = None
) -> list[tuple[str, str, str, str, str, bool]]:
    """(id, summary, ring, created_at, review_reason, text shown) of disputed rows
    still on record (`reader`'s, as `older_than`); a sensitive row's summary is
    its sensitivity only, and its review reason is empty."""
    text, params = _seen(DISPUTED_SQL, reader)
    found = db.execute(text, {**params, "project": project})
    return [
        (str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4] or "") if r[5] else "", bool(r[5]))
        for r in found
    ]


def summaries(db: Db, ids: list[str]) -> dict[str, str]:
    """The summary of each id still stored; a forgotten one is absent."""
    from tree_ring.model import jsontext

    if not ids:
        return {}
    return {str(r[0]): str(r[1]) for r in db.execute(SUMMARIES_SQL, (jsontext.dumps(ids),))}


def readable(db: Db, ids: list[str], reader: Identity) -> set[str]:
    """Of `ids`, those of rows `reader` (an agent's identity) may read (`live.visible`)."""
    from tree_ring.model import jsontext

    if not ids:
        return set()
    clause = visible(reader)
    sql_text = (
        "SELECT m.id FROM memories m WHERE m.id IN (SELECT value FROM json_each(:ids))"
        f" AND {clause.sql}"
    )
    found = db.execute(sql_text, {**clause.params, "ids": jsontext.dumps(ids)})
    return {str(r[0]) for r in found}
