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

import os
import time
from _thread import allocate_lock

from tree_ring.model import jsontext, project
from tree_ring.model.errors import (
    NoStore,
    ProjectMismatch,
    StoreBusy,
    StoreFault,
    TreeRingError,
    UnsafePath,
    UsageError,
)
from tree_ring.model.record import now_iso
from tree_ring.store import schema
from tree_ring.store.sql import (
    BUSY_TIMEOUT_MS,
    MAX_PATH_BYTES,
    Db,
    damaged_remedy,
    open_db,
    path_bytes,
)

# Only for the checker: the hooks open a store on every call, and typing,
# pathlib and types cost them more than opening it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from types import TracebackType
    from typing import Any, TypeVar

    from tree_ring.model.project import StrPath

    T = TypeVar("T")
WRITE_ATTEMPTS = 8
BACKOFF_CAP_S = 0.5
_TRUE = ("1", "true", "yes", "on")


class Options:
    """How to open a store, as the caller's environment says; the library reads
    no environment of its own (the CLI and the hook build this from theirs)."""

    __slots__ = ("busy_timeout_ms", "max_pages", "read_only", "write_attempts")

    def __init__(
        self,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        read_only: bool = False,
        max_pages: int | None = None,
        write_attempts: int = WRITE_ATTEMPTS,
    ) -> None:
        self.busy_timeout_ms = busy_timeout_ms
        self.read_only = read_only
        # A size cap in pages: what a full disk looks like to SQLite
        # (SQLITE_FULL). Tests use it to prove a full disk writes nothing;
        # SQLite never sets it below the store's current size.
        self.max_pages = max_pages
        # How often a write (a migration's included) tries to begin while
        # another writer holds the store, each try waiting the busy timeout.
        self.write_attempts = max(1, write_attempts)

    def hurried(self) -> Options:
        """These options with one write attempt: a hook must answer within the
        harness's timeout (15 s), so a store another writer holds past the
        busy timeout fails it open then, not after the retries' 40 s."""
        return Options(
            busy_timeout_ms=self.busy_timeout_ms,
            read_only=self.read_only,
            max_pages=self.max_pages,
            write_attempts=1,
        )

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


# The files (device, inode) this process has a connection open on, and how
# many. Closing any descriptor of a file drops every POSIX lock the process
# holds on it, SQLite's included, so while one is open the header is not
# read again through a descriptor of Tree Ring's own (`file_damage`).
_open_files: dict[tuple[int, int], int] = {}
_open_lock = allocate_lock()  # _thread: threading costs a hook 2 ms to import


def _file_key(path: StrPath) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _opened(key: tuple[int, int] | None, change: int) -> None:
    if key is None:
        return
    with _open_lock:
        count = _open_files.get(key, 0) + change
        if count > 0:
            _open_files[key] = count
        else:
            _open_files.pop(key, None)


def file_damage(path: StrPath) -> str | None:
    """What the 100-byte header shows is wrong with the file, or None.

    Not read while this process has a connection open on the file: closing
    the descriptor that read it would drop that connection's locks.

    SQLite opens a truncated file without complaint and fails only on the
    pages that are gone, possibly halfway through a write; the header's page
    count shows the loss up front. A WAL with frames may legitimately hold
    pages the file does not yet have, so then SQLite is left to judge.
    """
    key = _file_key(path)
    if key is not None and key in _open_files:
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(100)
    except OSError:
        return None  # unreadable: let SQLite report it in its own words
    if not head:
        return None  # empty: SQLite makes it a store
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return "not a SQLite database"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65_536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The header's page count is valid only when these two counters agree.
    if not pages or head[24:28] != head[92:96]:
        return None
    if _wal_frames(path):
        return None
    # The size is read after the header: another process's checkpoint can
    # grow the file and its page count at any moment, and a size read first
    # would be short of a count read after it.
    try:
        size = os.stat(path).st_size
    except OSError:
        return None
    if size < pages * page_size:
        return f"truncated: {size:,} of {pages * page_size:,} bytes"
    return None


