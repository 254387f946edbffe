"""The one way SQL runs: a connection is made here, and every statement and
every fetch goes through `Db`, which turns a SQLite error into a one-line
`StoreFault` (or `StoreBusy`) that names the file and what to do. No raw
SQLite message reaches a user, and no other module touches a connection.
"""

from __future__ import annotations

import os
from operator import itemgetter

from tree_ring.model.errors import StoreBusy, StoreFault
from tree_ring.model.user_home import USER_STORE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from tree_ring.model.project import StrPath
else:
    # SQLite's C module itself, the one `sqlite3` re-exports: the package
    # around it adds date and time adapters Tree Ring never uses (it stores
    # ISO text) and costs every hook a tenth of its start-up in imports
    # (`datetime` among them). An interpreter without it has the package.
    try:
        import _sqlite3 as sqlite3
    except ImportError:
        import sqlite3

BUSY_TIMEOUT_MS = 5_000
# SQLite's unix VFS takes paths of at most 512 bytes (MAX_PATHNAME) and opens
# no database whose path, symlinks resolved, leaves no room for "-journal"
# after it: 504 bytes at most (measured with SQLite 3.40 on Linux). Windows'
# VFS allows more, and Windows' own paths rarely reach it.
MAX_PATH_BYTES = 512 - len("-journal")
# How Python's sqlite3 reports a TEXT value that is not UTF-8 (lower case).
DECODE = "could not decode to utf-8"


class Undecodable(str):
    """A TEXT value that is not UTF-8, read with U+FFFD in place of the bad
    bytes. Only the slow path makes these, and a read skips any row holding one."""

    __slots__ = ()


def tolerant_text(raw: bytes) -> str:
    """The text factory of the slow path: one bad value marks its row, nothing more."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "replace"))


def _json_list(value: object, item: Callable[[object], bool]) -> bool:
    if value == "[]":
        return True  # nearly every row: no decoder needed
    if type(value) is not str:
        return False
    from tree_ring.model.jsontext import loads

    try:
        found = loads(value)
    except ValueError:
        return False
    return type(found) is list and all(map(item, found))  # pyright: ignore[reportUnknownArgumentType]


def _is_str(value: object) -> bool:
    return type(value) is str


def _is_link(value: object) -> bool:
    if type(value) is not dict:
        return False
    link: dict[str, object] = value  # pyright: ignore[reportUnknownVariableType]
    return type(link.get("type")) is str and type(link.get("target")) is str


def _strings(value: object) -> bool:
    return _json_list(value, _is_str)


def _links(value: object) -> bool:
    return _json_list(value, _is_link)


def _number(value: object) -> bool:
    return type(value) is float or type(value) is int


# The memories' columns whose stored value a reader decodes or computes with
# (store/rows.py), and whether a value is one it can: a row holding one that
# is not (a hand edit) is skipped by every read, as a row whose text is not
# UTF-8 is, and `doctor` names it. A result with none of these columns costs
# nothing; one with them checks each row's values, decoding only lists that
# are not empty.
READABLE: dict[str, Callable[[object], bool]] = {
    "tags": _strings,
    "supersedes": _strings,
    "links": _links,
    "salience": _number,
    "confidence": _number,
}


# The memories' other TEXT columns: a value stored there as a BLOB (a hand
# edit, as Python's sqlite3 stores a bytes parameter, even UTF-8) comes out
# as `bytes`, which no reader takes for text, so a row holding one is
# skipped by every read, as a row whose text is not UTF-8 is, and `doctor`
# names it. A result with none of these columns costs nothing; one with them
# tests the types of those values in C (`Rows._readable`).
TEXTS = frozenset(
    {
        "id", "created_at", "updated_at", "project", "agent_profile", "workflow_id",
        "session_id", "operation_id", "scope", "ring", "event_type", "summary", "details",
        "source_type", "source_ref", "source_quote", "sensitivity", "retention", "expires_at",
        "superseded_by", "trust", "review_reason", "reviewed_at", "reviewed_by", "valid_from",
        "valid_to", "retired_at", "redacted_at", "origin", "origin_session", "content_hash",
    }
)  # fmt: skip


def unreadable_fields(description: Any, row: Any) -> list[str]:
    """The columns of `row` (from a cursor with `description`) that hold a
    value `READABLE` says no reader can use, or a BLOB where `TEXTS` says
    text belongs."""
    return [
        column[0]
        for column, value in zip(description, row, strict=True)
        if (column[0] in READABLE and value is not None and not READABLE[column[0]](value))
        or (column[0] in TEXTS and type(value) is bytes)
    ]


def _checks(description: Any) -> tuple[tuple[int, Callable[[object], bool]], ...]:
    if not description:
        return ()
    return tuple(
        (at, READABLE[column[0]]) for at, column in enumerate(description) if column[0] in READABLE
    )


def _texts(description: Any) -> Callable[[Any], tuple[object, ...]] | None:
    """What takes a row's `TEXTS` values as a tuple, or None when it has none."""
    if not description:
        return None
    found = [at for at, column in enumerate(description) if column[0] in TEXTS]
    # The first position twice: an itemgetter of one position gives no tuple.
    return itemgetter(*found, found[0]) if found else None


