"""What the applied migrations made, object by object: the tables beside
the memories, with their indexes and triggers, and the indexes on the
memories themselves, each with the statement that makes it again.

The doctor names what is missing and `--repair` makes it again from these
statements (store/schema.py's own text), empty. A dropped table's rows are
gone with it: `LOST` says, per table, what that costs, or what rebuilds
them. The FTS indexes and the meaning codes are not listed in `PARTS`: their
own checks find and rebuild them. The `memories` table is the truth; it is
listed so its loss is named, and never made again empty.

Every index, trigger and view the migrations made, those of the FTS indexes
and the meaning codes too, is also compared with the schema's statement as
SQLite stores it (`redefined`): one of the same name defined otherwise (a
trigger whose body does nothing) is dropped and made again (`remake`). A
table's definition is not compared: its rows are in it, and nothing here
makes it again.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import cache

from tree_ring.store import anchors, inbox, ledger_rows, moved, refutations, schema, tombstone_ids
from tree_ring.store.sql import ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_ring.store.sql import Db

_NAME = re.compile(r"CREATE\s+(TABLE|INDEX|TRIGGER|VIEW)\s+(\w+)")
_ON = re.compile(r"\bON\s+(\w+)")


@dataclass(frozen=True)
class Part:
    """One object a migration made."""

    kind: str  # table | index | trigger | view
    name: str
    table: str  # the table it belongs to (a table: itself)
    migration: str  # the migration that made it: expected only once that ran
    statement: str  # the schema's statement that makes it


def _parts(migration: str, statements: tuple[str, ...]) -> list[Part]:
    made: list[Part] = []
    for statement in statements:
        found = _NAME.search(statement)
        assert found is not None, statement
        kind, name = found.group(1).lower(), found.group(2)
        on = _ON.search(statement, found.end())
        table = name if kind == "table" or on is None else on.group(1)
        made.append(Part(kind, name, table, migration, statement))
    return made


def _latest(parts: list[Part]) -> tuple[Part, ...]:
    """Each object once, as the last migration to make it made it (0016 makes
    the inbox's index again over a wider condition)."""
    last = {(part.kind, part.name): part for part in parts}
    return tuple(part for part in parts if last[part.kind, part.name] is part)


# What each migration made, in migration order, each table before its
# indexes and triggers.
_MADE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("0001_initial", (schema.MEMORIES, *schema.INDEXES, *schema.SIDE_TABLES)),
    ("0002_policy_audit", schema.POLICY_AUDIT),
    ("0003_summary_tree", schema.SUMMARY_TREE),
    ("0004_trust", schema.FORGET_REQUESTS),
    ("0005_count_indexes", schema.COUNT_INDEXES),
    ("0007_ledger_provenance", schema.LEDGER_PROVENANCE),
    ("0008_refutations", refutations.REFUTATIONS),
    ("0009_off_record_index", (schema.OFF_RECORD_INDEX,)),
    ("0011_anchors", anchors.ANCHORS),
    ("0016_inbox_imports", inbox.INBOX_INDEX[1:]),
    ("0017_refute_index", (refutations.REFUTES_INDEX,)),
    ("0019_ledger_kept", ledger_rows.LEDGER_KEPT),
    ("0021_tombstone_ids", tombstone_ids.TOMBSTONE_IDS),
    ("0024_tombstones_moved", moved.TRIGGERS),
)
PARTS: tuple[Part, ...] = _latest([
    part for migration, statements in _MADE for part in _parts(migration, statements)
])  # fmt: skip

# The triggers that keep the FTS indexes and the meaning codes with the rows,
# and the view recall's index reads: their own checks find them missing, and
# `redefined` finds them defined otherwise. 0010 makes recall's triggers
# again over the folded text.
_INDEXED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("0001_initial", schema.FTS_TRIGGERS_0001),
    ("0006_claim_index", schema.CLAIM_FTS_TRIGGERS),
    ("0010_folded_index", (schema.MEMORY_TEXT, *schema.FTS_TRIGGERS)),
    ("0012_meaning", schema.MEANING_TABLE[1:]),
)
# Every index, trigger and view, as each migration that made it made it (one
# a later migration makes again is listed once for each), in migration order.
DEFINED: tuple[Part, ...] = tuple(
    sorted(
        (
            part
            for migration, statements in (*_MADE, *_INDEXED)
            for part in _parts(migration, statements)
            if part.kind != "table"
        ),
        key=lambda part: part.migration,
    )
)

# What shows that a migration PARTS does not list ran: the FTS index, view or
# meaning table it made.
MARKS = {
    "0006_claim_index": ("table", "claim_fts"),
    "0010_folded_index": ("view", "memory_text"),
    "0012_meaning": ("table", "memory_meaning"),
    "0013_meaning_source": ("table", "meaning_source"),
}
# Migrations that make nothing to see, or only make again what an earlier one
# made (so its being there shows nothing), and do nothing when run again on a
# store they have already brought up to date.
AGAIN = (
    "0014_meaning_recoded",
    "0015_ended_leaves",
    "0016_inbox_imports",
    "0018_meaning_recoded_products",
    "0020_project_owner",
    "0022_identifier_words",
    "0023_identifier_words_any_script",
)

# The table that is the truth: nothing rebuilds it.
TRUTH = "memories"
# The summary tree's tables: derived from the memories, so rebuilt from them.
TREE = ("tree_trees", "tree_nodes", "tree_buffers", "tree_leaves")
# What a table's loss costs, as the doctor says it. A table not named here
# is the summary tree's (rebuilt) or the truth.
LOST = {
    "operation_claims": "the operation ids of past writes, so a retried write may be stored again",
    "redaction_tombstones": "the redactions of memories this store no longer holds, "
    "while those of the redacted rows it holds are made again from them",
    "content_tombstones": "what was forgotten or rejected, which may now be written again",
    "audit_log": "the audit log, whose gap the audit check keeps reporting",
    "settings": "the stored settings, each now read as its default",
    "policy_audit": "the write policy's record of its decisions",
    "forget_requests": "agents' requests to forget, waiting or decided",
    "ledger_provenance": "where rows from the team ledger came from",
    "refutations": "agents' refutations, while the refuted memories still wait for review",
    "anchors": "the files memories were anchored to, which `tree-ring confirm` records again",
    "ledger_kept": "the fields a newer Tree Ring added to team ledger lines, which the next "
    "sync keeps again where the upstream holds them",
    "tombstone_ids": "the earlier memories a tombstone's content was forgotten as, before it "
    "was forgotten again under another id, whose team ledger lines go (each content "
    "tombstone's own memory is filled in again)",
}
# Tables `recreate` fills again from what the store still holds.
REFILL = {"tombstone_ids": tombstone_ids.TOMBSTONE_IDS_FILL}


def _space(kind: str) -> str:
    """The namespace of an object of `kind`: triggers have their own; tables,
    indexes and views share one."""
    return "trigger" if kind == "trigger" else "table"


def held(db: Db) -> dict[tuple[str, str], tuple[str, str, object]]:
    """Every object of the store by its namespace and its name folded to lower
    case (SQLite's names are case-insensitive): its (kind, name, sql)."""
    return {
        (_space(str(row[0])), str(row[1]).lower()): (str(row[0]), str(row[1]), row[2])
        for row in db.execute("SELECT type, name, sql FROM sqlite_master")
    }


def holder(db: Db, kind: str, name: str) -> tuple[str, str, object] | None:
    """The (kind, name, sql) of the object holding the name a `kind` called
    `name` would take, of whatever kind and capitalisation; None when free."""
    return held(db).get((_space(kind), name.lower()))


def missing(db: Db, applied: list[str]) -> list[Part]:
    """The parts of the applied migrations whose name no object holds, in
    order (one held by another kind is `misplaced`)."""
    have = held(db)
    done = set(applied)
    return [
        p for p in PARTS if p.migration in done and (_space(p.kind), p.name.lower()) not in have
    ]


# Tables derived from the memories, which `displace` may drop and make again.
DERIVED = frozenset(TREE)


def misplaced(db: Db, applied: list[str]) -> list[tuple[Part, str]]:
    """Each table, index, trigger and view of the applied migrations whose
    name an object of another kind holds, with that kind, in migration order."""
    have = held(db)
    found: dict[tuple[str, str], tuple[Part, str]] = {}
    done = set(applied)
    for part in [*(p for p in PARTS if p.migration in done), *defined(applied)]:
        other = have.get((_space(part.kind), part.name.lower()))
        if other is not None and other[0] != part.kind:
            found.setdefault((part.kind, part.name), (part, other[0]))
    return list(found.values())


