"""`doctor` on damage the rows cannot explain: a broken index, a truncated or
empty file, a migration that cannot run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, CliRunner, make_memory
from reliability_support import raw

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.upkeep import doctor
from tree_ring.write import pipeline


def report(run_cli: CliRunner, *flags: str) -> tuple[int, dict[str, dict[str, Any]]]:
    result = run_cli("--json", "doctor", *flags)
    data = json.loads(result.out)
    return result.code, {check["name"]: check for check in data["items"]}


@pytest.fixture
def filled(store: Store, project_id: str) -> Store:
    for n in range(5):
        memory = make_memory(project_id, f"Doctor fact {n} about shard{n}")
        pipeline.store_memory(store, memory, PERSON)
    return store


def break_an_index(root: Path) -> None:
    """Make an index disagree with its rows, as a bad write to its pages would."""
    with closing(sqlite3.connect(project.store_path(root))) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET sql = 'CREATE INDEX memories_hash ON memories(project, id)'"
            " WHERE name = 'memories_hash'"
        )
        conn.commit()


def test_a_broken_index_is_found_and_rebuilt(run_cli: CliRunner, filled: Store) -> None:
    break_an_index(filled.root)
    code, checks = report(run_cli)
    assert code == 1
    integrity = checks["integrity"]
    assert (integrity["ok"], integrity["repairable"]) == (False, True)
    assert integrity["detail"].startswith("5 problem(s), first: ")
    assert "memories_hash" in integrity["detail"]
    # The definition edited in place is not the schema's either.
    assert {name for name, check in checks.items() if not check["ok"]} == {
        "integrity",
        "definitions",
    }
    assert "index memories_hash" in checks["definitions"]["detail"]

    code, checks = report(run_cli, "--repair")
    assert code == 0
    assert checks["integrity"]["ok"] is True
    assert checks["integrity"]["detail"] == "PRAGMA integrity_check: ok"
    # The index is made again as the schema defines it, not as the edit left it.
    with closing(sqlite3.connect(project.store_path(filled.root))) as conn:
        [(sql,)] = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories_hash'")
    assert sql == "CREATE INDEX memories_hash ON memories(project, content_hash)"


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_file_is_reported_and_nothing_else_is_tried(
    run_cli: CliRunner, filled: Store, damage: str
) -> None:
    path = project.store_path(filled.root)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    filled.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"")
    result = doctor.diagnose(filled.root)
    assert result.ok is False
    assert [check.name for check in result.checks] == ["integrity"]
    detail = result.checks[0].detail
    assert detail.startswith("the file is damaged (") and detail.endswith("); restore a backup")
    assert ("truncated: " in detail) == (damage == "truncated")
    assert ("empty file" in detail) == (damage == "empty")


def damage_a_table_page(root: Path) -> None:
    """Overwrite the header of the memories table's root page, as a bad disk would."""
    path = project.store_path(root)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'memories'").fetchone()
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    with path.open("r+b") as file:
        file.seek(size * (page[0] - 1) + 8)
        file.write(b"\xff" * 40)


def test_damaged_pages_say_what_rebuilds_the_store_and_it_does(
    run_cli: CliRunner, project_root: Path
) -> None:
    for n in range(5):
        assert run_cli("remember", f"Shared fact {n} about the release train").code == 0
    assert run_cli("sync").code == 0  # the project's first ledger
    damage_a_table_page(project_root)
    result = run_cli("doctor", "--repair")
    assert result.code == 1
    assert "run `tree-ring doctor`" not in result.out
    last = result.out.splitlines()[-1]
    assert last == (
        "problems remain; `doctor --repair` cannot rebuild damaged pages and `tree-ring export` "
        "cannot read them: move .tree-ring/memory.sqlite and any memory.sqlite-* file beside "
        "it aside (keep them), then restore a backup in its place, or run `tree-ring sync`, "
        "which rebuilds the store from .tree-ring/ledger.jsonl (the shared memories; lines the "
        "upstream does not hold come back for review: `tree-ring review list`, and their "
        "forgets of memories it does not hold bind agents only; the ledger it writes leaves "
        "out what waits, so approve it before you commit the ledger)"
    )
    assert run_cli("export").code != 0
    data = json.loads(run_cli("--json", "doctor").out)
    assert data["remedy"] == last.removeprefix("problems remain; ")
    # Doing what it says brings the shared memories back.
    path = project.store_path(project_root)
    path.rename(path.with_name("memory.sqlite.damaged"))
    for extra in path.parent.glob("memory.sqlite-*"):
        extra.unlink()
    assert run_cli("sync").code == 0
    assert run_cli("doctor").code == 0
    # This project has no upstream, so its ledger's lines are claims until a
    # person who has read them approves them, as the remedy says.
    waiting = run_cli("--json", "review", "list").json()
    assert len(waiting["items"]) == 5
    assert run_cli("review", "approve", "--all").code == 0
    listed = run_cli("--json", "list").json()["items"]
    assert {m["summary"] for m in listed} == {
        f"Shared fact {n} about the release train" for n in range(5)
    }


def truncate(root: Path) -> None:
    path = project.store_path(root)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("damage", [truncate, damage_a_table_page])
def test_without_a_ledger_the_remedy_is_a_backup_or_an_earlier_export_and_it_works(
    run_cli: CliRunner, filled: Store, tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    before = tmp_path / "before.jsonl"
    assert run_cli("export", "--output", str(before)).code == 0
    kept = {m["id"] for m in run_cli("--json", "list").json()["items"]}
    filled.close()
    damage(filled.root)
    assert json.loads(run_cli("--json", "doctor").out)["remedy"] == (
        "`doctor --repair` cannot rebuild damaged pages and `tree-ring export` cannot read "
        "them: move .tree-ring/memory.sqlite and any memory.sqlite-* file beside it aside "
        "(keep them), then restore a backup in its place, or run `tree-ring init` for an "
        "empty store and `tree-ring import FILE --restore` from an export made before the damage"
    )
    # What it says cannot be done, cannot; what it says to do, works.
    assert run_cli("export").code != 0
    path = project.store_path(filled.root)
    for old in [path, *path.parent.glob("memory.sqlite-*")]:
        old.rename(tmp_path / old.name)
    assert run_cli("init").code == 0
    assert run_cli("import", str(before), "--restore").code == 0
    assert run_cli("doctor").code == 0
    assert {m["id"] for m in run_cli("--json", "list").json()["items"]} == kept


@pytest.mark.parametrize("column", ["summary", "event_type", "salience", "trust", "created_at"])
def test_a_column_a_damaged_page_reads_as_null_is_named(
    run_cli: CliRunner, filled: Store, column: str
) -> None:
    """A NULL where the schema holds a value (a damaged page can read so;
    made here by dropping the column's NOT NULL through the schema's text):
    `doctor` names the row and the column, and runs every check."""
    filled.close()
    with closing(raw(filled.root)) as conn:
        [(sql,)] = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories'")
        lines = [line for line in sql.splitlines() if line.strip().startswith(column + " ")]
        assert len(lines) == 1 and "NOT NULL" in lines[0]
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'memories'",
            (lines[0], lines[0].replace("NOT NULL", "")),
        )
        conn.execute("PRAGMA writable_schema = RESET")
    with closing(raw(filled.root)) as conn:
        [(row_id,)] = conn.execute("SELECT id FROM memories WHERE rowid = 2")
        conn.execute(f"UPDATE memories SET {column} = NULL WHERE rowid = 2")
    code, checks = report(run_cli)
    assert code == 1
    assert checks["fields"]["ok"] is False
    assert f"{row_id} ({column})" in checks["fields"]["detail"]
