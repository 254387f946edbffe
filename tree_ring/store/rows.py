"""Moving a `Memory` in and out of the `memories` table."""

from __future__ import annotations

from functools import cache
from itertools import groupby
from operator import attrgetter, is_, itemgetter

from tree_ring.model import jsontext
from tree_ring.model.errors import NotFound
from tree_ring.model.frozen import fields
from tree_ring.model.record import Link, Memory, compiled_patterns, now_iso
from tree_ring.store import live

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

# One column per field of `Memory`, in its order (a test holds the shipped
# schema to it); lists and links are stored as JSON text.
COLUMNS = tuple(spec.name for spec in fields(Memory))
_JSON_LISTS = tuple(spec.name for spec in fields(Memory) if spec.annotation == "tuple[str, ...]")
_LINKS = tuple(spec.name for spec in fields(Memory) if spec.annotation == "tuple[Link, ...]")

INSERT = (
    f"INSERT INTO memories ({', '.join(COLUMNS)}) "
    f"VALUES ({', '.join(':' + column for column in COLUMNS)})"
)
_FIELDS = attrgetter(*COLUMNS)
# json.dumps(..., ensure_ascii=False), as the store has always written lists;
# a tuple is written as the list it stands for.
_json = jsontext.dumps
_LIST_AT = tuple(COLUMNS.index(column) for column in _JSON_LISTS)
_LINKS_AT = tuple(COLUMNS.index(column) for column in _LINKS)


def _link_json(links: tuple[Link, ...]) -> str:
    return _json([{"type": link.type, "target": link.target} for link in links]) if links else "[]"


def to_values(memory: Memory) -> list[Any]:
    """The row's column values in `COLUMNS` order, lists and links as JSON."""
    values: list[Any] = list(_FIELDS(memory))
    for at in _LIST_AT:
        # Most rows have none; skipping the encoder matters at bulk-import scale.
        value = values[at]
        values[at] = _json(value) if value else "[]"
    for at in _LINKS_AT:
        values[at] = _link_json(values[at])
    return values


def from_row(row: sqlite3.Row) -> Memory:
    """The memory a row holds. Its values are the store's own, written through
    `to_values`, so they are taken as they are, without `Memory.__init__`."""
    values: dict[str, Any] = {column: row[column] for column in COLUMNS}
    for column in _JSON_LISTS:
        text = values[column]
        values[column] = tuple(jsontext.loads(text)) if text and text != "[]" else ()
    for column in _LINKS:
        text = values[column]
        values[column] = (
            tuple(Link(type=item["type"], target=item["target"]) for item in jsontext.loads(text))
            if text and text != "[]"
            else ()
        )
    return Memory.from_values(values)


def insert(db: Db, memory: Memory) -> None:
    insert_many(db, [memory])


# The columns with no NOT NULL and no default (the fields that default to
# None): an INSERT that leaves one out stores NULL there.
NULLABLE = tuple(spec.name for spec in fields(Memory) if spec.default is None)
_NULLABLE_AT = tuple(COLUMNS.index(column) for column in NULLABLE)


def insert_many(db: Db, memories: Iterable[Memory]) -> None:
    """Insert rows in order, one statement for each run of rows with the same NULLs.

    Python's sqlite3 binds None through its adapter lookup, which raises and
    clears an AttributeError each time. A typical row has a dozen NULL
    columns, and binding them costs a bulk import more than inserting the
    row, so a NULL whose column defaults to NULL is left out of the statement.
    """
    values = [to_values(memory) for memory in memories]
    for absent, run in groupby(values, key=_absent):
        sql, pick = _statement(absent)
        db.executemany(sql, map(pick, run))


_nullable = itemgetter(*_NULLABLE_AT).__call__
_NONES = (None,) * len(NULLABLE)


def _absent(values: list[Any]) -> tuple[bool, ...]:
    """Which of the NULLABLE columns hold None (a tuple of flags, as a cache key)."""
    return tuple(map(is_, _nullable(values), _NONES))


@cache
def _statement(absent: tuple[bool, ...]) -> tuple[str, Callable[[list[Any]], tuple[Any, ...]]]:
    """The INSERT without the `absent` columns, and what picks the others' values."""
    left_out = {at for at, gone in zip(_NULLABLE_AT, absent, strict=True) if gone}
    kept = [at for at in range(len(COLUMNS)) if at not in left_out]
    names = ", ".join(COLUMNS[at] for at in kept)
    sql = f"INSERT INTO memories ({names}) VALUES ({', '.join('?' * len(kept))})"
    return sql, itemgetter(*kept)


