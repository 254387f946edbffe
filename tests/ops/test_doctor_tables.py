"""`doctor` on a store missing a table, index or trigger the migrations made:
each named with what was lost, and `--repair` makes it again from the
schema, rebuilding what the memories hold of it."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from conftest import PERSON
from helpers import CliRunner
from reliability_support import checks, raw, recalled

from tree_ring.store import layout, settings
from tree_ring.store.db import Store
from tree_ring.write import correct

# What other checks own: the FTS indexes (`fts`), the meaning codes (`meaning`).
OWNED = {
    "memory_fts",
    "memory_text",
    "claim_fts",
    "memory_meaning",
    "meaning_source",
    "schema_migrations",
    "sqlite_sequence",
    *(f"memory_fts_{suffix}" for suffix in ("data", "idx", "docsize", "config")),
    *(f"claim_fts_{suffix}" for suffix in ("data", "idx", "config")),
    *(
        f"memories_{index}_{event}"
        for index in ("fts", "claim_fts", "meaning")
        for event in ("insert", "delete", "update")
    ),
}


def schema_rows(root: Path) -> set[tuple[str, str, str]]:
    with closing(raw(root)) as conn:
        found = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL")
        return {(r[0], r[1], r[2]) for r in found}


@pytest.fixture
def ids(run_cli: CliRunner) -> list[str]:
    return [
        run_cli("--json", "remember", f"Doctor fact {n} about shard{n}").json()["id"]
        for n in range(5)
    ]


def test_the_layout_names_every_object_of_a_new_store(project_root: Path) -> None:
    """A migration that makes a table must name it in store/layout.py, or the
    doctor would not see it go."""
    with Store.open(project_root):
        pass
    made = {name for _, name, _ in schema_rows(project_root)}
    assert made - OWNED == {part.name for part in layout.PARTS}


LOST_TABLES = sorted(layout.LOST)


@pytest.mark.parametrize("table", LOST_TABLES)
def test_a_dropped_table_is_named_and_made_again(
    run_cli: CliRunner, project_root: Path, ids: list[str], table: str
) -> None:
    before = schema_rows(project_root)
    with closing(raw(project_root)) as conn:
        conn.execute(f"DROP TABLE {table}")
    code, found = checks(run_cli)
    assert code == 1
    tables = found["tables"]
    assert (tables["ok"], tables["repairable"]) == (False, True)
    assert tables["detail"] == (
        f"missing table(s): {table} (lost with it: {layout.LOST[table]}); "
        "`doctor --repair` makes them again from the schema, empty; "
        "only a backup holds the lost rows"
    )

    code, found = checks(run_cli, "--repair")
    made = sum(1 for part in layout.PARTS if part.table == table)
    assert found["tables"]["repaired"].startswith(
        f"made {made} missing table(s), index(es) and trigger(s) again"
    )
    assert found["tables"]["ok"]
    # The audit log is evidence: the memories it no longer vouches for stay named.
    failing = {name for name, check in found.items() if not check["ok"]}
    assert failing == ({"audit"} if table == "audit_log" else set())
    assert code == (1 if table == "audit_log" else 0)
    assert schema_rows(project_root) == before
    assert recalled(run_cli, "shard2") == {ids[2]}
    assert recalled(run_cli, "doctor fact") == set(ids)
    # Writes go through again, and land where they did.
    new = run_cli("--json", "remember", "Doctor fact written after the repair").json()["id"]
    assert recalled(run_cli, "written after") == {new}
    code, found = checks(run_cli)
    assert {name for name, check in found.items() if not check["ok"]} == failing


def test_the_settings_table_comes_back_with_the_tree_defaults(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    with closing(raw(project_root)) as conn:
        conn.execute("DROP TABLE settings")
    assert checks(run_cli, "--repair")[0] == 0
    with closing(raw(project_root)) as conn:
        stored = {r[0]: r[1] for r in conn.execute("SELECT key, value FROM settings")}
    assert stored == {key: settings.encode(value) for key, value in settings.TREE.items()}


@pytest.mark.parametrize("table", layout.TREE)
def test_a_dropped_tree_table_is_rebuilt_from_the_memories(
    run_cli: CliRunner, project_root: Path, ids: list[str], table: str
) -> None:
    with closing(raw(project_root)) as conn:
        conn.execute(f"DROP TABLE {table}")
    code, found = checks(run_cli)
    assert code == 1
    assert found["tables"]["detail"] == (
        f"missing table(s): {table} (rebuilt from the memories); "
        "`doctor --repair` makes them again from the schema, empty"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0
    assert found["tables"]["repaired"].endswith("; rebuilt the summary tree of 1 project(s)")
    with closing(raw(project_root)) as conn:
        leaves = {r[0] for r in conn.execute("SELECT memory_id FROM tree_leaves")}
    assert leaves == set(ids)


def test_redaction_records_come_back_from_the_redacted_rows(
    run_cli: CliRunner, store: Store, ids: list[str]
) -> None:
    correct.forget(store, ids[0], mode="redact", reason="test", actor=PERSON)
    with closing(raw(store.root)) as conn:
        conn.execute("DROP TABLE redaction_tombstones")
    code, found = checks(run_cli, "--repair")
    assert code == 0
    assert found["tables"]["repaired"] == (
        "made 1 missing table(s), index(es) and trigger(s) again; "
        "restored 1 redaction record(s) from the redacted rows"
    )
    with closing(raw(store.root)) as conn:
        assert {r[0] for r in conn.execute("SELECT memory_id FROM redaction_tombstones")} == {
            ids[0]
        }


def test_a_dropped_index_and_trigger_are_named_and_made_again(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    before = schema_rows(project_root)
    with closing(raw(project_root)) as conn:
        conn.execute("DROP INDEX memories_brief")
        conn.execute("DROP TRIGGER memories_anchors_delete")
        conn.execute("DROP TABLE refutations")
    code, found = checks(run_cli)
    assert code == 1
    assert found["tables"]["detail"] == (
        f"missing table(s): refutations (lost with it: {layout.LOST['refutations']}); "
        "missing index(es) and trigger(s): memories_brief, memories_anchors_delete; "
        "`doctor --repair` makes them again from the schema, empty; "
        "only a backup holds the lost rows"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0
    assert found["tables"]["repaired"] == "made 3 missing table(s), index(es) and trigger(s) again"
    assert schema_rows(project_root) == before
    assert recalled(run_cli, "shard4") == {ids[4]}


def test_a_dropped_memories_table_is_named_and_never_made_again_empty(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    with closing(raw(project_root)) as conn:
        conn.execute("DROP TABLE memories")
    before = schema_rows(project_root)
    code, found = checks(run_cli, "--repair")
    assert code == 1
    tables = found["tables"]
    assert (tables["ok"], tables["repairable"], tables["repaired"]) == (False, False, "")
    assert tables["detail"].startswith(
        "the memories table is missing: every memory is gone and `doctor --repair` "
        "cannot make them again; "
    )
    assert schema_rows(project_root) == before


def test_a_repair_the_policy_denies_makes_nothing(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    token = run_cli("--json", "policy", "enable", "--coordinator", "lead").json()["capability"]
    with closing(raw(project_root)) as conn:
        conn.execute("DROP TABLE anchors")
    before = schema_rows(project_root)
    denied = run_cli("doctor", "--repair")
    assert denied.code != 0 and "denied" in denied.err and denied.err.count("\n") == 1
    assert schema_rows(project_root) == before
    allowed = run_cli("doctor", "--repair", environ={"TREE_RING_COORDINATOR_TOKEN": token})
    assert allowed.code == 0, allowed.out
    assert "anchors" in {name for _, name, _ in schema_rows(project_root)}


def test_the_ids_of_tombstones_come_back_from_the_content_tombstones(
    run_cli: CliRunner, store: Store, ids: list[str]
) -> None:
    correct.forget(store, ids[0], mode="delete", reason="test", actor=PERSON)
    listed = "SELECT project, memory_id, content_hash, kind, created_at FROM "
    with closing(raw(store.root)) as conn:
        held = set(conn.execute(listed + "content_tombstones"))
        assert held and set(conn.execute(listed + "tombstone_ids")) == held
        conn.execute("DROP TABLE tombstone_ids")
    assert checks(run_cli, "--repair")[0] == 0
    with closing(raw(store.root)) as conn:
        assert set(conn.execute(listed + "tombstone_ids")) == held
