"""`doctor` on a store whose migrations' ledger (`schema_migrations`) was
dropped: named, and `--repair` records as applied each migration whose
objects are there, applies the rest, and the store opens again."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from helpers import CliRunner
from reliability_support import checks, raw

from tree_ring.store import layout, schema

ALL = [name for name, _ in schema.MIGRATIONS]


def drop(root: Path, *statements: str) -> None:
    with closing(raw(root)) as conn:
        for statement in ("DROP TABLE schema_migrations", *statements):
            conn.execute(statement)
        conn.commit()


def ledger(root: Path) -> list[str]:
    with closing(raw(root)) as conn:
        return [row[0] for row in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def remembered(run_cli: CliRunner) -> str:
    result = run_cli("--json", "remember", "The nightly build runs on the shard7 runner")
    assert result.code == 0, result.err
    memory_id: str = result.json()["id"]
    return memory_id


def listed(run_cli: CliRunner) -> set[str]:
    result = run_cli("--json", "list")
    assert result.code == 0, result.err
    return {item["id"] for item in result.json()["items"]}


def test_every_migration_is_known_by_its_objects_or_runs_again() -> None:
    """Rebuilding the ledger needs to tell, of each migration, whether it ran."""
    known = {part.migration for part in layout.PARTS} | set(layout.MARKS) | set(layout.AGAIN)
    assert known == set(ALL)


def test_a_dropped_ledger_is_named_and_rebuilt(run_cli: CliRunner, project_root: Path) -> None:
    kept = remembered(run_cli)
    drop(project_root)
    refused = run_cli("list")
    assert refused.code != 0 and "table memories already exists" in refused.err
    code, found = checks(run_cli)
    assert code == 1
    assert found["schema"]["ok"] is False
    assert found["schema"]["detail"] == (
        "schema_migrations is missing (the record of the migrations applied); "
        "`doctor --repair` records those whose tables are there and applies the rest"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert {name for name, check in found.items() if not check["ok"]} == set()
    assert found["schema"]["repaired"] == (
        f"recorded {len(ALL) - len(layout.AGAIN)} migration(s) as applied; "
        f"applied {len(layout.AGAIN)} migration(s)"
    )
    assert ledger(project_root) == ALL
    assert listed(run_cli) == {kept}


def test_a_migration_that_never_ran_is_applied(run_cli: CliRunner, project_root: Path) -> None:
    # A store from before the anchors: none of 0011's objects is there.
    kept = remembered(run_cli)
    drop(
        project_root,
        "DROP TRIGGER memories_anchors_delete",
        "DROP TRIGGER memories_anchors_redact",
        "DROP TABLE anchors",
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["schema"]["repaired"] == (
        f"recorded {len(ALL) - 1 - len(layout.AGAIN)} migration(s) as applied; "
        f"applied {1 + len(layout.AGAIN)} migration(s)"
    )
    assert ledger(project_root) == ALL
    assert listed(run_cli) == {kept}


def test_a_part_dropped_with_the_ledger_is_made_again(
    run_cli: CliRunner, project_root: Path
) -> None:
    # 0011's triggers show it ran; its table, dropped since, is made again.
    kept = remembered(run_cli)
    drop(project_root, "DROP TABLE anchors")
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["tables"]["repaired"] == "made 1 missing table(s), index(es) and trigger(s) again"
    assert ledger(project_root) == ALL
    with closing(raw(project_root)) as conn:
        assert conn.execute("SELECT count(*) FROM anchors").fetchone()[0] == 0
    assert listed(run_cli) == {kept}


def test_an_emptied_ledger_is_named_and_rebuilt(run_cli: CliRunner, project_root: Path) -> None:
    """Its rows deleted, the table left: every command refused as for a dropped
    ledger, and doctor names it and `--repair` rebuilds it the same way."""
    kept = remembered(run_cli)
    with closing(raw(project_root)) as conn:
        conn.execute("DELETE FROM schema_migrations")
        conn.commit()
    refused = run_cli("list")
    assert refused.code != 0 and "run `tree-ring doctor`" in refused.err
    code, found = checks(run_cli)
    assert code == 1
    assert found["schema"]["detail"] == (
        "schema_migrations is empty (the record of the migrations applied); "
        "`doctor --repair` records those whose tables are there and applies the rest"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["schema"]["repaired"] == (
        f"recorded {len(ALL) - len(layout.AGAIN)} migration(s) as applied; "
        f"applied {len(layout.AGAIN)} migration(s)"
    )
    assert ledger(project_root) == ALL
    assert listed(run_cli) == {kept}


@pytest.mark.parametrize(
    "gone",
    [[name] for name in ALL if name not in layout.AGAIN]
    + [[[n for n in ALL if n not in layout.AGAIN][-2], ALL[-1]], ALL[:3]],
    ids=lambda names: "+".join(name[:4] for name in names),
)
def test_rows_deleted_from_the_ledger_are_named_and_recorded_again(
    run_cli: CliRunner, project_root: Path, gone: list[str]
) -> None:
    """Some of its rows deleted, the table left: migrating would run those
    migrations again over the objects they made, and every command is
    refused; doctor names them, and `--repair` records them as applied."""
    kept = remembered(run_cli)
    with closing(raw(project_root)) as conn:
        conn.executemany("DELETE FROM schema_migrations WHERE name = ?", [(n,) for n in gone])
        conn.commit()
    code, found = checks(run_cli)
    assert code == 1
    named = sorted(n for n in gone if n not in layout.AGAIN)
    assert found["schema"]["detail"] == (
        f"schema_migrations lacks {len(named)} migration(s) whose tables are there "
        f"({', '.join(named)}); `doctor --repair` records them and applies the rest"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    again = len([n for n in gone if n in layout.AGAIN])
    assert found["schema"]["repaired"] == (
        f"recorded {len(named)} migration(s) as applied; applied {again} migration(s)"
    )
    assert ledger(project_root) == ALL
    assert listed(run_cli) == {kept}
    code, _ = checks(run_cli)
    assert code == 0