def access(path: StrPath, read_only: bool = False) -> tuple[bool, bool]:
    """(read_only, immutable): how the file at `path` can be opened.

    A WAL store is written through side files (-wal, -shm) beside it, so it
    is read-only when the file or its directory is not writable, whatever was
    asked. When the directory is not writable and holds no -wal with frames,
    no one can change the store, and it is opened immutable: SQLite then needs
    no -shm file, which it could not create there.
    """
    name: str = os.fspath(path)
    folder = os.path.dirname(name) or "."
    folder_writable = os.access(folder, os.W_OK)
    if not read_only and folder_writable and os.access(path, os.W_OK):
        return False, False
    return True, not folder_writable and not _wal_frames(path)


def _wal_frames(path: StrPath) -> bool:
    """Whether the store's -wal holds frames. One stat, never two: the last
    connection to close, in any process, deletes the file between them."""
    try:
        return os.stat(f"{os.fspath(path)}-wal").st_size > 0
    except OSError:
        return False


def longest_root() -> int:
    """How long, in bytes, a project's path may be for SQLite to create its
    store there: the limit less `/.tree-ring/memory.sqlite.new-<16 hex>`."""
    from tree_ring.store.builds import NEW_RANDOM_BYTES, NEW_SUFFIX

    tail = f"/{project.DIR}/{project.STORE}{NEW_SUFFIX}" + "0" * 2 * NEW_RANDOM_BYTES
    return MAX_PATH_BYTES - len(tail.encode())


def check_room(root: StrPath) -> None:
    """Refuse, before anything is written, a project whose store SQLite
    could not create: past the limit it fails to open with no word why."""
    length = path_bytes(root)
    if os.name != "nt" and length > longest_root():
        raise UsageError(
            f"the project path is too long for SQLite ({length} bytes, limit {longest_root()}); "
            "move the project to a shorter path and run `tree-ring init` there"
        )


def _refuse_tracked(path: str) -> None:
    """Refuse a store that git tracks, or a side file of it (a write-ahead
    log SQLite would replay over this clone's own store). The store is
    ignored, never committed: one that arrived with a checkout (a branch or a
    fork that added it) holds whatever its author wrote, as the person's own
    memories, past every rule the team ledger's lines are held to, and git
    replaced this clone's own store with it."""
    from tree_ring.model import gitdir
    from tree_ring.model.text import error_safe

    sides = (*project.STORE_SIDE_FILES, "-ledger")  # `-ledger`: the copy a sync keeps
    try:
        found = gitdir.tracked([path, *(path + side for side in sides)])
    except gitdir.Unanswered as exc:
        raise UnsafePath(
            f"cannot tell whether git tracks {path} ({error_safe(str(exc))}); a store that came "
            "with a checkout is not trusted: make `git ls-files` work here, then try again"
        ) from None
    if found is not None:
        raise UnsafePath(
            f"{found} is tracked by git: it came with the checkout, not from you, and Tree Ring "
            "will not trust it; untrack it (`git rm --cached`) and move it aside, then restore "
            "your own from a backup, or run `tree-ring sync` to rebuild from the team ledger"
        )


