"""`import --global-to user`: the original's `global` rows go to the person's user store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE

from tree_ring.store import audit, user
from tree_ring.store.db import Store


def _row(summary: str, scope: str) -> str:
    memory = {
        "id": f"mem_20260901_100000_{abs(hash(summary)) % 10**12:012d}",
        "created_at": "2026-09-01T10:00:00.000000Z",
        "updated_at": "2026-09-01T10:00:00.000000Z",
        "project": "old-project",
        "scope": scope,
        "ring": "outer",
        "event_type": "preference",
        "summary": summary,
    }
    return json.dumps({"type": "memory_event", "memory": memory})


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


@pytest.fixture
def export(tmp_path: Path) -> Path:
    path = tmp_path / "original.jsonl"
    lines = [
        _row("I prefer pytest -q", "global"),
        _row("Release builds use the locked toolchain", "project"),
        _row("I like short commit subjects", "global"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _summaries(store: Store) -> set[str]:
    return {row[0] for row in store.db.query("SELECT summary FROM memories")}


def test_global_rows_stay_in_the_project_by_default(
    run_cli: CliRunner, project_root: Path, export: Path, home: dict[str, str], tmp_path: Path
) -> None:
    done = run_cli("--json", "import", str(export), environ=home)
    assert done.code == 0, done.err
    assert "user" not in done.json()
    with Store.open(project_root) as store:
        assert len(_summaries(store)) == 3
    assert not (tmp_path / "me" / "user.sqlite").exists()


def test_global_to_user_puts_them_in_the_user_store_governed_and_audited(
    run_cli: CliRunner, project_root: Path, export: Path, home: dict[str, str], tmp_path: Path
) -> None:
    done = run_cli("--json", "import", str(export), "--global-to", "user", environ=home)
    assert done.code == 0, done.err
    data = done.json()
    assert data["imported"] == 1 and data["user"]["imported"] == 2
    with Store.open(project_root) as store:
        assert _summaries(store) == {"Release builds use the locked toolchain"}
    with Store.open_file(str(tmp_path / "me" / "user.sqlite")) as mine:
        assert _summaries(mine) == {"I prefer pytest -q", "I like short commit subjects"}
        projects = {row[0] for row in mine.db.query("SELECT project FROM memories")}
        assert projects == {user.USER_PROJECT}
        assert audit.verify(mine.db).ok
        actions = {row[0] for row in mine.db.query("SELECT action FROM audit_log")}
        assert "import" in actions
        trusts = {row[0] for row in mine.db.query("SELECT trust FROM memories")}
        assert trusts == {"pending"} and data["user"]["pending"] == 2  # an import waits


def test_the_user_stores_tombstones_refuse_a_forgotten_global_row_and_nothing_is_written(
    run_cli: CliRunner, project_root: Path, export: Path, home: dict[str, str], tmp_path: Path
) -> None:
    noted = run_cli(
        "--json",
        "remember",
        "I like short commit subjects",
        "--scope",
        "global",
        "--event-type",
        "preference",
        environ=home,
    )
    assert noted.code == 0, noted.err
    forgot = run_cli(
        "forget",
        noted.json()["id"],
        "--user",
        "--mode",
        "delete",
        "--reason",
        "not true",
        environ=home,
    )
    assert forgot.code == 0, forgot.err
    refused = run_cli("import", str(export), "--global-to", "user", environ=home)
    assert refused.code != 0
    assert len(refused.err.strip().splitlines()) == 1 and "forgotten" in refused.err
    with Store.open(project_root) as store:
        assert _summaries(store) == set()


def test_an_agent_cannot_import_into_the_persons_store(
    run_cli: CliRunner, project_root: Path, export: Path, home: dict[str, str], tmp_path: Path
) -> None:
    refused = run_cli("import", str(export), "--global-to", "user", environ={**home, **CLAUDE})
    assert refused.code != 0 and "agent" in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    assert not (tmp_path / "me" / "user.sqlite").exists()
    with Store.open(project_root) as store:
        assert _summaries(store) == set()


def test_a_bad_value_is_one_line(
    run_cli: CliRunner, project_root: Path, export: Path, home: dict[str, str], tmp_path: Path
) -> None:
    refused = run_cli("import", str(export), "--global-to", "home", environ=home)
    assert refused.code == 2
    assert refused.err.strip().splitlines() == [
        "error: --global-to takes user or project, not 'home'"
    ]
    with Store.open(project_root) as store:
        assert _summaries(store) == set()


def test_export_user_writes_the_user_store_as_a_project_export(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    assert run_cli("remember", "I prefer pytest -q", "--scope", "global", environ=home).code == 0
    assert run_cli("remember", "Deploys go through staging", environ=home).code == 0
    mine = run_cli("export", "--user", environ=home)
    assert mine.code == 0, mine.err
    rows = [json.loads(line) for line in mine.out.splitlines()]
    assert {row["summary"] for row in rows} == {"I prefer pytest -q"}
    assert {row["project"] for row in rows} == {user.USER_PROJECT}
    ours = [json.loads(line) for line in run_cli("export", environ=home).out.splitlines()]
    assert {row["summary"] for row in ours} == {"Deploys go through staging"}
    assert set(rows[0]) == set(ours[0])  # the same format


def test_a_dry_run_to_the_user_store_creates_nothing(
    run_cli: CliRunner, project_root: Path, export: Path, home: dict[str, str], tmp_path: Path
) -> None:
    done = run_cli(
        "--json", "import", str(export), "--global-to", "user", "--dry-run", environ=home
    )
    assert done.code == 0, done.err
    data = done.json()
    assert data["imported"] == 1 and data["user"]["imported"] == 2
    assert not (tmp_path / "me").exists()
    with Store.open(project_root) as store:
        assert _summaries(store) == set()