def undecodable_row(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and DECODE in str(exc).lower()


def ident(identifier: str) -> str:
    """`identifier` (a table, index, trigger or column name, as the store's
    `sqlite_master` or a PRAGMA gives it) quoted for a statement: in double
    quotes, each `"` in it doubled, so the name ends where it ends and
    nothing in it is read as SQL."""
    return '"' + identifier.replace('"', '""') + '"'


def is_read(sql: str) -> bool:
    """A statement that may run twice: only these are re-run to skip bad rows."""
    return sql.lstrip()[:6].upper() == "SELECT"


def connect(
    path: StrPath,
    *,
    read_only: bool = False,
    immutable: bool = False,
    timeout_ms: int = BUSY_TIMEOUT_MS,
) -> sqlite3.Connection:
    """The one place a connection is made; tests replace it to simulate a broken SQLite.

    Read-only opens with `mode=ro`, so SQLite itself refuses every write with
    SQLITE_READONLY, exactly as for a file the user cannot write (and, unlike
    chmod, also when running as root). `immutable` also tells SQLite that no
    one can change the file, so it reads a WAL store without the -shm file it
    could not create in a directory it cannot write.
    """
    if read_only:
        from pathlib import Path  # only a read-only open needs a file: URI

        target = f"{Path(path).as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    else:
        target = str(path)
    return sqlite3.connect(
        target,
        uri=read_only,
        isolation_level=None,
        timeout=timeout_ms / 1000,
        check_same_thread=False,
    )


# The SQL function the recall index's text passes through (schema.MEMORY_TEXT),
# as FOLD_FUNCTION(CAST(text AS BLOB)): the bytes, so a row whose text is not
# UTF-8 (a hand edit) is indexed with U+FFFD in place of the bad bytes rather
# than failing every write that touches it. Every connection registers it
# (`add_functions`), since every write to the memories runs the index's
# triggers; a connection without it (the sqlite3 shell) can read the rows and
# search the index, and a write to the memories there fails with "no such
# function: tree_ring_fold", never leaving the index apart from the rows.
FOLD_FUNCTION = "tree_ring_fold"


def _fold(raw: object) -> str | None:
    """`fold.searchable` of a TEXT value read as bytes, each camelCase
    identifier followed by its words (`identifiers.with_words`); NULL stays
    NULL. Plain ASCII, nearly every row, is not folded."""
    if raw is None:
        return None
    if not isinstance(raw, bytes):
        raw = str(raw).encode()
    from tree_ring.model.identifiers import with_words

    if raw.isascii():
        return with_words(raw.decode("ascii"))
    from tree_ring.model.fold import searchable

    return searchable(with_words(raw.decode("utf-8", "replace")))


# The SQL function that gives a memory's meaning code (model/vectors.py) from
# its summary, details and tags, for the trigger that keeps memory_meaning
# beside the rows; NULL when the text holds no known word or the vectors
# file is missing, and the memory then has no row there.
MEANING_FUNCTION = "tree_ring_meaning"


def _meaning(summary: object, details: object, tags: object) -> bytes | None:
    """The code of a row's text, read as bytes (as `_fold` reads it): a row
    whose text is not UTF-8 is coded with U+FFFD in place of the bad bytes."""
    from tree_ring.model import vectors

    parts = [
        v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v or "")
        for v in (summary, details, tags)
    ]
    found = vectors.embed(" ".join(parts))
    return None if found is None else vectors.code(found)