def get(db: Db, memory_id: str) -> Memory:
    row = db.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        raise not_found(memory_id)
    return from_row(row)


def not_found(memory_id: str) -> NotFound:
    """No such id; also what a reader is told of a row it may not see. The
    value is named only when it has an id's shape: whatever else was given
    in its place (a sentence, a key pasted by mistake) is not echoed."""
    return NotFound(f"no memory {named_id(memory_id)}; `tree-ring list` shows the ids")


def named_id(memory_id: str) -> str:
    """`memory_id` as an error may name it: quoted when it has an id's shape
    (`mem_` then letters, digits, '_', '.' or '-'), else said not to."""
    if compiled_patterns().memory_id.match(memory_id):
        return repr(memory_id)
    return "by that id (it is no id: ids read mem_ then letters, digits, '_', '.' or '-')"


def find(db: Db, memory_id: str) -> Memory | None:
    row = db.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return from_row(row) if row else None


def update(db: Db, memory_id: str, **changes: Any) -> None:
    """Set columns on one row; list and link columns take Python values."""
    params = dict(changes)
    for column in _JSON_LISTS:
        if column in params:
            params[column] = _json(list(params[column]))
    for column in _LINKS:
        if column in params:
            params[column] = _json(
                [{"type": link.type, "target": link.target} for link in params[column]]
            )
    unknown = set(params) - set(COLUMNS)
    if unknown:
        raise ValueError(f"not memory columns: {sorted(unknown)}")
    assignments = ", ".join(f"{column} = :{column}" for column in params)
    db.execute(f"UPDATE memories SET {assignments} WHERE id = :_id", {**params, "_id": memory_id})


def update_judged(db: Db, memory: Memory) -> None:
    """Write what a contradiction's finding changes of a stored row, as
    planned in `memory`: its links, trust, review reason and update time."""
    update(
        db,
        memory.id,
        links=memory.links,
        trust=memory.trust,
        review_reason=memory.review_reason,
        updated_at=memory.updated_at,
    )


def delete(db: Db, memory_id: str) -> None:
    """Delete one row; its text leaves both FTS indexes with it (the schema's
    delete triggers), in the caller's transaction. Claims, tombstones, tree
    leaves and consolidations over it are the caller's to settle."""
    db.execute("DELETE FROM memories WHERE id = ?", (memory_id,))


_BY_IDS = "SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?))"


def by_ids(db: Db, ids: Iterable[str]) -> dict[str, Memory]:
    """The stored rows among `ids`, by id (a missing id is simply absent)."""
    return {row["id"]: from_row(row) for row in db.execute(_BY_IDS, (_json(list(ids)),))}


def unredacted(db: Db, ids: Iterable[str]) -> list[Memory]:
    """The stored rows among `ids` that were not redacted, in the table's order."""
    sql = _BY_IDS + " AND redacted_at IS NULL"
    return [from_row(row) for row in db.execute(sql, (_json(list(ids)),))]


def states(db: Db, ids: Iterable[str]) -> list[Any]:
    """(id, trust, sensitivity, redacted_at) of the stored rows among `ids`:
    what the write path's checks need to know of a row."""
    sql = (
        "SELECT id, trust, sensitivity, redacted_at FROM memories"
        " WHERE id IN (SELECT value FROM json_each(?))"
    )
    return db.query(sql, (_json(list(ids)),))


def content_hashes(db: Db, ids: Iterable[str]) -> dict[str, str]:
    """Id -> content hash of the stored rows among `ids`."""
    sql = "SELECT id, content_hash FROM memories WHERE id IN (SELECT value FROM json_each(?))"
    return dict(db.query(sql, (_json(list(ids)),)))


def held_in_other_case(db: Db, ids: Iterable[str]) -> set[str]:
    """The ids among `ids` with a capital letter that differ only in letter
    case from a stored row's. Tree Ring writes ids in small letters, so an
    export's own ids cost nothing; others cost a scan of the rows."""
    wanted = {memory_id.lower(): memory_id for memory_id in ids if memory_id != memory_id.lower()}
    if not wanted:
        return set()
    sql = "SELECT id FROM memories WHERE lower(id) IN (SELECT value FROM json_each(?))"
    found: set[str] = set()
    for (stored,) in db.query(sql, (_json(list(wanted)),)):
        asked = wanted.get(str(stored).lower())
        if asked is not None and asked != stored:
            found.add(asked)
    return found