class Store:
    """One open store. Use as a context manager, or call `close()`."""

    def __init__(self, db: Db, root: StrPath, *, options: Options) -> None:
        self.db = db
        self.root_str = os.fspath(root)
        self.options = options
        self.read_only = options.read_only
        self._file = _file_key(db.path) if os.fspath(db.path) != ":memory:" else None
        _opened(self._file, 1)

    @property
    def root(self) -> Path:
        """The project directory."""
        from pathlib import Path

        return Path(self.root_str)

    @property
    def path(self) -> Path:
        """The database file."""
        from pathlib import Path

        return Path(self.db.path)

    @classmethod
    def open(
        cls,
        root: StrPath,
        *,
        create: bool = False,
        read_only: bool | None = None,
        options: Options | None = None,
    ) -> Store:
        """Open (and migrate) the store. `options` come from the caller's
        environment (`Options.from_environ`); `read_only` overrides theirs."""
        options = _with_read_only(options or Options(), read_only)
        root = project.normalise_root_str(root)
        project.check_tree(root)  # SQLite follows links; nothing there may be one
        path = project.store_path_str(root)
        _refuse_tracked(path)
        named = _named_project(root)
        if create and named is not None and not os.path.exists(path):
            # A store is born with project.json's id (`_belongs_to` holds it to
            # that id from then on), so one committed file must not be able to
            # choose it alone: where the team ledger names another project (or
            # none, or a newer schema), one of the two was edited, and nothing
            # is built that could not import the team's memories and tombstones.
            problem = project.ledger_problem(root, named)
            if problem is not None:
                raise ProjectMismatch(problem)
        store = cls._open_path(
            path,
            root,
            create=create,
            options=options,
            name="the store",
            fix=project.store_missing_fix(root),
            owner=named,
        )
        try:
            store._belongs_to(named)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_file(
        cls,
        path: str,
        *,
        create: bool = False,
        read_only: bool | None = None,
        options: Options | None = None,
        name: str = "the store",
        fix: str = "create it with Tree Ring",
    ) -> Store:
        """Open (and migrate) a store that belongs to no project: the user
        store. The same schema, migrations and checks as a project's; `root`
        is its folder, created (private to the user) when `create` is set."""
        options = _with_read_only(options or Options(), read_only)
        folder = os.path.dirname(os.path.abspath(path))
        if create and not options.read_only:
            try:
                os.makedirs(folder, mode=0o700, exist_ok=True)
            except OSError as exc:  # a file where a folder would be, a folder not ours
                raise StoreFault(
                    f"cannot make the folder {folder} for {name} ({exc.strerror or exc}); "
                    "make it, or remove what is in its way"
                ) from None
        return cls._open_path(path, folder, create=create, options=options, name=name, fix=fix)

    @classmethod
    def open_to_read(
        cls, path: str, *, options: Options | None = None, name: str = "the store"
    ) -> Store:
        """A store a hook only reads: none of `open`'s settings but the busy
        timeout, and the schema's version from the file's header instead of
        the migration ledger (which costs a SessionStart hook a millisecond).
        Anything out of the ordinary (read-only, damaged, a version to migrate
        or from a newer Tree Ring) takes `open_file`, which deals with it."""
        options = options or Options()
        if options.read_only or file_damage(path) is not None or access(path)[0]:
            return cls.open_file(path, options=options, name=name)
        db = open_db(path, timeout_ms=options.busy_timeout_ms)
        try:
            current = db.scalar("PRAGMA user_version") == len(schema.MIGRATIONS)
        except BaseException:
            db.conn.close()
            raise
        if not current:
            db.conn.close()
            return cls.open_file(path, options=options, name=name)
        return cls(db, os.path.dirname(os.path.abspath(path)), options=options)

    @classmethod
    def _open_path(
        cls,
        path: str,
        root: str,
        *,
        create: bool,
        options: Options,
        name: str,
        fix: str,
        owner: str | None = None,
    ) -> Store:
        exists = os.path.exists(path)
        if (options.read_only or not create) and not exists:
            raise NoStore(f"no store at {path}; {fix}")
        if not exists:
            cls._create(path, root, options, owner)
        status = os.stat(path) if exists else None
        if status is not None and not options.read_only:
            project.make_private(path, status)  # one an earlier version made
        # SQLite treats an empty file as a new database; migrating it would hide
        # that every memory was lost (a truncated copy, a failed sync): even a
        # command that may create the store (`sync`, `init` in a fresh clone,
        # the hooks, the MCP server) creates it only where there is none.
        if status is not None and status.st_size == 0:
            raise StoreFault(
                f"{name} at {path} is empty (truncated?); restore it from a backup, "
                "or delete it and run `tree-ring init`"
            )
        damage = file_damage(path) if exists else None
        if damage:
            raise StoreFault(f"{name} at {path} is damaged ({damage}); {damaged_remedy(path)}")
        read_only, immutable = access(path, options.read_only) if exists else (False, False)
        options = _with_read_only(options, read_only)
        db = open_db(
            path,
            read_only=read_only,
            immutable=immutable,
            timeout_ms=options.busy_timeout_ms,
        )
        store = cls(db, root, options=options)
        try:
            store._configure()
            store._migrate()
        except BaseException:
            db.conn.close()
            raise
        return store

    @classmethod
    def _create(cls, path: str, root: str, options: Options, owner: str | None = None) -> None:
        """Build a new store beside `path`, private to its user, and link it
        into place, so no one opening `path` meanwhile (a hook starting as
        `init` runs) finds it empty, which reads as a store cut short. Another
        process that got there first wins, and its store is opened. A
        project's store is born with its project's record (`owner`)."""
        # What a build cut short here before left goes first.
        from tree_ring.store.builds import NEW_RANDOM_BYTES, NEW_SUFFIX, remove_stale_builds

        remove_stale_builds(path)
        temporary = path + NEW_SUFFIX + os.urandom(NEW_RANDOM_BYTES).hex()
        try:
            project.create_private(temporary)
            db = open_db(temporary, timeout_ms=options.busy_timeout_ms)
            store = cls(db, root, options=options)
            try:
                store._configure()
                store._migrate()
                if owner is not None:
                    store._adopt(owner)
            finally:
                store.close()
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass
            except OSError:
                # A file system without hard links: moved into place when still free.
                if not os.path.lexists(path):
                    os.replace(temporary, path)
        finally:
            # Whether or not it was built: no half-built store is left beside it.
            for name in (temporary, *(temporary + side for side in project.STORE_SIDE_FILES)):
                try:  # noqa: SIM105 - contextlib would cost every hook run its import
                    os.unlink(name)
                except FileNotFoundError:
                    pass

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
        due = schema.check_version(self.db)
        if not due:
            return
        if self.read_only and schema.readable_without(due):
            return  # read as it stands (schema.READERS_DO_WITHOUT)
        try:
            self.with_retry(lambda: schema.migrate(self.db, now_iso()))
        except (StoreBusy, StoreFault):
            # Held by another writer past the busy timeout, or a full disk:
            # what is due a reader can do without; the next writer migrates.
            if not schema.readable_without(due):
                raise

    def _belongs_to(self, named: str | None) -> None:
        """Refuse a project.json that names another project than the one this
        store records (`settings.PROJECT`): every read and write keys its rows
        and tombstones by that id, so a committed edit of the file would hide
        every memory and let forgotten content be written again. A store with
        no record adopts one (its rows' id, else `named`); `named` is None
        when project.json is missing or damaged, which its readers report."""
        try:
            raw = self.db.scalar(_RECORDED)  # one row: what a hook's open adds to its work
        except StoreFault:
            return  # no settings table: `doctor` names it, and the verbs that read it fail
        recorded = _decoded_id(raw)
        if recorded is None:
            if named is None or self.read_only:
                return
            try:
                recorded = self._adopt(named)
            except (StoreBusy, StoreFault):
                return  # held by another writer, or a full disk: the next open records it
            if recorded is None:
                return
        if named is not None and named != recorded:
            raise ProjectMismatch(project.mismatch(named, recorded))

    def _adopt(self, named: str) -> str | None:
        from tree_ring.store import settings

        with self.write() as db:
            return settings.adopt_project(db, named)

    def check_in_place(self) -> None:
        """Refuse to go on with a store whose file was deleted or replaced
        since it was opened. SQLite gives no error then: it goes on reading and
        writing the unlinked file, so a write would be acknowledged and lost. A
        long-lived reader (the terminal UI) asks before every write and reload;
        the file's device and inode say whether it is still the one opened."""
        if self._file is None:
            return
        now = _file_key(self.db.path)
        if now == self._file:
            return
        what = "deleted" if now is None else "replaced"
        raise NoStore(
            f"the store at {self.db.path} was {what} after it was opened; "
            "nothing was written: quit and start again"
        )

    def close(self) -> None:
        self.db.conn.close()
        _opened(self._file, -1)
        self._file = None

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def with_retry(self, action: Callable[[], T]) -> T:
        """Run `action`, again after a short backoff while the store stays locked."""
        delay = 0.01
        attempts = self.options.write_attempts
        for attempt in range(attempts):
            try:
                return action()
            except StoreBusy:
                if attempt == attempts - 1:
                    raise
            # Jitter from os.urandom: importing random would cost every hook run.
            time.sleep(delay * (1 + os.urandom(1)[0] / 256))
            delay = min(delay * 2, BACKOFF_CAP_S)
        raise AssertionError("unreachable")

    def write(self, *, wait: bool = True) -> Transaction:
        """One immediate transaction: all of it commits, or none of it does.
        Without `wait`, a store another writer holds raises StoreBusy at once,
        for work that may as well be left to the next call (a cache, upkeep)."""
        return Transaction(self, wait=wait)

    def query(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        return self.db.query(sql, params)


# The settings row naming the project the store belongs to (store/settings.py,
# PROJECT), read without the settings module: every hook call opens a store.
_RECORDED = "SELECT value FROM settings WHERE key = 'project'"


def _decoded_id(raw: object) -> str | None:
    """The project id a settings value holds, or None (absent, or a value no
    reader can use: `doctor` names it)."""
    if not isinstance(raw, str):
        return None
    try:
        value = jsontext.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) and project.valid_project_id(value) else None


