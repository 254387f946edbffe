"""The one way SQL runs: a connection is made here, and every statement and
every fetch goes through `Db`, which turns a SQLite error into a one-line
`StoreFault` (or `StoreBusy`) that names the file and what to do. No raw
SQLite message reaches a user, and no other module touches a connection.
"""

from __future__ import annotations

import sqlite3

from tree_ring.model.errors import StoreBusy, StoreFault

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from tree_ring.model.project import StrPath

BUSY_TIMEOUT_MS = 5_000


def connect(
    path: StrPath, *, read_only: bool = False, timeout_ms: int = BUSY_TIMEOUT_MS
) -> sqlite3.Connection:
    """The one place a connection is made; tests replace it to simulate a broken SQLite.

    Read-only opens with `mode=ro`, so SQLite itself refuses every write with
    SQLITE_READONLY, exactly as for a file the user cannot write (and, unlike
    chmod, also when running as root).
    """
    if read_only:
        from pathlib import Path  # only a read-only open needs a file: URI

        target = f"{Path(path).as_uri()}?mode=ro"
    else:
        target = str(path)
    return sqlite3.connect(
        target,
        uri=read_only,
        isolation_level=None,
        timeout=timeout_ms / 1000,
        check_same_thread=False,
    )


def translate(exc: sqlite3.Error, path: StrPath) -> StoreFault | StoreBusy:
    """Name the failure and the fix; never show a raw SQLite message alone."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return StoreBusy(
            f"the store at {path} stayed locked; another Tree Ring process is writing, "
            "retry in a moment"
        )
    if "readonly" in text or "read-only" in text:
        fault = StoreFault(f"the store at {path} is read-only; make it writable and retry")
    elif "full" in text:
        fault = StoreFault(f"no space left for the store at {path}; free disk space and retry")
    elif "not a database" in text or "malformed" in text or "corrupt" in text:
        fault = StoreFault(
            f"the store at {path} is damaged; run `tree-ring doctor` or restore a backup"
        )
    elif "no such module" in text and "fts5" in text:
        fault = StoreFault("this Python's SQLite has no FTS5; use a Python built with FTS5")
    elif "unable to open" in text:
        fault = StoreFault(f"cannot open the store at {path}; check that the directory exists")
    else:
        fault = StoreFault(f"store error at {path}: {exc}; run `tree-ring doctor`")
    fault.detail = str(exc)
    return fault


def open_db(path: StrPath, *, read_only: bool = False, timeout_ms: int = BUSY_TIMEOUT_MS) -> Db:
    """A connection to the file at `path`, rows as `sqlite3.Row`, errors translated."""
    try:
        conn = connect(path, read_only=read_only, timeout_ms=timeout_ms)
    except sqlite3.Error as exc:
        raise translate(exc, path) from None
    conn.row_factory = sqlite3.Row
    return Db(conn, path)


class Rows:
    """A cursor whose every fetch turns SQLite errors into `translate`'s, so a
    page that breaks halfway through a scan is a one-line error too."""

    __slots__ = ("_cursor", "_path")

    def __init__(self, cursor: sqlite3.Cursor, path: StrPath) -> None:
        self._cursor = cursor
        self._path = path

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except sqlite3.Error as exc:
            raise translate(exc, self._path) from None

    def fetchall(self) -> list[Any]:
        try:
            return self._cursor.fetchall()
        except sqlite3.Error as exc:
            raise translate(exc, self._path) from None

    def fetchmany(self, size: int) -> list[Any]:
        try:
            return self._cursor.fetchmany(size)
        except sqlite3.Error as exc:
            raise translate(exc, self._path) from None

    def __iter__(self) -> Iterator[Any]:
        while batch := self.fetchmany(256):
            yield from batch

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount


class Db:
    """The one way SQL runs against a store: every statement goes through
    `execute` or `executemany`, and every SQLite error comes out as the
    one-line `StoreFault` (or `StoreBusy`) that `translate` makes, naming the
    file. Nothing else in the package touches a connection."""

    __slots__ = ("conn", "path")

    def __init__(self, conn: sqlite3.Connection, path: StrPath) -> None:
        self.conn = conn
        self.path = path

    def execute(self, sql: str, params: Any = ()) -> Rows:
        try:
            return Rows(self.conn.execute(sql, params), self.path)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from None

    def executemany(self, sql: str, params: Iterable[Any]) -> Rows:
        try:
            return Rows(self.conn.executemany(sql, params), self.path)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from None

    def query(self, sql: str, params: Any = ()) -> list[Any]:
        return self.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Any = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction
