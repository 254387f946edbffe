"""The doctor's queries: what SQLite says of the file, whether derived data
(the FTS indexes, claims, redaction tombstones, tree leaves) matches the rows,
and the statements that rebuild it from them (`upkeep/doctor.py` decides
what to run; every repair runs in the caller's transaction)."""

from __future__ import annotations

from tree_ring.model.errors import StoreFault
from tree_ring.store import fts, fts_shadow, layout, meaning, schema
from tree_ring.store.sql import ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.store.sql import Db


def exists(db: Db, kind: str, name: str) -> bool:
    """Whether the schema holds a `kind` (table, trigger) called `name`, in
    any capitalisation (SQLite's names are case-insensitive)."""
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ? COLLATE NOCASE", (kind, name)
    )
    return found.fetchone() is not None


def _scalar(db: Db, sql: str) -> int:
    return int(db.execute(sql).fetchone()[0])


def integrity_problems(db: Db) -> list[str]:
    """SQLite's integrity check, up to 20 problems; ["ok"] for a sound file."""
    return [str(row[0]) for row in db.execute("PRAGMA integrity_check(20)")]


def quick_problems(db: Db) -> list[str]:
    """SQLite's quick check (no index cross-checks), up to 20 problems; ["ok"]
    for a sound file: what `doctor` reads of the person's user store."""
    return [str(row[0]) for row in db.execute("PRAGMA quick_check(20)")]


def fts_parity(db: Db) -> tuple[int, int, int, int]:
    """(rows, index entries, rows missing from the index, index entries without a row)."""
    rows = _scalar(db, "SELECT count(*) FROM memories")
    indexed = _scalar(db, "SELECT count(*) FROM memory_fts_docsize")
    missing = _scalar(
        db,
        "SELECT count(*) FROM memories m WHERE NOT EXISTS "
        "(SELECT 1 FROM memory_fts_docsize d WHERE d.id = m.rowid)",
    )
    stray = _scalar(
        db,
        "SELECT count(*) FROM memory_fts_docsize d WHERE NOT EXISTS "
        "(SELECT 1 FROM memories m WHERE m.rowid = d.id)",
    )
    return rows, indexed, missing, stray


def fts_integrity(db: Db) -> str | None:
    """'' when both FTS indexes match the rows' text; else what is wrong,
    naming the index; None when a read-only store cannot run the check.
    StoreBusy when another writer holds the store past the busy timeout.

    `rank = 1` makes FTS5 compare an index with the external content table,
    which catches a row whose text changed without its index entry. FTS5
    calls any difference "database disk image is malformed", the words of
    a damaged file; so an index that fails it is checked again on its own
    (`rank = 0`), and one whose own structure is sound is said to differ
    from the rows (entries missing, extra or out of date): SQLite's words
    are kept for an index whose own pages are damaged. FTS5 runs the check
    as a write, which a store opened read-only refuses. Outside a
    transaction it is run in one begun IMMEDIATE, so it waits for another
    writer as every write does: begun as a read, the write lock would be
    taken as an upgrade, which SQLite refuses at once while another process
    writes, with no busy wait. Always rolled back.
    """
    own = not db.in_transaction
    db.execute("BEGIN IMMEDIATE" if own else "SAVEPOINT doctor_fts")
    try:
        for index in fts.INDEXES:
            try:
                db.execute(f"INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 1)")
            except StoreFault as exc:
                if "readonly" in exc.detail.lower():
                    return None
                if _sound(db, index):
                    return (
                        f"{index}'s entries do not match the rows' text "
                        "(missing, extra or out of date)"
                    )
                return f"integrity-check: {index}: {exc.detail}"
        return ""
    finally:
        if own:
            if db.in_transaction:  # SQLite may have rolled back already
                db.execute("ROLLBACK")
        else:
            db.execute("ROLLBACK TO doctor_fts")
            db.execute("RELEASE doctor_fts")


def _sound(db: Db, index: str) -> bool:
    """Whether FTS5 finds `index` sound on its own, not compared with the rows."""
    if not db.in_transaction:  # SQLite rolled back: nothing more is asked
        return False
    try:
        db.execute(f"INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 0)")
    except StoreFault:
        return False
    return True


def triggers(db: Db) -> set[str]:
    """The names of the schema's triggers, in lower case (SQLite's names are
    case-insensitive)."""
    found = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    return {str(row[0]).lower() for row in found}