def add_functions(conn: sqlite3.Connection) -> None:
    """Register the SQL functions the schema's triggers and views call."""
    conn.create_function(FOLD_FUNCTION, 1, _fold, deterministic=True)
    conn.create_function(MEANING_FUNCTION, 3, _meaning, deterministic=True)


# What to do about a damaged store. The person's user store has its own: its
# notes are in no ledger, and `doctor --repair` works on a project's store only.
USER_STORE_DAMAGED = (
    "move it aside (keep it) and put a backup in its place, or leave the place empty "
    "for a new one; no ledger holds your notes across projects, nor what you forgot "
    "there, which your projects show again until a backup is back"
)


def is_user_store(path: StrPath) -> bool:
    return os.path.basename(os.fsdecode(path)) == USER_STORE


def damaged_remedy(path: StrPath) -> str:
    """What to do about the damaged store at `path`, by which store it is."""
    return (
        USER_STORE_DAMAGED if is_user_store(path) else "run `tree-ring doctor` or restore a backup"
    )


def damaged(path: StrPath) -> StoreFault:
    name = "the user store" if is_user_store(path) else "the store"
    return StoreFault(f"{name} at {path} is damaged; {damaged_remedy(path)}")


def path_bytes(path: StrPath) -> int:
    """The length SQLite measures: of the absolute path, symlinks resolved, in bytes."""
    return len(os.fsencode(os.path.realpath(path)))


def translate(exc: sqlite3.Error | UnicodeDecodeError, path: StrPath) -> StoreFault | StoreBusy:
    """Name the failure and the fix; never show a raw SQLite message alone."""
    if isinstance(exc, UnicodeDecodeError):
        # SQLite's message itself was not UTF-8: it quotes bytes of a damaged
        # page (a mangled schema entry), and Python fails decoding the message.
        fault = damaged(path)
        fault.detail = "SQLite's error message holds bytes that are not UTF-8"
        return fault
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
    elif "not a database" in text or "malformed" in text or "corrupt" in text or DECODE in text:
        fault = damaged(path)
    elif "no such module" in text and "fts5" in text:
        fault = StoreFault("this Python's SQLite has no FTS5; use a Python built with FTS5")
    elif "unable to open" in text and os.name != "nt" and path_bytes(path) > MAX_PATH_BYTES:
        fault = StoreFault(
            f"the project path is too long for SQLite: its store's path is {path_bytes(path)} "
            f"bytes, the limit {MAX_PATH_BYTES}; move the project to a shorter path"
        )
    elif "unable to open" in text:
        fault = StoreFault(f"cannot open the store at {path}; check that the directory exists")
    else:
        fault = StoreFault(f"store error at {path}: {exc}; run `tree-ring doctor`")
    fault.detail = str(exc)
    return fault