def displace(db: Db, parts: list[tuple[Part, str]]) -> list[Part]:
    """Drop the object of another kind holding each part's name and make the
    part again from the schema, in the caller's transaction; a table part not
    in `DERIVED` is left alone (its rows are gone). The parts made again."""
    made: list[Part] = []
    for part, kind in parts:
        if part.kind == "table" and part.name not in DERIVED:
            continue
        found = holder(db, part.kind, part.name)
        if found is not None:
            db.execute(f"DROP {kind.upper()} {ident(found[1])}")
        db.execute(part.statement)
        made.append(part)
    return made


def recreate(db: Db, parts: list[Part]) -> None:
    """Make `parts` again, empty but for what `REFILL` fills, in the caller's
    transaction (never the truth's table)."""
    for part in parts:
        if part.kind == "table" and part.name == TRUTH:
            raise ValueError("the memories table is the truth and is not made again empty")
        db.execute(part.statement)
        if part.kind == "table" and part.name in REFILL:
            db.execute(REFILL[part.name])


def _plain(sql: str) -> str:
    """`sql` with every run of white space one space: a statement laid out
    otherwise is the same statement."""
    return " ".join(sql.split())


@cache
def as_stored(parts: tuple[Part, ...]) -> dict[Part, str]:
    """Each of `parts` as SQLite stores its statement (`sqlite_master.sql`:
    the first keywords upper-cased, `IF NOT EXISTS` dropped, ...), `_plain`:
    made in a database of its own in memory, on the tables the migrations
    make, and read back."""
    conn = sqlite3.connect(":memory:")
    try:
        for _, statements in _MADE:
            for part in _parts("", statements):
                if part.kind == "table":
                    conn.execute(part.statement)
        stored: dict[Part, str] = {}
        for part in parts:
            conn.execute(part.statement)
            found = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = ? AND name = ?", (part.kind, part.name)
            ).fetchone()
            stored[part] = _plain(str(found[0]))
            # A later migration's part of the same name is made next.
            conn.execute(f"DROP {part.kind.upper()} {part.name}")
        return stored
    finally:
        conn.close()


def defined(applied: list[str]) -> list[Part]:
    """Each index, trigger and view of the applied migrations, as the last of
    them to make it made it, in migration order."""
    done = set(applied)
    last = {(part.kind, part.name): part for part in DEFINED if part.migration in done}
    return [part for part in DEFINED if last.get((part.kind, part.name)) is part]


def redefined(db: Db, applied: list[str]) -> tuple[int, list[Part]]:
    """(how many of the applied migrations' indexes, triggers and views the
    store holds, under any capitalisation of their name, those of them whose
    stored definition is not the schema's, the name's too), in migration
    order. A missing one is `missing`'s, or the FTS and meaning checks'."""
    have = held(db)
    sqls = {
        (part.kind, part.name): found[2]
        for part in defined(applied)
        if (found := have.get((_space(part.kind), part.name.lower()))) and found[0] == part.kind
    }
    stored = as_stored(DEFINED)
    present = [part for part in defined(applied) if (part.kind, part.name) in sqls]
    differ = [
        part
        for part in present
        if not isinstance(sql := sqls[part.kind, part.name], str) or _plain(sql) != stored[part]
    ]
    return len(present), differ


def remake(db: Db, parts: list[Part]) -> None:
    """Drop each of `parts` and make it again from the schema's statement, in
    the caller's transaction (an index is built again from the rows)."""
    for part in parts:
        db.execute(f"DROP {part.kind.upper()} {part.name}")
        db.execute(part.statement)


def clear_tree(db: Db) -> None:
    """Empty the summary tree's tables, for `tree/repair.py` to build again."""
    for table in TREE:
        db.execute(f"DELETE FROM {table}")


# The FTS indexes, and every shadow table an FTS5 table may have (`_content`
# only without `content=`), named after it (`store/fts_shadow.py` mends them).
FTS_INDEXES = ("memory_fts", "claim_fts")
FTS_SHADOWS = ("data", "idx", "content", "docsize", "config")
# What a store holds beside the parts of `PARTS` and `DEFINED`: the FTS
# indexes and their shadow tables, the meaning codes' tables and the
# migration ledger. SQLite's own objects (`sqlite_`) are its business.
OWN = frozenset(
    {
        *FTS_INDEXES,
        *(f"{index}_{suffix}" for index in FTS_INDEXES for suffix in FTS_SHADOWS),
        "memory_meaning",
        "meaning_source",
        "schema_migrations",
    }
)


