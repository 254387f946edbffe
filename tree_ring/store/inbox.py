"""The inbox's queries: agent rows still on record that the person has not
seen, as `review/inbox.py` decides what "seen" is."""

from __future__ import annotations

from tree_ring.model.record import PRIVATE_SCOPES
from tree_ring.store import live

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.store.sql import Db

AGENT_ORIGINS = ("claude-code", "codex", "agent")
# Agent rows: what an agent wrote, and what it imported into its own
# partition (an import's origin is "import"; its rows in a private scope are
# an agent's, which lands them there accepted as it does its own writes). In
# the very words of the `memories_inbox` index's condition (INBOX_INDEX,
# below): SQLite reads a partial index only for a statement that names
# its condition, so every reader of agent rows says it this way.
AGENT_ROWS = (
    f"(m.origin IN ({', '.join(repr(origin) for origin in AGENT_ORIGINS)})"
    f" OR (m.origin = 'import' AND m.scope IN ({', '.join(map(repr, PRIVATE_SCOPES))})))"
)

# The inbox's rows are also what an agent imported into its own partition:
# its import lands there accepted, as its own writes do, so the person's look
# at what agents saved must show it. Migration 0016 makes the index again
# over that condition (and its scope column).
INBOX_INDEX = (
    "DROP INDEX IF EXISTS memories_inbox",
    "CREATE INDEX memories_inbox ON memories(project, created_at, id, origin, scope, trust,"
    " sensitivity, retired_at, redacted_at)"
    " WHERE (origin IN ('claude-code', 'codex', 'agent')"
    " OR (origin = 'import' AND scope IN ('agent', 'workflow', 'session')))"
    " AND retired_at IS NULL AND redacted_at IS NULL",
)


# Agent rows still on record (not retired, redacted or rejected), not yet seen.
# A sensitive one counts like any other, so an agent cannot keep a write out of
# the person's inbox by marking it sensitive; `unseen` lists it only when asked.
_WHERE = (
    f"m.project = :project AND {AGENT_ROWS}"
    " AND m.retired_at IS NULL AND m.redacted_at IS NULL AND m.trust != 'rejected'"
)
# The NORMAL test every list applies to leave sensitive rows out (`store/live.py`).
_NORMAL = " AND " + live.sql([live.NORMAL])
_UNSEEN = (
    " AND (:seen_at IS NULL OR m.created_at >= :seen_at)"
    " AND m.id NOT IN (SELECT value FROM json_each(:seen_ids))"
)


def on_record(db: Db, project: str) -> Any:
    """Every agent row of `project` still on record, seen or not (`_WHERE`)."""
    return db.execute(f"SELECT m.* FROM memories m WHERE {_WHERE}", {"project": project})


_EVER = f"m.project = :project AND {AGENT_ROWS} AND m.redacted_at IS NULL"


def ever_written(db: Db, project: str) -> Any:
    """Every agent row of `project` not redacted, retired and rejected ones
    too: what a teammate's forget may take of its claim, as a forget here
    takes an agent's retired copy (`write/correct._twins`)."""
    return db.execute(f"SELECT m.* FROM memories m WHERE {_EVER}", {"project": project})


def filters(
    origin: str | None, session_id: str | None, since: str | None, agent_profile: str | None
) -> tuple[str, dict[str, Any]]:
    """The narrowing clauses of a person's filters, and their parameters."""
    sql = ""
    params: dict[str, Any] = {}
    if origin:
        sql += " AND m.origin = :origin"
        params["origin"] = origin
    if session_id:
        sql += " AND (m.session_id = :session_id OR m.origin_session = :session_id)"
        params["session_id"] = session_id
    if since:
        sql += " AND m.created_at >= :since"
        params["since"] = since
    if agent_profile:
        sql += " AND m.agent_profile = :agent_profile"
        params["agent_profile"] = agent_profile
    return sql, params


def unseen(
    db: Db, narrow: str, params: dict[str, Any], limit: int, include_sensitive: bool
) -> tuple[int, int, list[Any]]:
    """How many unseen rows match, how many of them are withheld (sensitive,
    unless `include_sensitive`), and the newest `limit` of the rest. `params`
    hold `project`, `seen_at`, `seen_ids` (JSON) and `narrow`'s own."""
    where = _WHERE + _UNSEEN + narrow
    total = int(db.scalar(f"SELECT count(*) FROM memories m WHERE {where}", params) or 0)
    withheld = 0
    if not include_sensitive:
        where += _NORMAL
        listable = int(db.scalar(f"SELECT count(*) FROM memories m WHERE {where}", params) or 0)
        withheld = total - listable
    found = db.query(
        f"SELECT m.* FROM memories m WHERE {where} ORDER BY m.created_at DESC, m.id DESC"
        " LIMIT :limit",
        {**params, "limit": max(0, limit)},
    )
    return total, withheld, found


def unseen_rows(db: Db, narrow: str, params: dict[str, Any], limit: int, offset: int) -> list[Any]:
    """Unseen rows that match, sensitive ones too, newest first: `limit` of
    them from `offset`, for a reader that must look at each (`review/inbox.py`)."""
    return db.query(
        f"SELECT m.* FROM memories m WHERE {_WHERE}{_UNSEEN}{narrow}"
        " ORDER BY m.created_at DESC, m.id DESC LIMIT :limit OFFSET :offset",
        {**params, "limit": limit, "offset": offset},
    )


def unseen_count(db: Db, project: str, seen_at: str | None, seen_ids: str) -> Any:
    """How many rows are unseen, with `seen_ids` as JSON."""
    params = {"project": project, "seen_at": seen_at, "seen_ids": seen_ids}
    return db.scalar(f"SELECT count(*) FROM memories m WHERE {_WHERE}{_UNSEEN}", params)


def newest(db: Db, project: str) -> Any:
    """The newest agent row's created_at, or None."""
    sql = f"SELECT max(m.created_at) FROM memories m WHERE {_WHERE}"
    return db.scalar(sql, {"project": project})


def ids_at(db: Db, project: str, at: Any) -> list[str]:
    """The agent rows created at the instant `at`."""
    found = db.query(
        f"SELECT m.id FROM memories m WHERE {_WHERE} AND m.created_at = :newest",
        {"project": project, "newest": at},
    )
    return [r[0] for r in found]


_NOTES = (
    f"SELECT 1 FROM memories m WHERE m.project IS :project AND {AGENT_ROWS}"
    f" AND m.scope IN ({', '.join(map(repr, PRIVATE_SCOPES))})"
    " AND m.retired_at IS NULL AND m.redacted_at IS NULL"
    " AND m.trust IN ('accepted', 'pending') LIMIT 1"
)


def holds_notes(db: Db, project: str | None) -> bool:
    """Whether `project` holds an agent's note in its own partition, believed
    or waiting: what a person's new memory for the project may put in dispute."""
    return db.scalar(_NOTES, {"project": project}) is not None