def open_db(
    path: StrPath,
    *,
    read_only: bool = False,
    immutable: bool = False,
    timeout_ms: int = BUSY_TIMEOUT_MS,
) -> Db:
    """A connection to the file at `path`, rows as `sqlite3.Row`, errors translated."""
    try:
        conn = connect(path, read_only=read_only, immutable=immutable, timeout_ms=timeout_ms)
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        raise translate(exc, path) from None
    conn.row_factory = sqlite3.Row
    add_functions(conn)
    return Db(conn, path)


class Rows:
    """A cursor whose every fetch turns SQLite errors into `translate`'s, so a
    page that breaks halfway through a scan is a one-line error too.

    A row with TEXT that is not UTF-8 (a store edited by hand) is skipped by a
    read rather than failing it: Python's sqlite3 stops at such a row and
    cannot step past it, so the statement runs again with `tolerant_text` and
    what follows the rows already delivered is kept, less the bad rows. Rows
    that decode take the default C path and cost nothing extra.
    """

    __slots__ = ("_checks", "_cursor", "_db", "_delivered", "_params", "_rest", "_sql", "_texts")

    def __init__(self, cursor: sqlite3.Cursor | None, db: Db, sql: str, params: Any) -> None:
        self._cursor = cursor
        self._db = db
        self._sql = sql
        self._params = params
        self._delivered = 0
        self._checks = _checks(cursor.description) if cursor is not None else ()
        self._texts = _texts(cursor.description) if cursor is not None else None
        self._rest: list[Any] | None = None if cursor is not None else self._skip_bad()

    def _readable(self, batch: list[Any]) -> list[Any]:
        """`batch` less the rows holding a value no reader can use (`READABLE`),
        or a BLOB where text belongs (`TEXTS`)."""
        checks, texts = self._checks, self._texts
        # NULL is no stored value: the columns are NOT NULL, so it is a row an
        # outer join did not find (`LEFT JOIN memories`), not a hand edit.
        kept = [
            row
            for row in batch
            if (texts is None or bytes not in map(type, texts(row)))
            and all(row[at] is None or check(row[at]) for at, check in checks)
        ]
        self._db.skipped += len(batch) - len(kept)
        return kept

    def _skip_bad(self) -> list[Any]:
        db = self._db
        if not is_read(self._sql):
            fault = damaged(db.path)
            fault.detail = "a statement that writes met text that is not UTF-8"
            raise fault
        conn = db.conn
        saved = conn.text_factory
        conn.text_factory = tolerant_text
        try:
            cursor = conn.execute(self._sql, self._params)
            rows = cursor.fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise translate(exc, db.path) from None
        finally:
            conn.text_factory = saved
        self._checks = _checks(cursor.description)
        self._texts = _texts(cursor.description)
        kept = [
            row
            for row in rows[self._delivered :]
            if not any(type(value) is Undecodable for value in row)
        ]
        db.skipped += len(rows) - self._delivered - len(kept)
        return self._readable(kept) if self._checks or self._texts else kept

    def _fetch(self, size: int) -> list[Any]:
        """Up to `size` rows (all when negative), skipping rows that do not decode."""
        if self._rest is None:
            cursor = self._cursor
            assert cursor is not None
            while True:
                try:
                    batch = cursor.fetchall() if size < 0 else cursor.fetchmany(size)
                except (sqlite3.Error, UnicodeDecodeError) as exc:
                    if not undecodable_row(exc):
                        raise translate(exc, self._db.path) from None
                    self._rest = self._skip_bad()
                    break
                self._delivered += len(batch)
                if not (self._checks or self._texts):
                    return batch
                kept = self._readable(batch)
                if kept or not batch:  # an empty batch means no rows are left
                    return kept
        rest = self._rest
        if size < 0 or size >= len(rest):
            self._rest = []
            return rest
        self._rest = rest[size:]
        return rest[:size]

    def fetchone(self) -> Any:
        batch = self._fetch(1)
        return batch[0] if batch else None

    def fetchall(self) -> list[Any]:
        return self._fetch(-1)

    def fetchmany(self, size: int) -> list[Any]:
        return self._fetch(size)

    def __iter__(self) -> Iterator[Any]:
        while batch := self._fetch(256):
            yield from batch

    @property
    def rowcount(self) -> int:
        return -1 if self._cursor is None else self._cursor.rowcount


