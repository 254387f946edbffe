"""`doctor` on damage the rows cannot explain: a broken index, a truncated or
empty file, a migration that cannot run."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, CliRunner, make_memory

from tree_ring.model import project
from tree_ring.ops import doctor
from tree_ring.store.db import Store
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
    assert all(check["ok"] for name, check in checks.items() if name != "integrity")

    code, checks = report(run_cli, "--repair")
    assert code == 0
    assert checks["integrity"]["ok"] is True
    assert checks["integrity"]["detail"] == "PRAGMA integrity_check: ok"


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
