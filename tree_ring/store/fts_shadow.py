"""The FTS indexes' shadow tables: finding them lost or damaged, and making
them whole again so the index can be rebuilt from the rows.

An FTS5 table keeps its index in ordinary tables beside it (`<index>_data`,
`_idx`, `_config`, and `_docsize` unless sizes are off). With one of them
dropped, or the rows FTS5 reads when it opens the index gone (the version in
`_config`, the structure record in `_data`), SQLite cannot open the index at
all, so neither its `'rebuild'` command nor `DROP TABLE` can run. What an
empty index of the same definition holds is known: a twin made in the
connection's temporary schema holds exactly that, in the shadow tables this
SQLite would make. `restore` drops the damaged index's shadow tables and
makes them again as the twin's, rows and all; the caller then rebuilds the
index from the rows. Every statement runs in the caller's transaction, so a
failure leaves the file as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_ring.store import layout, schema
from tree_ring.store.sql import ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

TWIN = "tree_ring_fts_twin"
# Every shadow table an FTS5 table may have: what is left of an index whose
# own row is gone.
SUFFIXES = layout.FTS_SHADOWS
# How each index is made again when its own row is gone (store/schema.py).
DEFINITIONS = {"memory_fts": schema.MEMORY_FTS, "claim_fts": schema.CLAIM_FTS}
# The migration that made each index: a store it has not run on has none to lose.
MADE_BY = {"memory_fts": "0001_initial", "claim_fts": "0006_claim_index"}
# The rows recall's index reads its text from.
CONTENT_VIEW = "memory_text"


@dataclass(frozen=True)
class Shadow:
    """One shadow table as an empty index of the same definition holds it."""

    suffix: str
    columns: str  # the definition after the table's name: `(id INTEGER PRIMARY KEY, ...)`
    rows: tuple[tuple[object, ...], ...]


def _exists(db: Db, kind: str, name: str) -> bool:
    """Whether a `kind` called `name` is there, in any capitalisation."""
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ? COLLATE NOCASE", (kind, name)
    )
    return found.fetchone() is not None


def _virtual(sql: object) -> bool:
    return isinstance(sql, str) and sql.upper().startswith("CREATE VIRTUAL TABLE")


def _an_index(found: tuple[str, str, object]) -> bool:
    """Whether an object `layout.holder` found is an FTS index (a virtual table)."""
    return found[0] == "table" and _virtual(found[2])


def impostor(db: Db, index: str) -> str | None:
    """What holds `index`'s name and is not an FTS index (a plain table, a
    view), as a phrase; None when the name is free or the index's."""
    found = layout.holder(db, "table", index)
    if found is None or _an_index(found):
        return None
    kind = "a plain table" if found[0] == "table" else f"a {found[0]}"
    return f"{found[1]} is {kind}, not the FTS index"


def _definition(db: Db, index: str) -> str:
    """The index's own `CREATE VIRTUAL TABLE`, or the schema's when its row is
    gone (or is no FTS index)."""
    found = db.scalar(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", (index,)
    )
    return found if _virtual(found) and " USING " in str(found) else DEFINITIONS[index]


def _columns(sql: str) -> str:
    return sql[sql.index("(") :]


def twin(db: Db, index: str) -> list[Shadow]:
    """The shadow tables of an empty index defined as `index` is. The twin
    lives in the temporary schema, inside a savepoint rolled back at once, so
    even a store opened read-only can make it and the file never sees it."""
    using = _definition(db, index).split(" USING ", 1)[1]
    db.execute("SAVEPOINT fts_twin")
    try:
        db.execute(f"CREATE VIRTUAL TABLE temp.{TWIN} USING {using}")
        made = db.execute(
            "SELECT name, sql FROM sqlite_temp_master WHERE type = 'table' AND name LIKE ? "
            "ESCAPE '\\' ORDER BY name",
            (TWIN.replace("_", "\\_") + "\\_%",),
        ).fetchall()
        shadows: list[Shadow] = []
        for name, sql in made:
            rows = db.execute(f"SELECT * FROM temp.{ident(name)}").fetchall()
            shadows.append(
                Shadow(name[len(TWIN) + 1 :], _columns(sql), tuple(tuple(r) for r in rows))
            )
        return shadows
    finally:
        db.execute("ROLLBACK TO fts_twin")
        db.execute("RELEASE fts_twin")


def damage(db: Db, index: str) -> list[str]:
    """What is wrong with `index`'s own tables, each as a phrase naming the
    table; [] when FTS5 can open it (its content may still drift: the
    doctor's parity and integrity checks say so)."""
    found: list[str] = []
    other = impostor(db, index)
    if other is not None:
        return [other] if MADE_BY[index] in schema.applied(db) else []
    if not _exists(db, "table", index):
        return [f"{index} is missing"] if MADE_BY[index] in schema.applied(db) else []
    if "memory_text" in _definition(db, index) and not _exists(db, "view", CONTENT_VIEW):
        found.append(f"the view {CONTENT_VIEW} that {index} reads is missing")
    for shadow in twin(db, index):
        name = f"{index}_{shadow.suffix}"
        sql = db.scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        if not isinstance(sql, str):
            found.append(f"{name} is missing")
        elif _columns(sql) != shadow.columns:
            found.append(f"{name} is not the table FTS5 makes")
        elif shadow.suffix in ("config", "data"):
            # The rows FTS5 reads to open the index: the version, the structure record.
            pair = "k, v" if shadow.suffix == "config" else "id, NULL"
            held = {r[0]: r[1] for r in db.execute(f"SELECT {pair} FROM {ident(name)}")}
            lost = sorted(str(row[0]) for row in shadow.rows if row[0] not in held)
            if lost:
                what = "rows" if len(lost) > 1 else "row"
                found.append(f"{name} has lost the {what} FTS5 opens it by ({', '.join(lost)})")
            elif shadow.suffix == "config" and any(held[k] != v for k, v in shadow.rows):
                found.append(f"{name} names another version of FTS5's format")
    return found


def restore(db: Db, index: str) -> None:
    """Make `index` whole and empty: its shadow tables dropped and made again
    as an empty twin's (the index itself made again from the schema when its
    row is gone, the view it reads too). The caller rebuilds it from the rows,
    in the same transaction."""
    if "memory_text" in _definition(db, index) and not _exists(db, "view", CONTENT_VIEW):
        db.execute(schema.MEMORY_TEXT)
    shadows = twin(db, index)
    other = layout.holder(db, "table", index)
    if other is not None and not _an_index(other):
        # Derived, so nothing is lost: dropped for the index to be made again.
        db.execute(f"DROP {other[0].upper()} main.{ident(other[1])}")
    if not _exists(db, "table", index):
        # What is left of it would stand in the way of the new one's tables.
        for suffix in SUFFIXES:
            db.execute(f"DROP TABLE IF EXISTS main.{ident(f'{index}_{suffix}')}")
        db.execute(DEFINITIONS[index])
        return
    for shadow in shadows:
        name = f"{index}_{shadow.suffix}"
        db.execute(f"DROP TABLE IF EXISTS main.{ident(name)}")
        db.execute(f"CREATE TABLE main.{ident(name)}{shadow.columns}")
        for row in shadow.rows:
            marks = ", ".join("?" for _ in row)
            db.execute(f"INSERT INTO main.{ident(name)} VALUES ({marks})", row)
