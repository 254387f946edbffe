"""The doctor's `tables` check: every table, index and trigger the applied
migrations made is there (store/layout.py), and `--repair` makes a missing
one again from the schema's own statement. Its `definitions` check: every
index, trigger and view they made that is there is defined as the schema
defines it, and `--repair` drops one defined otherwise and makes it again.

A dropped table's rows went with it. What is derived from the memories is
rebuilt from them (the summary tree, the redaction records of redacted
rows); what is not is named in the finding as lost, for a person to restore
from a backup if it matters. A missing `memories` table is the truth gone:
nothing here makes it again.
"""

from __future__ import annotations

from tree_ring.model import vectors
from tree_ring.model.record import now_iso
from tree_ring.model.text import error_safe
from tree_ring.store import fts_shadow, health, layout, meaning, schema, settings
from tree_ring.store.sql import Db, ident
from tree_ring.tree import repair

# (ok, detail, repairable), as the doctor's Check holds them.
Found = tuple[bool, str, bool]


def _lost(part: layout.Part) -> str:
    if part.name in layout.TREE:
        return f"{part.name} (rebuilt from the memories)"
    return f"{part.name} (lost with it: {layout.LOST[part.name]})"


def _taken(db: Db, applied: list[str]) -> list[tuple[layout.Part, str]]:
    return [(part, kind) for part, kind in layout.misplaced(db, applied) if part.kind == "table"]


def _taken_words(taken: list[tuple[layout.Part, str]]) -> list[str]:
    """What the finding says of each table whose name another kind holds."""
    derived = [f"{kind} {part.name}" for part, kind in taken if part.name in layout.DERIVED]
    kept = [
        f"{kind} {part.name} (the table is gone and its rows with it"
        + (f": {layout.LOST[part.name]}" if part.name in layout.LOST else "")
        + ")"
        for part, kind in taken
        if part.name not in layout.DERIVED
    ]
    words: list[str] = []
    if derived:
        words.append(
            f"table name(s) held by another kind: {', '.join(derived)}; `doctor --repair` "
            "drops each and makes the table again, rebuilt from the memories"
        )
    if kept:
        words.append(
            f"table name(s) held by another kind: {', '.join(kept)}; `doctor --repair` "
            "leaves them: drop each by hand and run `doctor --repair`, and restore a "
            "backup for the rows"
        )
    return words


def check(db: Db) -> Found:
    applied = schema.applied(db)
    gone = layout.missing(db, applied)
    taken = _taken(db, applied)
    if taken and not gone:
        derived = any(part.name in layout.DERIVED for part, _ in taken)
        return False, "; ".join(_taken_words(taken)), derived
    if not gone:
        return (
            True,
            f"every table, index and trigger of {len(applied)} migration(s) is there",
            False,
        )
    tables = [part for part in gone if part.kind == "table"]
    dropped = {part.name for part in tables}
    # An index or trigger of a missing table is made again with it, unnamed.
    others = [part.name for part in gone if part.kind != "table" and part.table not in dropped]
    if layout.TRUTH in dropped:
        return (
            False,
            "the memories table is missing: every memory is gone and `doctor --repair` "
            "cannot make them again; move the store aside and restore a backup, or rebuild "
            "it with `tree-ring sync` from the team ledger or `tree-ring import` from an export",
            False,
        )
    parts: list[str] = []
    if tables:
        parts.append(f"missing table(s): {', '.join(_lost(part) for part in tables)}")
    if others:
        parts.append(f"missing index(es) and trigger(s): {', '.join(others)}")
    parts.append("`doctor --repair` makes them again from the schema, empty")
    if any(part.name in layout.LOST for part in tables):
        parts.append("only a backup holds the lost rows")
    parts.extend(_taken_words(taken))
    return False, "; ".join(parts), True


def mend(db: Db) -> str:
    """Make every missing part again, in the caller's transaction, and
    rebuild what the memories hold of it; what was done."""
    applied = schema.applied(db)
    gone = layout.missing(db, applied)
    layout.recreate(db, gone)
    displaced = layout.displace(db, _taken(db, applied))
    made = {part.name for part in [*gone, *displaced] if part.kind == "table"}
    done = [f"made {len(gone)} missing table(s), index(es) and trigger(s) again"]
    if displaced:
        names = ", ".join(part.name for part in displaced)
        done.append(f"dropped what held the name of table(s) {names} and made them again")
    if "settings" in made:
        settings.store_tree_defaults(db)
    if "redaction_tombstones" in made:
        _, added = health.mend_redactions(db)
        done.append(f"restored {added} redaction record(s) from the redacted rows")
    if made & set(layout.TREE):
        # The tree's tables no longer agree with one another: all of it is
        # derived, so it is built again from the memories.
        layout.clear_tree(db)
        projects = health.projects(db)
        now = now_iso()
        for project_id in projects:
            repair.rebuild(db, project_id, now)
        done.append(f"rebuilt the summary tree of {len(projects)} project(s)")
    return "; ".join(done)