# No table aliases: these also follow DELETE, which takes none before SQLite 3.44.
ORPHAN_CLAIMS = (
    "FROM operation_claims WHERE NOT EXISTS "
    "(SELECT 1 FROM memories m WHERE m.id = operation_claims.memory_id)"
)
# A redaction tombstone with content tombstones of its id and no row is a
# redaction taken from the team ledger by a clone that never held the memory
# (`team/ledger_stones.py`): no orphan.
ORPHAN_TOMBSTONES = (
    "FROM redaction_tombstones WHERE NOT EXISTS "
    "(SELECT 1 FROM memories m WHERE m.id = redaction_tombstones.memory_id) "
    "AND memory_id NOT IN (SELECT memory_id FROM tombstone_ids)"
)
ORPHAN_LEAVES = (
    "FROM tree_leaves l JOIN tree_trees t ON t.id = l.tree_id "
    "WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.memory_id)"
)


def claims(db: Db) -> tuple[int, int]:
    """(operation claims whose memory is gone, all claims)."""
    orphans = _scalar(db, f"SELECT count(*) {ORPHAN_CLAIMS}")
    return orphans, _scalar(db, "SELECT count(*) FROM operation_claims")


def redaction_orphans(db: Db) -> tuple[int, int]:
    """(redaction tombstones whose memory is gone, redacted rows without one)."""
    orphans = _scalar(db, f"SELECT count(*) {ORPHAN_TOMBSTONES}")
    unmarked = _scalar(
        db,
        "SELECT count(*) FROM memories m WHERE m.redacted_at IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM redaction_tombstones t WHERE t.memory_id = m.id)",
    )
    return orphans, unmarked


def redactions(db: Db) -> int:
    return _scalar(db, "SELECT count(*) FROM redaction_tombstones")


def leaves(db: Db) -> tuple[int, int]:
    """(tree leaves whose memory is gone, all leaves)."""
    orphans = _scalar(db, f"SELECT count(*) {ORPHAN_LEAVES}")
    return orphans, _scalar(db, "SELECT count(*) FROM tree_leaves")


def text_tables(db: Db) -> list[str]:
    """The tables whose text a read may meet, by name (SQLite's and the FTS
    indexes' own shadow tables left out, and the meaning codes, which hold
    no text: `doctor`'s meaning check names a code of another type, and its
    repair codes the memory again). A table no migration makes is left out
    too: no read meets it, the `foreign` check names it, and it may be one
    this check cannot read (WITHOUT ROWID, or virtual of a module not here)."""
    foreign = {name.lower() for kind, name in layout.foreign(db) if kind == "table"}
    return [
        name
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite%' AND name NOT LIKE 'memory_fts%' "
            "AND name NOT LIKE 'claim_fts%' AND name != 'memory_meaning' ORDER BY name"
        )
        if (name := str(row[0])).lower() not in foreign
    ]


def undecodable(db: Db, table: str) -> list[Any]:
    """The rows of `table` holding text that is not UTF-8, each with its `rowid`."""
    return db.undecodable(f'SELECT rowid AS "rowid", * FROM {ident(table)}')


def unreadable_rows(db: Db) -> list[tuple[Any, list[str]]]:
    """The memories holding a value no reader can use (`sql.READABLE`) or a
    BLOB where text belongs (`sql.TEXTS`), each with its `rowid`, `id` and
    those columns."""
    return db.unreadable('SELECT rowid AS "rowid", * FROM memories')


def refused_rows(db: Db) -> list[tuple[Any, list[str]]]:
    """The memories an import would refuse, each with its `rowid`, `id` and
    the columns it would refuse them for: a time that is no time (`damage.TIMES`:
    every read compares the times that decide whether a row is live as text,
    so 'yesterday' hides the row from every read, and 'never' keeps it past
    its end), or a value every write's checks refuse (`validation.problems`:
    a ring of no name, a confidence of 5, a blank summary). What an export
    leaves out (`damage.sound`), by the same checks. The times are read of
    every row, the rest of each row every read reaches (one it skips is
    `unreadable_rows`'s)."""
    from tree_ring.model.validation import problems
    from tree_ring.store import damage, rows

    times = ", ".join(damage.TIMES)
    found: dict[int, tuple[Any, list[str]]] = {}
    for row in db.query(f'SELECT rowid AS "rowid", id, {times} FROM memories'):
        if columns := damage.bad_times(row):
            found[row["rowid"]] = (row, columns)
    # A column that must hold a value holding none (NULL), as a damaged page
    # can read: named, and the row's other checks, which take a value, not run.
    required = [column for column in rows.COLUMNS if column not in rows.NULLABLE]
    for row in db.query('SELECT rowid AS "rowid", * FROM memories'):
        columns = [column for column in required if row[column] is None]
        if columns := columns or [column for column, _ in problems(rows.from_row(row))]:
            held = found.setdefault(row["rowid"], (row, []))[1]
            held += [column for column in dict.fromkeys(columns) if column not in held]
    return list(found.values())