def _named_project(root: str) -> str | None:
    """project.json's id, or None when it is missing or damaged: each caller
    that needs the id reads it and says what is wrong, in its own words."""
    try:
        return project.load_project_id(root)
    except TreeRingError:
        return None


def _with_read_only(options: Options, read_only: bool | None) -> Options:
    if read_only is None or read_only == options.read_only:
        return options
    return Options(
        busy_timeout_ms=options.busy_timeout_ms,
        read_only=read_only,
        max_pages=options.max_pages,
        write_attempts=options.write_attempts,
    )


class Transaction:
    """`with store.write() as db:` runs the block in one immediate transaction.

    A class rather than contextlib's decorator: every hook call imports this
    module, and importing contextlib costs it more than these lines do.
    """

    __slots__ = ("db", "store", "wait")

    def __init__(self, store: Store, *, wait: bool = True) -> None:
        self.store = store
        self.db = store.db
        self.wait = wait

    def __enter__(self) -> Db:
        db = self.db
        if self.wait:
            self.store.with_retry(lambda: db.execute("BEGIN IMMEDIATE"))
            return db
        # One attempt with no busy wait; once the transaction holds the write
        # lock, nothing in it waits on another writer.
        db.execute("PRAGMA busy_timeout = 0")
        try:
            db.execute("BEGIN IMMEDIATE")
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(self.store.options.busy_timeout_ms)}")
        return db

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
                return
            except BaseException:
                _roll_back(self.db)
                raise
        _roll_back(self.db)


def _roll_back(db: Db) -> None:
    # SQLite may already have rolled back (e.g. on a full disk).
    if db.in_transaction:
        # Not contextlib.suppress: importing contextlib is what Transaction avoids.
        try:  # noqa: SIM105
            db.execute("ROLLBACK")
        except (StoreFault, StoreBusy):
            pass
