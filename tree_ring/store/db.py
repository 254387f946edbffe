"""The SQLite store: opening it, migrating it, and writing to it safely.

WAL lets readers (the brief, recall) run while one writer commits. Every write
takes the lock up front with `BEGIN IMMEDIATE`, waits on SQLite's busy timeout,
and retries a bounded number of times with backoff, so concurrent agents queue
instead of failing. Every statement runs through `sql.Db`, which turns SQLite
errors into one-line `StoreFault`s that say what to do. How to open a store
(busy timeout, read-only, a size cap) is the caller's `Options`, read from the
caller's environment by the CLI and the hook, never by the library itself.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from tree_ring.model import project
from tree_ring.model.errors import NoStore, StoreBusy, StoreFault
from tree_ring.model.record import now_iso
from tree_ring.store import schema
from tree_ring.store.sql import BUSY_TIMEOUT_MS, Db, open_db

T = TypeVar("T")
WRITE_ATTEMPTS = 8
BACKOFF_CAP_S = 0.5
_TRUE = ("1", "true", "yes", "on")


class Options:
    """How to open a store, as the caller's environment says; the library reads
    no environment of its own (the CLI and the hook build this from theirs)."""

    __slots__ = ("busy_timeout_ms", "max_pages", "read_only")

    def __init__(
        self,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        read_only: bool = False,
        max_pages: int | None = None,
    ) -> None:
        self.busy_timeout_ms = busy_timeout_ms
        self.read_only = read_only
        # A size cap in pages: what a full disk looks like to SQLite
        # (SQLITE_FULL). Tests use it to prove a full disk writes nothing;
        # SQLite never sets it below the store's current size.
        self.max_pages = max_pages

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Options:
        """TREE_RING_BUSY_TIMEOUT_MS, TREE_RING_READ_ONLY, TREE_RING_MAX_PAGES."""
        timeout = environ.get("TREE_RING_BUSY_TIMEOUT_MS", "")
        pages = environ.get("TREE_RING_MAX_PAGES", "")
        return cls(
            busy_timeout_ms=int(timeout) if timeout.isdigit() else BUSY_TIMEOUT_MS,
            read_only=environ.get("TREE_RING_READ_ONLY", "").strip().lower() in _TRUE,
            max_pages=int(pages) if pages.isdigit() else None,
        )


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


class Store:
    """One open store. Use as a context manager, or call `close()`."""

    def __init__(self, db: Db, root: Path, *, options: Options) -> None:
        self.db = db
        self.root = root
        self.path = db.path
        self.options = options
        self.read_only = options.read_only

    @classmethod
    def open(
        cls,
        root: Path,
        *,
        create: bool = False,
        read_only: bool | None = None,
        options: Options | None = None,
    ) -> Store:
        """Open (and migrate) the store. `options` come from the caller's
        environment (`Options.from_environ`); `read_only` overrides theirs."""
        options = options or Options()
        if read_only is not None and read_only != options.read_only:
            options = Options(
                busy_timeout_ms=options.busy_timeout_ms,
                read_only=read_only,
                max_pages=options.max_pages,
            )
        root = project.normalise_root(root)
        path = project.store_path(root)
        if (options.read_only or not create) and not path.exists():
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
        db = open_db(path, read_only=options.read_only, timeout_ms=options.busy_timeout_ms)
        store = cls(db, root, options=options)
        try:
            store._configure()
            store._migrate()
        except BaseException:
            db.conn.close()
            raise
        return store

    @property
    def conn(self) -> sqlite3.Connection:
        """The raw connection, for tests that watch or break it."""
        return self.db.conn

    def _configure(self) -> None:
        db = self.db
        db.execute(f"PRAGMA busy_timeout = {int(self.options.busy_timeout_ms)}")
        # Forgotten text must not linger in freed pages of the file.
        db.execute("PRAGMA secure_delete = ON")
        db.execute("PRAGMA foreign_keys = ON")
        mode = db.scalar("PRAGMA journal_mode")
        if str(mode).lower() != "wal" and not self.read_only:
            db.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable against a killed process in WAL mode; only a power
        # loss can drop the last commits, and never corrupts the file.
        db.execute("PRAGMA synchronous = NORMAL")
        if self.options.max_pages is not None:
            db.execute(f"PRAGMA max_page_count = {int(self.options.max_pages)}")

    def _migrate(self) -> None:
        if schema.check_version(self.db):
            self._with_retry(lambda: schema.migrate(self.db, now_iso()))

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _with_retry(self, action: Callable[[], T]) -> T:
        delay = 0.01
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return action()
            except StoreBusy:
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
            # Jitter from os.urandom: importing random would cost every hook run.
            time.sleep(delay * (1 + os.urandom(1)[0] / 256))
            delay = min(delay * 2, BACKOFF_CAP_S)
        raise AssertionError("unreachable")

    @contextmanager
    def write(self) -> Generator[Db]:
        """One immediate transaction: all of it commits, or none of it does."""
        db = self.db
        self._with_retry(lambda: db.execute("BEGIN IMMEDIATE"))
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            # SQLite may already have rolled back (e.g. on a full disk).
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.conn.execute("ROLLBACK")
            raise

    def query(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        return self.db.query(sql, params)
