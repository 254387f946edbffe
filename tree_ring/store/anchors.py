"""The anchors table's SQL: which files a memory is about (`model/anchor.py`).

Each statement is a named constant beside the function that runs it, so a
test can show the query. Reads take the ids a caller already holds (the
brief's lines, recall's hits): the check never walks the whole table unless
asked to (`stale`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    from tree_ring.model.anchor import Anchor
    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

# The files a memory is about (model/anchor.py): one row per memory and file,
# as it was when the memory was written or a person confirmed it. The brief
# and recall read the rows of the memories they show, and a file whose size
# or time moved is hashed to tell a change from a touch.
ANCHORS = (
    """CREATE TABLE anchors (
        memory_id    TEXT NOT NULL,     -- the memory that names the file
        path         TEXT NOT NULL,     -- relative to the project root, '/'-separated
        blob         TEXT NOT NULL,     -- git's blob id: sha1 of 'blob <size>', a NUL, the bytes
        size         INTEGER NOT NULL,  -- bytes then; -1 when a teammate's ledger gave only a hash
        mtime_ns     INTEGER NOT NULL,  -- modification time then; equal size and time: no hash
        git_commit   TEXT,              -- the commit checked out then, if the project is in git
        anchored_at  TEXT NOT NULL,     -- when it was anchored (written, or confirmed by a person)
        PRIMARY KEY (memory_id, path)
    )""",
    # A memory deleted or redacted takes its anchors with it: a path can say
    # what the memory was about.
    """CREATE TRIGGER memories_anchors_delete AFTER DELETE ON memories BEGIN
        DELETE FROM anchors WHERE memory_id = old.id;
    END""",
    """CREATE TRIGGER memories_anchors_redact AFTER UPDATE OF redacted_at ON memories
    WHEN new.redacted_at IS NOT NULL BEGIN
        DELETE FROM anchors WHERE memory_id = new.id;
    END""",
)

INSERT_SQL = (
    "INSERT OR REPLACE INTO anchors(memory_id, path, blob, size, mtime_ns, git_commit,"
    " anchored_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
DELETE_SQL = "DELETE FROM anchors WHERE memory_id = ?"
# A file a hash found as anchored though its time moved: its size and time now,
# so the next check needs only a `stat`. Only while the row still holds the
# blob that was compared (a confirm in between re-anchored it).
SEEN_SQL = "UPDATE anchors SET size = ?, mtime_ns = ? WHERE memory_id = ? AND path = ? AND blob = ?"
OF_SQL = (
    "SELECT memory_id, path, blob, size, mtime_ns, git_commit, anchored_at FROM anchors"
    " WHERE memory_id IN (SELECT value FROM json_each(?)) ORDER BY memory_id, path"
)
# Every anchor of the project's memories, whatever their state: what the
# team ledger's lines of them carry (`team/ledger_state.py`).
OF_PROJECT_SQL = (
    "SELECT a.memory_id, a.path, a.blob, a.size, a.mtime_ns, a.git_commit, a.anchored_at"
    " FROM anchors a JOIN memories m ON m.id = a.memory_id WHERE m.project = ?"
    " ORDER BY a.memory_id, a.path"
)
# The project's anchored memories on record (not retired, redacted or
# superseded): what `tree-ring stale` checks; `{visible}`, who may read them
# (`anchored_sql`).
ANCHORED_SQL = (
    "SELECT DISTINCT a.memory_id FROM anchors a JOIN memories m ON m.id = a.memory_id"
    " WHERE m.project = :project AND {visible} AND m.retired_at IS NULL"
    " AND m.redacted_at IS NULL AND m.superseded_by IS NULL ORDER BY a.memory_id"
)


def _json_list(values: Iterable[str]) -> str:
    # Ids are plain ASCII (mem_..., checked where they are made); a quote or a
    # backslash in one would only fail to match.
    return "[" + ",".join('"' + v.replace("\\", "").replace('"', "") + '"' for v in values) + "]"


def insert(db: Db, memory_id: str, anchors: Sequence[Anchor]) -> None:
    """Anchor `memory_id` to `anchors`; the caller holds the transaction."""
    if not anchors:
        return
    db.executemany(
        INSERT_SQL,
        [(memory_id, a.path, a.blob, a.size, a.mtime_ns, a.commit, a.at) for a in anchors],
    )


def keep_seen(db: Db, seen: Iterable[tuple[int, int, str, str, str]]) -> None:
    """Record each (size, time, memory id, path, blob) a hash found as anchored
    (`SEEN_SQL`); the caller holds the transaction."""
    db.executemany(SEEN_SQL, list(seen))


def replace(db: Db, memory_id: str, anchors: Sequence[Anchor]) -> None:
    """The memory's anchors become exactly `anchors` (a person's confirm)."""
    db.execute(DELETE_SQL, (memory_id,))
    insert(db, memory_id, anchors)


def of(db: Db, ids: Iterable[str]) -> dict[str, list[Anchor]]:
    """Each of `ids` that has anchors, with them in path order."""
    wanted = list(ids)
    if not wanted:
        return {}
    return _grouped(db.execute(OF_SQL, (_json_list(wanted),)))


def of_project(db: Db, project: str) -> dict[str, list[Anchor]]:
    """Each memory of the project that has anchors, with them in path order."""
    return _grouped(db.execute(OF_PROJECT_SQL, (project,)))


def _grouped(found_rows: Iterable[Any]) -> dict[str, list[Anchor]]:
    found: dict[str, list[Anchor]] = {}
    rows = list(found_rows)
    if not rows:  # most reads: no anchored memory, and no model of one to load
        return found
    from tree_ring.model.anchor import Anchor

    for row in rows:
        memory_id, path, blob, size, mtime_ns, commit, at = tuple(row)
        found.setdefault(memory_id, []).append(Anchor(path, blob, size, mtime_ns, commit, at))
    return found


def anchored_sql(project: str, reader: Identity | None = None) -> tuple[str, dict[str, Any]]:
    """`ANCHORED_SQL` and its parameters: every partition's rows (a person's
    `stale`), or with `reader` (an agent's identity) only the rows it may read,
    by the clause its recall reads through (`live.visible`)."""
    if reader is None:
        return ANCHORED_SQL.format(visible="1"), {"project": project}
    from tree_ring.store import live

    clause = live.visible(reader)
    return ANCHORED_SQL.format(visible=clause.sql), {**clause.params, "project": project}


def anchored(db: Db, project: str, reader: Identity | None = None) -> list[str]:
    """The ids of the project's memories on record that have anchors (`anchored_sql`)."""
    sql, params = anchored_sql(project, reader)
    return [row[0] for row in db.execute(sql, params)]