def waiting(db: Db) -> int:
    """Rows of every project that wait for review, as `review list` counts
    them (`store/queue.QUEUE_SQL`): a retired or redacted row waits for nothing."""
    return _scalar(
        db,
        "SELECT count(*) FROM memories WHERE trust IN ('pending', 'disputed')"
        " AND retired_at IS NULL AND redacted_at IS NULL",
    )


# ------------------------------------------------------------------ repairs


def begin(db: Db) -> None:
    db.execute("BEGIN IMMEDIATE")


def commit(db: Db) -> None:
    db.execute("COMMIT")


def roll_back(db: Db) -> None:
    db.execute("ROLLBACK")


def reindex(db: Db) -> None:
    """Rebuild every index from the rows."""
    db.execute("REINDEX")


def rebuild_fts(db: Db) -> list[str]:
    """Each index whose own tables are lost or damaged made whole and empty
    (`fts_shadow.restore`), every FTS trigger that is missing made again,
    then both indexes rebuilt from the rows; the indexes made whole."""
    mended = [index for index in fts.INDEXES if fts_shadow.damage(db, index)]
    for index in mended:
        fts_shadow.restore(db, index)
    for name, statement in schema.INDEX_TRIGGERS.items():
        if not exists(db, "trigger", name):
            db.execute(statement)
    for index in fts.INDEXES:
        db.execute("SAVEPOINT doctor_rebuild")
        try:
            db.execute(f"INSERT INTO {index}({index}) VALUES ('rebuild')")
        except StoreFault:
            # Damage the checks could not name (an index page of `_idx` or
            # `_data` that FTS5 trips over): its tables made whole, then again.
            db.execute("ROLLBACK TO doctor_rebuild")
            fts_shadow.restore(db, index)
            db.execute(f"INSERT INTO {index}({index}) VALUES ('rebuild')")
            mended.append(index)
        finally:
            db.execute("RELEASE doctor_rebuild")
    return mended


def rebuild_meaning(db: Db) -> tuple[int, int]:
    """The meaning codes' tables and triggers where missing, the codes no
    memory should hold deleted (`meaning.unsound`), then every memory
    without a code coded (every memory, when the codes are stale); how many
    codes were deleted, and how many memories coded."""
    if not exists(db, "table", "memory_meaning"):
        db.execute(schema.MEANING_TABLE[0])
    if not exists(db, "table", "meaning_source"):
        db.execute(meaning.MEANING_SOURCE)
    for statement in schema.MEANING_TABLE[1:]:
        name = statement.split()[2]
        if not exists(db, "trigger", name):
            db.execute(statement)
    if meaning.stale(db):
        return 0, meaning.recode(db)
    removed = meaning.drop_unsound(db)
    before = meaning.uncoded(db)
    meaning.code_missing(db)
    return removed, before


def remove_orphan_claims(db: Db) -> int:
    return db.execute(f"DELETE {ORPHAN_CLAIMS}").rowcount


def mend_redactions(db: Db) -> tuple[int, int]:
    """(orphaned tombstones removed, missing ones restored from the rows)."""
    removed = db.execute(f"DELETE {ORPHAN_TOMBSTONES}").rowcount
    added = db.execute(
        "INSERT INTO redaction_tombstones(memory_id, created_at) "
        "SELECT id, redacted_at FROM memories m WHERE redacted_at IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM redaction_tombstones t WHERE t.memory_id = m.id)"
    ).rowcount
    return removed, added


def orphaned_trees(db: Db) -> list[str]:
    """The projects whose source tree has a leaf whose memory is gone."""
    return [
        str(row[0])
        for row in db.execute(f"SELECT DISTINCT t.scope {ORPHAN_LEAVES} AND t.kind = 'source'")
    ]


def projects(db: Db) -> list[str]:
    """Every project a memory belongs to."""
    found = db.execute("SELECT DISTINCT project FROM memories WHERE project IS NOT NULL")
    return sorted(str(row[0]) for row in found)
