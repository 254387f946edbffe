"""The team ledger's queries: where each line the store took came from
(`ledger_provenance`), and the rows and tombstones the ledger is written from.

Light on purpose: the SessionStart hook's pass over a changed ledger
(`team/ledger_delta.py`) reads through here, so no `re`, `json` or `typing`.
"""

from __future__ import annotations

from tree_ring.model import jsontext
from tree_ring.model.record import canonical_json

# The source a line the upstream's ledger holds is kept under (`team/upstream.py`):
# any other is a claim's.
UPSTREAM = "upstream"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    from tree_ring.store.sql import Db, Rows


# ---------------------------------------------------------------- provenance


def note(db: Db, values: Sequence[Any]) -> None:
    """Record (or replace) where a subject's line came from: (subject, project,
    line hash, source, git commit, author, ref, created at)."""
    db.execute(
        "INSERT OR REPLACE INTO ledger_provenance"
        "(subject, project, line_hash, source, git_commit, author, ref, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        values,
    )


def taken_hashes(db: Db, upstream: str, hashes: Iterable[str]) -> set[str]:
    """Which line hashes among `hashes` a sync took from a source other than `upstream`."""
    found = db.execute(
        "SELECT line_hash FROM ledger_provenance WHERE source != ?"
        " AND line_hash IN (SELECT value FROM json_each(?))",
        (upstream, canonical_json(sorted(hashes))),
    )
    return {str(row[0]) for row in found}


def subjects_not_from(db: Db, upstream: str, ids: Iterable[str]) -> set[str]:
    """Which of `ids` were made by a line from a source other than `upstream`."""
    found = db.execute(
        "SELECT subject FROM ledger_provenance WHERE source != ?"
        " AND subject IN (SELECT value FROM json_each(?))",
        (upstream, canonical_json(sorted(set(ids)))),
    )
    return {str(row[0]) for row in found}


def provenance_of(db: Db, subjects: Sequence[str]) -> list[Any]:
    """(subject, source, git_commit, author, ref) of each of `subjects` a line made."""
    return db.query(
        "SELECT subject, source, git_commit, author, ref FROM ledger_provenance"
        " WHERE subject IN (SELECT value FROM json_each(?))",
        (canonical_json(list(subjects)),),
    )


def kept(db: Db) -> bool:
    """Whether the store has the provenance table: one opened read-only
    before its migration ran has not."""
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_provenance'"
    ).fetchone()
    return found is not None


# ------------------------- lines kept with fields a newer Tree Ring added

# A team ledger line with fields a newer Tree Ring added (team/ledger_read.py):
# the store writes `line` while it would write `plain` for the id (ledger_state.py).
# It holds the memory's content, so it goes where the memory goes, as anchors do.
LEDGER_KEPT = (
    """CREATE TABLE ledger_kept (
        memory_id  TEXT PRIMARY KEY,  -- the id the line is of (a memory, tombstone or redaction)
        project    TEXT NOT NULL,     -- the project whose ledger it came from
        plain      TEXT NOT NULL,     -- the line as this version writes it, without those fields
        line       TEXT NOT NULL      -- the line as it came, those fields included
    )""",
    """CREATE TRIGGER memories_ledger_kept_delete AFTER DELETE ON memories BEGIN
        DELETE FROM ledger_kept WHERE memory_id = old.id;
    END""",
    """CREATE TRIGGER memories_ledger_kept_redact AFTER UPDATE OF redacted_at ON memories
    WHEN new.redacted_at IS NOT NULL BEGIN
        DELETE FROM ledger_kept WHERE memory_id = new.id;
    END""",
)


def kept_lines(
    db: Db, project: str, ids: Sequence[str] | None = None
) -> dict[str, tuple[str, str]]:
    """Memory id -> (line as it came, line as this version writes it) of the
    project's kept lines; with `ids`, of those ids only."""
    sql = "SELECT memory_id, line, plain FROM ledger_kept WHERE project = ?"
    params: list[Any] = [project]
    sql += _of_ids("memory_id", ids, params)
    return {str(row[0]): (str(row[1]), str(row[2])) for row in db.execute(sql, params)}


def every_kept(db: Db) -> list[tuple[str, str, str, str]]:
    """(memory id, project, line as it came, line as this version writes it)
    of every kept line, of every project."""
    found = db.execute("SELECT memory_id, project, line, plain FROM ledger_kept")
    return [(str(row[0]), str(row[1]), str(row[2]), str(row[3])) for row in found]


def added_strings(line: str, plain: str) -> list[str]:
    """The strings a kept line holds that the line this version writes does
    not: what a newer Tree Ring's fields say."""
    written = set(jsontext.every_string(jsontext.loads(plain)))
    return [text for text in jsontext.every_string(jsontext.loads(line)) if text not in written]


def kept_ids(db: Db, project: str) -> set[str]:
    """The ids of the project's kept lines."""
    found = db.execute("SELECT memory_id FROM ledger_kept WHERE project = ?", (project,))
    return {str(row[0]) for row in found}


