"""`doctor` on a store whose index, trigger or view of a migration's name is
defined otherwise than the schema defines it (made by hand, or by another
build): named by the `definitions` check, and `--repair` drops it and makes
it again from the schema, with what it kept rebuilt from the rows."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, CliRunner
from helpers import cli_runner
from reliability_support import checks, fts_consistent, raw, recalled
from reliability_support import remembered as remember

from tree_ring.model import project
from tree_ring.store import layout, schema
from tree_ring.store.db import Store

ALL = [name for name, _ in schema.MIGRATIONS]
# What the outside report replaced, each by a same-named object: recall's
# insert trigger and the policy audit's append-only guard by ones that do
# nothing, an index by one over other columns.
REPLACED = {
    "memories_fts_insert": (
        "trigger",
        "CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN SELECT 1; END",
    ),
    "policy_audit_append_only_delete": (
        "trigger",
        "CREATE TRIGGER policy_audit_append_only_delete BEFORE DELETE ON policy_audit "
        "BEGIN SELECT 1; END",
    ),
    "memories_hash": ("index", "CREATE INDEX memories_hash ON memories(content_hash)"),
}
REMADE = "made {} index(es), trigger(s) and view(s) again from the schema"
REBUILT = "; rebuilt the FTS indexes from the rows"


def failing(found: dict[str, dict[str, Any]]) -> set[str]:
    return {name for name, check in found.items() if not check["ok"]}


def named(*parts: tuple[str, str]) -> str:
    listed = ", ".join(f"{kind} {name}" for kind, name in parts)
    return (
        f"{len(parts)} index(es), trigger(s) or view(s) differ from the schema's definition: "
        f"{listed}; `doctor --repair` makes them again from the schema"
    )


def definitions(root: Path) -> dict[tuple[str, str], str]:
    with closing(raw(root)) as conn:
        found = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger', 'view')"
            " AND sql IS NOT NULL"
        )
        return {(r[0], r[1]): r[2] for r in found}


def replace(root: Path, *statements: str) -> None:
    """The object each of `statements` makes dropped and made again by it, as
    a hand edit through Python's sqlite3 would."""
    with closing(raw(root)) as conn:
        for statement in statements:
            made = re.match(r"CREATE\s+(\w+)\s+(?:IF NOT EXISTS\s+)?(\w+)", statement)
            assert made is not None, statement
            conn.execute(f"DROP {made.group(1)} {made.group(2)}")
            conn.execute(statement)


@pytest.fixture
def ids(run_cli: CliRunner) -> list[str]:
    return [remember(run_cli, f"Doctor fact {n} about shard{n}") for n in range(3)]


def test_a_new_store_matches_the_schema(run_cli: CliRunner, project_root: Path) -> None:
    """Every index, trigger and view a new store holds is one the layout
    knows, and each is stored as the schema's statement is."""
    with Store.open(project_root):
        pass
    known = {(part.kind, part.name) for part in layout.defined(ALL)}
    assert set(definitions(project_root)) == known
    code, found = checks(run_cli)
    assert code == 0, found
    assert found["definitions"] == {
        "name": "definitions",
        "ok": True,
        "detail": f"{len(known)} index(es), trigger(s) and view(s) match the schema's definition",
        "repairable": False,
        "repaired": "",
    }


def test_a_first_schema_store_migrated_up_matches_the_schema(tmp_path: Path) -> None:
    """A store the first Tree Ring made (fixtures/stores/schema-0001.sqlite),
    migrated by today's: recall's triggers were made again by 0010 and the
    inbox's index by 0016, each as the schema now makes it."""
    root = tmp_path / "old"
    (root / project.DIR).mkdir(parents=True)
    (root / project.DIR / project.PROJECT_FILE).write_text(
        json.dumps({"project_id": "fixture-app-3f9c2a", "name": "old", "created_at": "2026-03-01"})
    )
    shutil.copyfile(REPO / "fixtures" / "stores" / "schema-0001.sqlite", project.store_path(root))
    with Store.open(root):
        pass
    assert set(definitions(root)) == {(part.kind, part.name) for part in layout.defined(ALL)}
    _, found = checks(cli_runner(root))
    assert found["definitions"]["ok"], found["definitions"]
    assert found["definitions"]["detail"] == (
        f"{len(layout.defined(ALL))} index(es), trigger(s) and view(s) "
        "match the schema's definition"
    )