# What keeps the FTS indexes with the rows (their triggers, the view recall's
# index reads), and the meaning codes: what such a part defined otherwise
# wrote, or left unwritten, is rebuilt from the rows with it.
_FTS = frozenset(
    name
    for name in schema.INDEX_TRIGGERS
    if name.startswith(("memories_fts_", "memories_claim_fts_"))
) | {fts_shadow.CONTENT_VIEW}
_MEANING = frozenset(schema.INDEX_TRIGGERS) - _FTS
# How many of the parts defined otherwise a finding names.
_SHOWN = 5


def _misplaced(db: Db) -> list[tuple[layout.Part, str]]:
    """The indexes, triggers and views whose name an object of another kind holds."""
    found = layout.misplaced(db, schema.applied(db))
    return [(part, kind) for part, kind in found if part.kind != "table"]


def check_definitions(db: Db) -> Found:
    held, differ = layout.redefined(db, schema.applied(db))
    wrong = _misplaced(db)
    if wrong:
        names = ", ".join(f"{kind} {part.name} (the schema's {part.kind})" for part, kind in wrong)
        other = ""
        if differ:
            listed = ", ".join(f"{part.kind} {part.name}" for part in differ[:_SHOWN])
            more = f" and {len(differ) - _SHOWN} more" if len(differ) > _SHOWN else ""
            other = f"; {len(differ)} differ from the schema's definition: {listed}{more}"
        return (
            False,
            f"{len(wrong)} name(s) of the schema's index(es), trigger(s) or view(s) held by "
            f"an object of another kind: {names}{other}; `doctor --repair` drops each and "
            "makes it again from the schema",
            True,
        )
    if not differ:
        return (
            True,
            f"{held} index(es), trigger(s) and view(s) match the schema's definition",
            False,
        )
    names = ", ".join(f"{part.kind} {part.name}" for part in differ[:_SHOWN])
    more = f" and {len(differ) - _SHOWN} more" if len(differ) > _SHOWN else ""
    return (
        False,
        f"{len(differ)} index(es), trigger(s) or view(s) differ from the schema's definition: "
        f"{names}{more}; `doctor --repair` makes them again from the schema",
        True,
    )


def check_foreign(db: Db) -> Found:
    found = layout.foreign(db)
    if not found:
        return True, "the store holds only what Tree Ring's schema makes", False
    # A name is anyone's: its line breaks are written out, so it cannot
    # start a line that reads as the doctor's.
    names = ", ".join(f"{kind} {error_safe(name)}" for kind, name in found[:_SHOWN])
    more = f" and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    kinds = {kind for kind, _ in found}
    why = " (a trigger runs inside every write Tree Ring makes)" if "trigger" in kinds else ""
    fix: list[str] = []
    if kinds - {"table"}:
        fix.append("`doctor --repair` drops the indexes, triggers and views")
    tables = [name for kind, name in found if kind == "table"]
    if tables:
        fix.append(
            "a table is left as it is: copy out what you need, then drop the table "
            f"{', '.join(error_safe(ident(name)) for name in tables)} in the sqlite3 shell"
        )
    return (
        False,
        f"{len(found)} object(s) Tree Ring's schema does not make: {names}{more}{why}; "
        + "; ".join(fix),
        bool(kinds - {"table"}),
    )


def drop_foreign(db: Db) -> str:
    """Drop the indexes, triggers and views no migration makes (`layout.foreign`)."""
    found = [(kind, name) for kind, name in layout.foreign(db) if kind != "table"]
    layout.drop(db, found)
    return (
        f"dropped {len(found)} index(es), trigger(s) and view(s) Tree Ring's schema does not make"
    )


def remake(db: Db, *, rebuild_fts: bool) -> str:
    """Make every part defined otherwise again from the schema, in the
    caller's transaction, and what it kept rebuilt from the rows: the FTS
    indexes, unless `rebuild_fts` is False (the fts repair rebuilds them
    after), and the meaning codes; what was done."""
    _, differ = layout.redefined(db, schema.applied(db))
    layout.remake(db, differ)
    displaced = layout.displace(db, _misplaced(db))
    names = {part.name for part in [*differ, *displaced]}
    done = [f"made {len(differ)} index(es), trigger(s) and view(s) again from the schema"]
    if displaced:
        done.append(
            f"dropped what held the name of {len(displaced)} index(es), trigger(s) and "
            "view(s) and made them again"
        )
    if names & _FTS and rebuild_fts:
        health.rebuild_fts(db)
        done.append("rebuilt the FTS indexes from the rows")
    if names & _MEANING and vectors.identity() is not None:
        coded = meaning.recode(db)
        done.append(f"coded {coded} memory(ies) again")
    return "; ".join(done)
