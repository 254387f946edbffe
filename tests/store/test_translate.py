"""SQLite's failures, named with their fix: each kind of message to its one line."""

from __future__ import annotations

import sqlite3

import pytest

from tree_ring.model.errors import StoreBusy, StoreFault
from tree_ring.store.sql import translate


@pytest.mark.parametrize(
    ("message", "kind", "says"),
    [
        ("attempt to write a readonly database", StoreFault, "is read-only; make it writable"),
        ("database or disk is full", StoreFault, "no space left for the store"),
        ("file is not a database", StoreFault, "is damaged; run `tree-ring doctor`"),
        ("database disk image is malformed", StoreFault, "is damaged; run `tree-ring doctor`"),
        ("database is locked", StoreBusy, "stayed locked"),
        ("no such module: fts5", StoreFault, "has no FTS5"),
        ("database is busy", StoreBusy, "stayed locked"),
        ("attempt to write a read-only file", StoreFault, "is read-only; make it writable"),
        ("vtable constructor failed: corrupt index", StoreFault, "is damaged; run `tree-ring"),
        ("Could not decode to UTF-8 column 'summary'", StoreFault, "is damaged; run `tree-ring"),
        ("unable to open database file", StoreFault, "cannot open the store at"),
        ("no such module: rtree", StoreFault, "store error at /work/p"),
        ("no such table: fts5_x", StoreFault, "store error at /work/p"),
    ],
)
def test_each_failure_is_named_with_its_fix(message: str, kind: type, says: str) -> None:
    fault = translate(sqlite3.OperationalError(message), "/work/p/.tree-ring/memory.sqlite")
    assert type(fault) is kind
    assert says in str(fault)
    assert "\n" not in str(fault)


def test_a_message_of_another_kind_is_not_called_read_only() -> None:
    fault = translate(sqlite3.OperationalError("no such table: memories"), "/p/memory.sqlite")
    assert "read-only" not in str(fault) and "damaged" not in str(fault)


def test_the_raw_message_is_kept_as_the_detail() -> None:
    fault = translate(sqlite3.OperationalError("database disk image is malformed"), "/p/m.sqlite")
    assert isinstance(fault, StoreFault)
    assert fault.detail == "database disk image is malformed"
    decoded = translate(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), "/p/m.sqlite")
    assert isinstance(decoded, StoreFault)
    assert "is damaged" in str(decoded) and "not UTF-8" in decoded.detail
