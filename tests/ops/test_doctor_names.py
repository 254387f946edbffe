"""`doctor` reads the store's objects as SQLite names them, case-insensitively,
and names a schema object's name held by an object of another kind.

An index or trigger dropped and made again under another capitalisation of
its name is the schema's object, compared by definition, and `--repair`
makes it again under the schema's name. A view where an index belongs, a
table where a view belongs, a view or plain table where an FTS index
belongs: each is named, and `--repair` drops it and makes the schema's
object again, rebuilding what is derived from the rows. A table of the
truth or evidence whose name another kind holds is named with the backup
it needs, and left alone."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from reliability_support import checks, raw, recalled
from reliability_support import remembered as remember

from tree_ring.store import layout, schema

ALL = [name for name, _ in schema.MIGRATIONS]


def failing(found: dict[str, dict[str, Any]]) -> set[str]:
    return {name for name, check in found.items() if not check["ok"]}


def damage(root: Path, script: str) -> None:
    with closing(raw(root)) as conn:
        conn.executescript(script)


def objects(root: Path) -> dict[tuple[str, str], str]:
    with closing(raw(root)) as conn:
        found = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL")
        return {(r[0], r[1]): r[2] for r in found}


def rows(root: Path) -> list[tuple[Any, ...]]:
    with closing(raw(root)) as conn:
        return conn.execute("SELECT * FROM memories ORDER BY id").fetchall()


@pytest.fixture
def first(run_cli: CliRunner) -> str:
    return remember(run_cli, "Deploys freeze on Fridays after the release branch is cut")


def mended(run_cli: CliRunner, root: Path, before: dict[tuple[str, str], str]) -> None:
    """After a repair: a second doctor is ok, the schema's objects are as
    they were, and a new memory is found by recall."""
    code, found = checks(run_cli)
    assert (code, failing(found)) == (0, set()), found
    assert objects(root) == before
    new = remember(run_cli, "Kafka brokers need three replicas")
    assert new in recalled(run_cli, "kafka brokers replicas")


def test_a_capitalised_index_and_no_op_trigger_are_compared_and_made_again(
    run_cli: CliRunner, project_root: Path, first: str
) -> None:
    before, memories = objects(project_root), rows(project_root)
    damage(
        project_root,
        "DROP INDEX memories_hash; CREATE INDEX MEMORIES_HASH ON memories(project, content_hash);"
        "DROP TRIGGER memories_fts_insert;"
        "CREATE TRIGGER Memories_Fts_Insert AFTER INSERT ON memories BEGIN SELECT 1; END;",
    )
    code, found = checks(run_cli)
    assert code == 1
    assert failing(found) == {"definitions"}
    assert found["definitions"]["detail"] == (
        "2 index(es), trigger(s) or view(s) differ from the schema's definition: "
        "index memories_hash, trigger memories_fts_insert; "
        "`doctor --repair` makes them again from the schema"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == (
        "made 2 index(es), trigger(s) and view(s) again from the schema; "
        "rebuilt the FTS indexes from the rows"
    )
    assert rows(project_root) == memories
    assert first in recalled(run_cli, "deploys fridays")
    mended(run_cli, project_root, before)


def test_a_capitalised_index_of_the_same_definition_is_made_again_under_its_name(
    run_cli: CliRunner, project_root: Path, first: str
) -> None:
    before = objects(project_root)
    statement = before["index", "memories_hash"]
    damage(
        project_root,
        "DROP INDEX memories_hash;" + statement.replace("memories_hash", "Memories_Hash") + ";",
    )
    code, found = checks(run_cli)
    assert failing(found) == {"definitions"}
    assert "index memories_hash" in found["definitions"]["detail"]
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    mended(run_cli, project_root, before)


def test_objects_of_another_kind_are_named_and_replaced_with_every_other_repair(
    run_cli: CliRunner, project_root: Path, first: str
) -> None:
    """The outside report's repro 03: an index's name held by a view, the
    view recall's index reads by a table, a no-op FTS trigger, a dropped
    table and deleted migration rows, all mended by one repair."""
    before, memories = objects(project_root), rows(project_root)
    damage(
        project_root,
        "DROP INDEX memories_project_created; CREATE VIEW memories_project_created AS SELECT 1;"
        "DROP VIEW memory_text; CREATE TABLE memory_text(rowid, summary, details, tags);"
        "DROP TRIGGER memories_fts_insert;"
        "CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN SELECT 1; END;"
        "DROP TABLE refutations;"
        "DELETE FROM schema_migrations WHERE name IN ('0011_anchors','0019_ledger_kept');",
    )
    code, found = checks(run_cli)
    assert code == 1
    assert failing(found) == {"schema", "tables", "definitions", "fts"}
    assert found["definitions"]["detail"] == (
        "2 name(s) of the schema's index(es), trigger(s) or view(s) held by an object of "
        "another kind: view memories_project_created (the schema's index), table memory_text "
        "(the schema's view); 1 differ from the schema's definition: trigger "
        "memories_fts_insert; `doctor --repair` drops each and makes it again from the schema"
    )
    assert found["definitions"]["repairable"]
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["definitions"]["repaired"] == (
        "made 1 index(es), trigger(s) and view(s) again from the schema; dropped what held "
        "the name of 2 index(es), trigger(s) and view(s) and made them again"
    )
    assert found["tables"]["repaired"] == "made 1 missing table(s), index(es) and trigger(s) again"
    assert rows(project_root) == memories
    assert first in recalled(run_cli, "deploys fridays")
    mended(run_cli, project_root, before)


@pytest.mark.parametrize(
    ("script", "said", "made"),
    [
        (
            "DROP TABLE memory_fts; CREATE TABLE memory_fts(summary, details, tags);",
            "memory_fts is a plain table, not the FTS index",
            "memory_fts",
        ),
        (
            "DROP TABLE claim_fts; CREATE VIEW claim_fts AS SELECT rowid, summary FROM memories;",
            "claim_fts is a view, not the FTS index",
            "claim_fts",
        ),
    ],
)
def test_an_fts_index_replaced_by_another_kind_is_named_and_made_again(
    run_cli: CliRunner, project_root: Path, first: str, script: str, said: str, made: str
) -> None:
    before, memories = objects(project_root), rows(project_root)
    damage(project_root, script)
    code, found = checks(run_cli)
    assert code == 1
    assert failing(found) == {"fts"}
    assert found["fts"]["detail"] == (
        f"{said}; recall cannot read its index until "
        "`doctor --repair` makes the index again from the rows"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert (
        found["fts"]["repaired"]
        == f"made {made} whole again and rebuilt the FTS indexes from the rows"
    )
    assert rows(project_root) == memories
    assert first in recalled(run_cli, "deploys fridays")
    mended(run_cli, project_root, before)


def test_a_table_of_evidence_whose_name_a_view_holds_is_named_and_left(
    run_cli: CliRunner, project_root: Path, first: str
) -> None:
    """refutations is not derived: its name held by a view is named with the
    backup its rows need, the view is left, and the rest still repairs."""
    damage(
        project_root,
        "DROP TABLE refutations; CREATE VIEW refutations AS SELECT 1 AS x;"
        "DROP TRIGGER memories_fts_insert;"
        "CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN SELECT 1; END;",
    )
    detail = (
        "table name(s) held by another kind: view refutations (the table is gone and its "
        f"rows with it: {layout.LOST['refutations']}); `doctor --repair` leaves them: drop "
        "each by hand and run `doctor --repair`, and restore a backup for the rows"
    )
    code, found = checks(run_cli)
    assert code == 1
    assert failing(found) == {"tables", "definitions"}
    assert (found["tables"]["detail"], found["tables"]["repairable"]) == (detail, False)
    code, found = checks(run_cli, "--repair")
    assert code == 1
    assert failing(found) == {"tables"}
    assert found["tables"]["detail"] == detail
    assert ("view", "refutations") in objects(project_root)
    assert first in recalled(run_cli, "deploys fridays")


def test_a_tree_table_whose_name_a_view_holds_is_made_again_and_rebuilt(
    run_cli: CliRunner, project_root: Path, first: str
) -> None:
    before = objects(project_root)
    damage(project_root, "DROP TABLE tree_buffers; CREATE VIEW tree_buffers AS SELECT 1 AS x;")
    code, found = checks(run_cli)
    assert "tables" in failing(found)
    assert found["tables"]["detail"] == (
        "table name(s) held by another kind: view tree_buffers; `doctor --repair` drops each "
        "and makes the table again, rebuilt from the memories"
    )
    assert found["tables"]["repairable"]
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert "dropped what held the name of table(s) tree_buffers" in found["tables"]["repaired"]
    mended(run_cli, project_root, before)


def test_a_migration_whose_only_index_was_renamed_in_capitals_is_recorded_again(
    run_cli: CliRunner, project_root: Path, first: str
) -> None:
    """The ledger's row of 0017 deleted and its one index made again as
    AUDIT_REFUTES: the index shows the migration ran, whatever the case of
    its name, so `--repair` records it rather than run it again over it."""
    index = next(p for p in layout.PARTS if p.migration == "0017_refute_index")
    with closing(raw(project_root)) as conn:
        made = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (index.name,)
        ).fetchone()[0]
        conn.execute(f"DROP INDEX {index.name}")
        conn.execute(made.replace(index.name, index.name.upper(), 1))
        conn.execute("DELETE FROM schema_migrations WHERE name = '0017_refute_index'")
        conn.commit()
    code, found = checks(run_cli)
    assert code == 1 and "0017_refute_index" in found["schema"]["detail"]
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert (
        found["schema"]["repaired"] == "recorded 1 migration(s) as applied; applied 0 migration(s)"
    )
    assert checks(run_cli)[0] == 0
    assert recalled(run_cli, "Deploys freeze") == {first}