class Db:
    """The one way SQL runs against a store: every statement goes through
    `execute` or `executemany`, and every SQLite error comes out as the
    one-line `StoreFault` (or `StoreBusy`) that `translate` makes, naming the
    file. Nothing else in the package touches a connection."""

    __slots__ = ("answers_to", "beside", "conn", "path", "skipped")

    def __init__(self, conn: sqlite3.Connection, path: StrPath) -> None:
        self.conn = conn
        self.path = path
        # Rows reads have skipped because their text is not UTF-8; `doctor` names them.
        self.skipped = 0
        # The other stores whose tombstones refuse a write here too, each a
        # function giving (its Db, the project its tombstones are under), or
        # None when that store does not exist (`tombstones.answer_to`).
        self.answers_to: list[Callable[[], tuple[Db, str] | None]] = []
        # The store read beside this one, for its ids alone: no row here may
        # take one it holds or forgot (`store/beside.py`). Its tombstones
        # refuse nothing here unless it is also in `answers_to`.
        self.beside: Callable[[], tuple[Db, str] | None] | None = None

    def execute(self, sql: str, params: Any = ()) -> Rows:
        try:
            cursor = self.conn.execute(sql, params)
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            if not undecodable_row(exc):
                raise translate(exc, self.path) from None
            cursor = None
        return Rows(cursor, self, sql, params)

    def executemany(self, sql: str, params: Iterable[Any]) -> Rows:
        try:
            return Rows(self.conn.executemany(sql, params), self, sql, ())
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise translate(exc, self.path) from None

    def undecodable(self, sql: str, params: Any = ()) -> list[Any]:
        """The rows of a SELECT that hold text that is not UTF-8 (which every
        other read skips), their bad values as `Undecodable`: for `doctor`."""
        conn = self.conn
        saved = conn.text_factory
        conn.text_factory = tolerant_text
        try:
            rows = conn.execute(sql, params).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise translate(exc, self.path) from None
        finally:
            conn.text_factory = saved
        return [row for row in rows if any(type(value) is Undecodable for value in row)]

    def unreadable(self, sql: str, params: Any = ()) -> list[tuple[Any, list[str]]]:
        """The rows of a SELECT holding a value no reader can use (`READABLE`),
        which every other read skips, each with those columns: for `doctor`."""
        conn = self.conn
        saved = conn.text_factory
        conn.text_factory = tolerant_text  # a row whose text is not UTF-8 is `check_text`'s
        try:
            cursor = conn.execute(sql, params)
            rows = cursor.fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise translate(exc, self.path) from None
        finally:
            conn.text_factory = saved
        found = [(row, unreadable_fields(cursor.description, row)) for row in rows]
        return [(row, columns) for row, columns in found if columns]

    def sift(self, sql: str, params: Any, pick: Callable[[Any, Any], str | None]) -> list[str]:
        """What `pick` makes of each row of a SELECT (given the cursor's
        description and the row) where it makes anything: the few damaged rows
        of a scan over many, read a batch at a time, never all held. A value
        that is not UTF-8 comes as an `Undecodable` (`tolerant_text`), and no
        row is skipped; `pick` must not use this connection."""
        conn = self.conn
        saved = conn.text_factory
        conn.text_factory = tolerant_text
        found: list[str] = []
        try:
            cursor = conn.execute(sql, params)
            while batch := cursor.fetchmany(256):
                found += filter(None, (pick(cursor.description, row) for row in batch))
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise translate(exc, self.path) from None
        finally:
            conn.text_factory = saved
        return found

    def query(self, sql: str, params: Any = ()) -> list[Any]:
        return self.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Any = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction
