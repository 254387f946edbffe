"""The SQLite store: opening it, migrating it, and writing to it safely.

WAL lets readers (the brief, recall) run while one writer commits. Every write
takes the lock up front with `BEGIN IMMEDIATE`, waits on SQLite's busy timeout,
and retries a bounded number of times with backoff, so concurrent agents queue
instead of failing. SQLite errors become one-line `StoreFault`s that say what
to do; no raw SQLite message reaches a user.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from tree_ring.model import project
from tree_ring.model.errors import NoStore, StoreBusy, StoreFault
from tree_ring.model.record import canonical_json, now_iso
from tree_ring.store import schema

BUSY_TIMEOUT_MS = 5_000
WRITE_ATTEMPTS = 8
BACKOFF_CAP_S = 0.5


def _busy_timeout_ms() -> int:
    raw = os.environ.get("TREE_RING_BUSY_TIMEOUT_MS", "")
    return int(raw) if raw.isdigit() else BUSY_TIMEOUT_MS


def _read_only_requested() -> bool:
    return os.environ.get("TREE_RING_READ_ONLY", "").strip().lower() in ("1", "true", "yes", "on")


SQLITE_MAGIC = b"SQLite format 3\x00"


def file_damage(path: Path) -> str | None:
    """What the 100-byte header shows is wrong with the file, or None.

    SQLite opens a truncated file without complaint and fails only on the
    pages that are gone, possibly halfway through a write; the header's page
    count shows the loss up front. A WAL with frames may legitimately hold
    pages the file does not yet have, so then SQLite is left to judge.
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(100)
    except OSError:
        return None  # unreadable: let SQLite report it in its own words
    if size == 0:
        return None
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return "not a SQLite database"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65_536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The header's page count is valid only when these two counters agree.
    if not pages or head[24:28] != head[92:96]:
        return None
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return None
    if size < pages * page_size:
        return f"truncated: {size:,} of {pages * page_size:,} bytes"
    return None


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """The one place a connection is made; tests replace it to simulate a broken SQLite.

    Read-only opens with `mode=ro`, so SQLite itself refuses every write with
    SQLITE_READONLY, exactly as for a file the user cannot write (and, unlike
    chmod, also when running as root).
    """
    target = f"{path.as_uri()}?mode=ro" if read_only else str(path)
    return sqlite3.connect(
        target,
        uri=read_only,
        isolation_level=None,
        timeout=_busy_timeout_ms() / 1000,
        check_same_thread=False,
    )


def translate(exc: sqlite3.Error, path: Path) -> StoreFault | StoreBusy:
    """Name the failure and the fix; never show a raw SQLite message alone."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return StoreBusy(
            f"the store at {path} stayed locked; another Tree Ring process is writing, "
            "retry in a moment"
        )
    if "readonly" in text or "read-only" in text:
        return StoreFault(f"the store at {path} is read-only; make it writable and retry")
    if "full" in text:
        return StoreFault(f"no space left for the store at {path}; free disk space and retry")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreFault(
            f"the store at {path} is damaged; run `tree-ring doctor` or restore a backup"
        )
    if "no such module" in text and "fts5" in text:
        return StoreFault("this Python's SQLite has no FTS5; use a Python built with FTS5")
    if "unable to open" in text:
        return StoreFault(f"cannot open the store at {path}; check that the directory exists")
    return StoreFault(f"store error at {path}: {exc}; run `tree-ring doctor`")


class Store:
    """One open store. Use as a context manager, or call `close()`."""

    def __init__(
        self, conn: sqlite3.Connection, root: Path, path: Path, *, read_only: bool = False
    ) -> None:
        self.conn = conn
        self.root = root
        self.path = path
        self.read_only = read_only

    @classmethod
    def open(cls, root: Path, *, create: bool = False, read_only: bool | None = None) -> Store:
        """Open (and migrate) the store; `read_only` defaults to TREE_RING_READ_ONLY."""
        root = project.normalise_root(root)
        path = project.store_path(root)
        read_only = _read_only_requested() if read_only is None else read_only
        if (read_only or not create) and not path.exists():
            raise NoStore(f"no store at {path}; run `tree-ring --root {root} init`")
        # SQLite treats an empty file as a new database; migrating it would hide
        # that every memory was lost (a truncated copy, a failed sync).
        if not create and path.stat().st_size == 0:
            raise StoreFault(
                f"the store at {path} is empty (truncated?); restore it from a backup, "
                "or delete it and run `tree-ring init`"
            )
        damage = file_damage(path) if path.exists() else None
        if damage:
            raise StoreFault(
                f"the store at {path} is damaged ({damage}); "
                "run `tree-ring doctor` or restore a backup"
            )
        try:
            conn = connect(path, read_only=read_only)
        except sqlite3.Error as exc:
            raise translate(exc, path) from None
        store = cls(conn, root, path, read_only=read_only)
        try:
            store._configure()
            store._migrate()
        except sqlite3.Error as exc:
            conn.close()
            raise translate(exc, path) from None
        except BaseException:
            conn.close()
            raise
        return store

    def _configure(self) -> None:
        conn = self.conn
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {_busy_timeout_ms()}")
        # Forgotten text must not linger in freed pages of the file.
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal" and not self.read_only:
            conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable against a killed process in WAL mode; only a power
        # loss can drop the last commits, and never corrupts the file.
        conn.execute("PRAGMA synchronous = NORMAL")
        # A size cap in pages: what a full disk looks like to SQLite (SQLITE_FULL).
        # Tests use it to prove a full disk writes nothing; SQLite never sets it
        # below the store's current size.
        max_pages = os.environ.get("TREE_RING_MAX_PAGES", "")
        if max_pages.isdigit():
            conn.execute(f"PRAGMA max_page_count = {int(max_pages)}")

    def _migrate(self) -> None:
        if schema.check_version(self.conn):
            self._with_retry(lambda: schema.migrate(self.conn, now_iso()))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _with_retry(self, action: Any) -> Any:
        delay = 0.01
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return action()
            except sqlite3.OperationalError as exc:
                text = str(exc).lower()
                if ("locked" not in text and "busy" not in text) or attempt == WRITE_ATTEMPTS - 1:
                    raise
            # Jitter from os.urandom: importing random would cost every hook run.
            time.sleep(delay * (1 + os.urandom(1)[0] / 256))
            delay = min(delay * 2, BACKOFF_CAP_S)
        raise AssertionError("unreachable")

    @contextmanager
    def write(self) -> Generator[sqlite3.Connection]:
        """One immediate transaction: all of it commits, or none of it does."""
        try:
            self._with_retry(lambda: self.conn.execute("BEGIN IMMEDIATE"))
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from None
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise translate(exc, self.path) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        # SQLite may already have rolled back (e.g. on a full disk).
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("ROLLBACK")

    def query(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            raise translate(exc, self.path) from None
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.path) from None

    def setting(self, key: str, default: Any = None) -> Any:
        rows = self.query("SELECT value FROM settings WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else default

    @staticmethod
    def put_setting(conn: sqlite3.Connection, key: str, value: Any) -> None:
        conn.execute(
            "INSERT INTO settings(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, canonical_json(value)),
        )