def keep_lines(db: Db, project: str, lines: Iterable[tuple[str, str, str]]) -> None:
    """Keep (memory id, line as it came, line as this version writes it)."""
    db.executemany(
        "INSERT OR REPLACE INTO ledger_kept(memory_id, project, line, plain) VALUES (?, ?, ?, ?)",
        [(memory_id, project, line, plain) for memory_id, line, plain in lines],
    )


def drop_kept(db: Db, ids: Iterable[str]) -> None:
    """Keep no line for these ids any longer."""
    db.execute(
        "DELETE FROM ledger_kept WHERE memory_id IN (SELECT value FROM json_each(?))",
        (canonical_json(sorted(set(ids))),),
    )


# ------------------------------------------------------- what the ledger says


def tombstones(db: Db, project: str, ids: Sequence[str] | None = None) -> Rows:
    """(memory_id, content_hash, created_at, kind, redacted) of the project's
    content tombstones but an agent's withdrawals, for every memory each was
    recorded as (`store/tombstone_ids.py`: a hash forgotten again under another
    id keeps its first), with `ids` of those memories only, by memory id then
    hash; `redacted` is when the memory's id was marked redacted (its
    redaction tombstone), NULL when it was not."""
    sql = (
        "SELECT t.memory_id, t.content_hash, t.created_at, t.kind, r.created_at"
        " FROM tombstone_ids t LEFT JOIN redaction_tombstones r ON r.memory_id = t.memory_id"
        # An agent's withdrawal stays in this store (`tombstones.WITHDRAWN`).
        " WHERE t.project = ? AND t.kind != 'withdrawn'"
    )
    params: list[Any] = [project]
    sql += _of_ids("t.memory_id", ids, params)
    return db.execute(sql + " ORDER BY t.memory_id, t.content_hash", params)


# The project's content tombstones but an agent's withdrawals: the words a
# line the store writes may not carry (most stores hold none).
_FORGOTTEN = "SELECT content_hash FROM content_tombstones WHERE project = ? AND kind != 'withdrawn'"


def forgets(db: Db, project: str) -> bool:
    """Whether the project holds any such tombstone (`_FORGOTTEN`)."""
    return db.execute(_FORGOTTEN + " LIMIT 1", (project,)).fetchone() is not None


def forgotten_keys(db: Db, project: str) -> list[str]:
    """The content keys of every such tombstone (`_FORGOTTEN`)."""
    return [str(row[0]) for row in db.execute(_FORGOTTEN, (project,))]


def memories(db: Db, project: str, ids: Sequence[str] | None = None) -> Rows:
    """The project's rows, any state; with `ids`, those rows only."""
    sql = "SELECT * FROM memories WHERE project = ?"
    params: list[Any] = [project]
    if ids is not None:  # by primary key: `+project` keeps the planner off its index
        sql = "SELECT * FROM memories WHERE +project = ? AND id IN (SELECT value FROM json_each(?))"
        params.append(canonical_json(ids))
    return db.execute(sql, params)


def refuted(db: Db, project: str, ids: Sequence[str] | None = None) -> Rows:
    """(memory_id, was_trust, created_at, detail) of each refutation waiting
    in the project, with its `refute` audit entry's detail (NULL where that
    entry is missing); with `ids`, of those memories only."""
    # Only an agent refutes without deciding (`review/refute.py`), so every
    # refutation waiting is a claim. Its entry is the one made with it (same time).
    sql = (
        "SELECT r.memory_id, r.was_trust, r.created_at, a.detail FROM refutations r"
        " LEFT JOIN audit_log a ON a.target = r.memory_id AND a.action = 'refute'"
        " AND a.at = r.created_at WHERE r.project = ?"
    )
    params: list[Any] = [project]
    sql += _of_ids("r.memory_id", ids, params)
    return db.execute(sql + " ORDER BY r.memory_id, a.seq", params)


def _of_ids(column: str, ids: Sequence[str] | None, params: list[Any]) -> str:
    """The clause that keeps `column` to `ids` (its parameter added to
    `params`), or nothing when every id is wanted."""
    if ids is None:
        return ""
    params.append(canonical_json(ids))
    return f" AND {column} IN (SELECT value FROM json_each(?))"


_SHARED = (
    "SELECT k.hit, m.* FROM (SELECT id AS hit FROM memories WHERE project = :project"
    " UNION SELECT memory_id FROM tombstone_ids WHERE project = :project"
    " AND kind != 'withdrawn') k"
    " LEFT JOIN memories m ON m.id = k.hit AND m.project = :project ORDER BY k.hit"
)


def shared(db: Db, project: str) -> Rows:
    """Every id the project has a row or a tombstone for (`hit`), in id order,
    with its row's columns (NULL for a tombstone alone)."""
    return db.execute(_SHARED, {"project": project})


def unretired_ids(db: Db, project: str) -> set[str]:
    """The ids of the project's rows that are not retired."""
    found = db.execute(
        "SELECT id FROM memories WHERE project = ? AND retired_at IS NULL", (project,)
    )
    return {str(row[0]) for row in found}