def foreign(db: Db) -> list[tuple[str, str]]:
    """Every object of the store that no Tree Ring migration makes, as
    (kind, name), sorted: a trigger someone added runs inside every write
    Tree Ring makes (it could keep what a forget deletes, or undo a
    retirement), so the doctor names each."""
    known = {(_space(part.kind), part.name.lower()) for part in (*PARTS, *DEFINED)}
    known |= {("table", name) for name in OWN}
    return sorted(
        (kind, name)
        for key, (kind, name, _) in held(db).items()
        if key not in known and not key[1].startswith("sqlite_")
    )


def foreign_holding(db: Db, texts: Sequence[str]) -> list[str]:
    """The tables no migration makes (`foreign`) with a value holding one of
    `texts`, as written: where a trigger added to the store copied a row."""
    found: list[str] = []
    for kind, name in foreign(db):
        if kind != "table":
            continue
        columns = [str(row[1]) for row in db.execute(f"PRAGMA table_info({ident(name)})")]
        if not columns:
            continue
        holds = " OR ".join(f"instr(CAST({ident(c)} AS TEXT), :text)" for c in columns)
        sql = f"SELECT 1 FROM {ident(name)} WHERE {holds} LIMIT 1"
        try:
            if any(db.execute(sql, {"text": text}).fetchone() for text in texts):
                found.append(name)
        except sqlite3.Error:
            found.append(name)  # one SQLite cannot read is named too
    return found


def drop(db: Db, objects: list[tuple[str, str]]) -> None:
    """Drop each (kind, name) of `objects` but the tables, in the caller's transaction."""
    for kind, name in objects:
        if kind in ("index", "trigger", "view"):
            db.execute(f"DROP {kind.upper()} IF EXISTS {ident(name)}")


def _objects(db: Db) -> set[tuple[str, str]]:
    """Every object's (kind, name), the name in lower case, as `held` reads
    them: the schema's names are lower case, and SQLite's case-insensitive."""
    return {(kind, name.lower()) for kind, name, _ in held(db).values()}


def ledger_lost(db: Db) -> bool:
    """The migrations' ledger (`schema_migrations`) is gone from a store that
    holds its memories, or emptied: migrating would run the first migration
    again, over tables that are there. (The first migration commits with its
    ledger row, so no store Tree Ring made holds its memories and an empty ledger.)"""
    have = _objects(db)
    if ("table", TRUTH) not in have:
        return False
    if ("table", "schema_migrations") not in have:
        return True
    return db.execute("SELECT 1 FROM schema_migrations LIMIT 1").fetchone() is None


def ran(db: Db) -> list[str]:
    """The migrations a store without its ledger had applied, in order: each
    of whose objects the store holds one. A migration commits whole with its
    ledger row, so one object shows it ran; any other of its objects dropped
    since is the tables check's to make again. Those in `AGAIN` are left to run."""
    have = _objects(db)
    made: dict[str, bool] = {}
    for part in PARTS:
        made[part.migration] = made.get(part.migration, False) or (part.kind, part.name) in have
    for migration, mark in MARKS.items():
        made[migration] = mark in have
    return [name for name, _ in schema.MIGRATIONS if made.get(name, False) and name not in AGAIN]


def unrecorded(db: Db) -> list[str]:
    """The migrations a ledger that is there does not name, though the store
    holds their objects (`ran`): rows deleted from it. Migrating would run
    them again, over tables and indexes that are there. A migration due in
    an upgrade has made nothing yet, so it is never one of these."""
    if ledger_lost(db):
        return []
    done = set(schema.applied(db))
    return [name for name in ran(db) if name not in done]


def record_ledger(db: Db, names: list[str], now: str) -> None:
    """Make the ledger again, or fill its gaps, holding `names` as applied
    `now` beside what it names, in a transaction of its own (as each
    migration is)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(schema.LEDGER)
        db.executemany(
            "INSERT OR IGNORE INTO schema_migrations(name, applied_at) VALUES (?, ?)",
            [(name, now) for name in names],
        )
        count = db.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
        db.execute(f"PRAGMA user_version = {int(count)}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
