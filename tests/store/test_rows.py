"""The memories table and `Memory`'s declaration: one list of fields, in one order."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from tree_ring.model import project
from tree_ring.model.frozen import fields
from tree_ring.model.record import Link, Memory
from tree_ring.store import rows, schema
from tree_ring.store.db import Store


def _table_info(conn: sqlite3.Connection) -> list[tuple[str, str, bool, str | None]]:
    """(name, type, whether it may not be NULL, default) of each column of
    `memories`, in order; the primary key may not be NULL either."""
    return [
        (row[1], row[2], bool(row[3] or row[5]), row[4])
        for row in conn.execute("PRAGMA table_info(memories)").fetchall()
    ]


def test_the_memories_table_has_the_declared_fields_in_order(store: Store) -> None:
    """The shipped migration spells the table out; `Memory` declares it: the two agree."""
    declared = [spec.name for spec in fields(Memory)]
    with closing(sqlite3.connect(project.store_path(store.root))) as conn:
        info = _table_info(conn)
    assert [name for name, *_ in info] == declared
    assert list(rows.COLUMNS) == declared
    # The literal DDL of migration 0001, which never changes, says the same.
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute(schema.MEMORIES)
        assert [name for name, *_ in _table_info(conn)] == declared


def test_what_the_store_derives_matches_each_column(store: Store) -> None:
    with closing(sqlite3.connect(project.store_path(store.root))) as conn:
        info = {
            name: (kind, notnull, default) for name, kind, notnull, default in _table_info(conn)
        }
    # Left out of an INSERT when None: exactly the columns that then hold NULL.
    assert set(rows.NULLABLE) == {
        name for name, (_, notnull, default) in info.items() if not notnull and default is None
    }
    # Lists and links are JSON text that defaults to an empty list.
    json_columns = {name for name, (_, _, default) in info.items() if default == "'[]'"}
    tuples = {spec.name for spec in fields(Memory) if spec.annotation.startswith("tuple[")}
    assert json_columns == tuples
    floats = {spec.name for spec in fields(Memory) if spec.annotation == "float"}
    assert floats == {name for name, (kind, *_) in info.items() if kind == "REAL"}


def test_a_memory_goes_into_a_row_and_comes_back_the_same(store: Store) -> None:
    made = Memory(
        id="mem_20261201_000000_0000000000a1",
        created_at="2026-12-01T00:00:00.000000Z",
        updated_at="2026-12-01T00:00:00.000000Z",
        summary="Round trip keeps every field",
        event_type="note",
        project="p",
        tags=("a", "ü"),
        supersedes=("mem_20261201_000000_0000000000a0",),
        links=(Link("related", "mem_20261201_000000_0000000000a0"),),
        salience=0.25,
        valid_from="2026-12-01T00:00:00.000000Z",
        content_hash="sha256:x",
    )
    with store.write() as db:
        rows.insert(db, made)
    back = rows.get(store.db, made.id)
    assert back == made and vars(back) == vars(made)
    assert type(back.tags) is tuple and type(back.links[0]) is Link