@pytest.mark.parametrize("name", sorted(REPLACED))
def test_an_object_defined_otherwise_is_named_and_made_again(
    run_cli: CliRunner, project_root: Path, ids: list[str], name: str
) -> None:
    before = definitions(project_root)
    kind, statement = REPLACED[name]
    replace(project_root, statement)
    code, found = checks(run_cli)
    assert code == 1
    assert failing(found) == {"definitions"}
    check = found["definitions"]
    assert (check["ok"], check["repairable"]) == (False, True)
    assert check["detail"] == named((kind, name))

    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    rebuilt = REBUILT if name == "memories_fts_insert" else ""
    assert found["definitions"]["repaired"] == REMADE.format(1) + rebuilt
    assert failing(found) == set()
    assert definitions(project_root) == before


def test_every_object_defined_otherwise_is_named_in_migration_order(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    before = definitions(project_root)
    replace(project_root, *(statement for _, statement in REPLACED.values()))
    code, found = checks(run_cli)
    assert code == 1
    assert found["definitions"]["detail"] == named(
        ("index", "memories_hash"),  # 0001_initial
        ("trigger", "policy_audit_append_only_delete"),  # 0002_policy_audit
        ("trigger", "memories_fts_insert"),  # 0010_folded_index
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == REMADE.format(3) + REBUILT
    assert definitions(project_root) == before


def test_the_finding_names_the_first_five(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    indexes = ["memories_brief", "memories_project_created", "memories_hash", "memories_trust"]
    replace(
        project_root,
        *(f"CREATE INDEX {name} ON memories(id)" for name in indexes),
        *(statement for _, statement in REPLACED.values() if "TRIGGER" in statement),
    )
    _, found = checks(run_cli)
    listed = ", ".join(f"index {name}" for name in indexes)
    assert found["definitions"]["detail"] == (
        "6 index(es), trigger(s) or view(s) differ from the schema's definition: "
        f"{listed}, trigger policy_audit_append_only_delete and 1 more; "
        "`doctor --repair` makes them again from the schema"
    )


def test_the_append_only_guard_refuses_a_delete_again_after_the_repair(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    replace(project_root, REPLACED["policy_audit_append_only_delete"][1])
    with closing(raw(project_root)) as conn:
        conn.execute("SAVEPOINT probe")
        conn.execute("DELETE FROM policy_audit")  # the guard does nothing
        conn.execute("ROLLBACK TO probe")
        conn.execute("RELEASE probe")
    assert checks(run_cli, "--repair")[0] == 0
    with closing(raw(project_root)) as conn:
        held = conn.execute("SELECT count(*) FROM policy_audit").fetchone()[0]
        assert held > 0
        with pytest.raises(sqlite3.IntegrityError, match="the policy audit is append-only"):
            conn.execute("DELETE FROM policy_audit")
        assert conn.execute("SELECT count(*) FROM policy_audit").fetchone()[0] == held


def test_recall_index_stays_in_step_with_writes_after_the_repair(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    """The report's case: with recall's insert trigger doing nothing, a write
    leaves its row out of the index; the repair makes the trigger again and
    the index whole, so the next write is indexed and the doctor stays clean."""
    replace(project_root, REPLACED["memories_fts_insert"][1])
    lost = remember(run_cli, "Zebra crossing markers are repainted in April")
    with closing(raw(project_root)) as conn:
        assert not fts_consistent(conn)
    code, found = checks(run_cli)
    assert code == 1 and failing(found) == {"definitions", "fts"}
    # Said as what it is, not as the damaged file FTS5's own words describe.
    assert found["fts"]["detail"] == (
        "4 rows, 3 indexed; 1 row(s) not indexed, 0 index entry(ies) without a row; "
        "memory_fts's entries do not match the rows' text (missing, extra or out of date); "
        "`doctor --repair` rebuilds the FTS indexes from the rows"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    # The fts repair rebuilds the index, so the definitions repair leaves it to it.
    assert found["definitions"]["repaired"] == REMADE.format(1)
    assert found["fts"]["repaired"] == "rebuilt the FTS indexes from the rows"
    new = remember(run_cli, "Yak shaving sessions are limited to one hour")
    assert recalled(run_cli, "zebra crossing") == {lost}
    assert recalled(run_cli, "yak shaving") == {new}
    with closing(raw(project_root)) as conn:
        assert fts_consistent(conn)
    code, found = checks(run_cli)
    assert code == 0 and failing(found) == set()


def test_a_definition_laid_out_otherwise_is_the_same(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    """SQLite stores a statement's text as given, but for its first keywords
    and `IF NOT EXISTS`: other white space, or the clause, is no difference."""
    replace(
        project_root,
        "CREATE INDEX IF NOT EXISTS memories_hash ON memories(project,\n    content_hash)",
        "CREATE  TRIGGER policy_audit_append_only_delete BEFORE DELETE ON policy_audit\n"
        "        BEGIN SELECT RAISE(ABORT, 'the policy audit is append-only'); END",
    )
    code, found = checks(run_cli)
    assert code == 0, found
    assert found["definitions"]["ok"]


def test_recall_view_defined_otherwise_is_made_again_and_the_index_rebuilt(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    """The view recall's index reads, made to read the rows' text unfolded:
    made again folded, and the index rebuilt from it."""
    before = definitions(project_root)
    replace(
        project_root,
        "CREATE VIEW memory_text(rowid, summary, details, tags) AS "
        "SELECT rowid, summary, details, tags FROM memories",
    )
    _, found = checks(run_cli)
    assert found["definitions"]["detail"] == named(("view", "memory_text"))
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == REMADE.format(1) + REBUILT
    assert definitions(project_root) == before
    assert recalled(run_cli, "shard1") == {ids[1]}


def test_a_meaning_trigger_defined_otherwise_is_made_again_and_every_memory_coded(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    replace(
        project_root,
        "CREATE TRIGGER memories_meaning_insert AFTER INSERT ON memories BEGIN SELECT 1; END",
    )
    remember(run_cli, "Doctor fact written while the trigger did nothing")
    code, found = checks(run_cli)
    assert code == 1 and failing(found) == {"definitions", "meaning"}
    assert found["definitions"]["detail"] == named(("trigger", "memories_meaning_insert"))
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == REMADE.format(1) + "; coded 4 memory(ies) again"
    remember(run_cli, "Doctor fact written after the repair")
    with closing(raw(project_root)) as conn:
        coded = conn.execute("SELECT count(*) FROM memory_meaning").fetchone()[0]
    assert coded == 5
    assert checks(run_cli)[0] == 0


def test_a_guard_that_refuses_the_policy_record_does_not_stop_the_repair(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    """The repair makes the policy audit's triggers again before the policy
    is asked, which records its decision there: one made to refuse every
    record would otherwise refuse the repair that mends it."""
    replace(
        project_root,
        "CREATE TRIGGER policy_audit_append_only_update BEFORE INSERT ON policy_audit "
        "BEGIN SELECT RAISE(ABORT, 'refused'); END",
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == REMADE.format(1)
    remember(run_cli, "Doctor fact written after the repair")


def test_a_store_whose_migrations_record_was_emptied_has_its_objects_compared_after_the_repair(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    """With no migration recorded no object is expected, so none is
    compared; the repair records them, then makes again what differs, in
    one run."""
    before = definitions(project_root)
    replace(project_root, REPLACED["memories_hash"][1])
    with closing(raw(project_root)) as conn:
        conn.execute("DELETE FROM schema_migrations")
    code, found = checks(run_cli)
    assert code == 1 and failing(found) == {"schema"}
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == REMADE.format(1)
    assert definitions(project_root) == before


def test_the_schema_statement_is_compared_as_sqlite_stores_it(
    project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite stores a statement written with `IF NOT EXISTS`, or its first
    keywords in lower case, without the clause and upper-cased: a schema
    statement so written still matches the object it made."""
    with Store.open(project_root) as store:
        [hashed] = [part for part in layout.DEFINED if part.name == "memories_hash"]
        loose = dataclasses.replace(
            hashed,
            statement="create index if not exists memories_hash ON memories(project, content_hash)",
        )
        parts = tuple(loose if part is hashed else part for part in layout.DEFINED)
        monkeypatch.setattr(layout, "DEFINED", parts)
        assert layout.redefined(store.db, ALL) == (len(layout.defined(ALL)), [])