def readable(db: Db, reader: Identity, ids: Iterable[str]) -> set[str]:
    """The ids among `ids` of stored rows (in any state) that `reader`'s recall
    may read (`live.visible`): what an agent's `show` finds; any other is "no
    memory" to it."""
    clause = live.visible(reader)
    sql = (
        "SELECT m.id FROM memories m WHERE m.id IN (SELECT value FROM json_each(:ids))"
        f" AND {clause.sql}"
    )
    return {str(row[0]) for row in db.query(sql, {**clause.params, "ids": _json(list(ids))})}


Key = tuple[str | None, str, str | None, str]
_PARTITION = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}


def content_key(memory: Memory) -> Key:
    """Where a memory stands and what it says: project, scope, the partition
    of a private scope (its agent's, workflow's or session's id; None for a
    shared scope), and its content hash."""
    column = _PARTITION.get(memory.scope)
    partition = None if column is None else getattr(memory, column)
    return (memory.project, memory.scope, partition, memory.content_hash)


def standing_with_content(
    db: Db,
    memories: Iterable[Memory],
    *,
    reader: Identity | None = None,
    also: Iterable[str] = (),
) -> dict[Key, str]:
    """`content_key` -> the id of the oldest stored row that still stands
    (`live.STANDING`) with that key, for each key of `memories` that has one.
    With `reader`, only a row its recall may read (`live.visible`) or one of
    the ids `also` names."""
    wanted = {content_key(memory) for memory in memories}
    found: dict[Key, str] = {}
    seen: dict[str, Any] = {}
    kept = ""
    if reader is not None:
        clause = live.visible(reader)
        seen = {**clause.params, "also": _json(list(also))}
        kept = f" AND ({clause.sql} OR m.id IN (SELECT value FROM json_each(:also)))"
    sql = (
        "SELECT m.id, m.project, m.scope, m.agent_profile, m.workflow_id, m.session_id,"
        " m.content_hash FROM memories m WHERE m.project = :project"
        " AND m.content_hash IN (SELECT value FROM json_each(:hashes))"
        f" AND {live.sql(live.STANDING)}{kept} ORDER BY m.created_at, m.id"
    )
    for project in sorted({key[0] for key in wanted if key[0] is not None}):
        hashes = sorted({key[3] for key in wanted if key[0] == project})
        params = {"project": project, "hashes": _json(hashes), "live_t": now_iso(), **seen}
        for row in db.query(sql, params):
            column = _PARTITION.get(row["scope"])
            partition = None if column is None else row[column]
            key = (row["project"], row["scope"], partition, row["content_hash"])
            if key in wanted:
                found.setdefault(key, row["id"])
    return found


def twins(db: Db, memory: Memory) -> list[Memory]:
    """The project's other memories with `memory`'s content (its content
    hash), not retired and not redacted, oldest first: what forgetting it
    forgets with it when the caller may (`write/correct.py`)."""
    sql = (
        "SELECT * FROM memories WHERE project IS ? AND content_hash = ? AND id != ?"
        " AND retired_at IS NULL AND redacted_at IS NULL ORDER BY created_at, id"
    )
    return [
        from_row(row) for row in db.execute(sql, (memory.project, memory.content_hash, memory.id))
    ]


def last_rowid(db: Db) -> int:
    """The table's last rowid: its size, give or take what was deleted."""
    return int(db.scalar("SELECT coalesce(max(rowid), 0) FROM memories"))


def consolidations_naming(db: Db, project: str | None, needle: str) -> list[Memory]:
    """The project's consolidation rows (any state) whose links hold `needle`
    (a JSON-quoted id) as a substring; the caller checks the links themselves.
    The partial index on consolidation rows keeps this off the full table."""
    if project is None:
        sql = "SELECT * FROM memories WHERE project IS NULL"
        params: tuple[str, ...] = (needle,)
    else:
        sql = "SELECT * FROM memories WHERE project = ?"
        params = (project, needle)
    sql += " AND source_type = 'consolidation' AND instr(links, ?) > 0"
    return [from_row(row) for row in db.execute(sql, params)]
