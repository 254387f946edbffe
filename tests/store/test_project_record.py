"""The store's record of its project (store/settings.py, PROJECT), and how a store
made before it adopts one (migration 0020_project_owner)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import PERSON, REPO, make_memory, recorded_project

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.errors import ProjectMismatch
from tree_ring.store import schema, settings, user
from tree_ring.store.db import Options, Store
from tree_ring.write import pipeline

FIXTURE = REPO / "fixtures" / "stores" / "schema-0001.sqlite"
FIXTURE_PROJECT = "fixture-app-3f9c2a"
MIGRATION = "0020_project_owner"


def write_project_file(root: Path, project_id: str) -> None:
    folder = root / project.DIR
    folder.mkdir(parents=True, exist_ok=True)
    (folder / project.PROJECT_FILE).write_text(json.dumps({"project_id": project_id}))


def before_the_record(root: Path) -> None:
    """The store as the release before the record left it: that migration
    undone (those after it need no record to undo)."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        conn.execute("DELETE FROM settings WHERE key = 'project'")
        conn.execute("DELETE FROM schema_migrations WHERE name = ?", (MIGRATION,))
        conn.execute(f"PRAGMA user_version = {len(schema.MIGRATIONS) - 1}")
        conn.commit()
    finally:
        conn.close()


def test_a_first_schema_store_adopts_its_rows_project_over_an_edited_file(
    tmp_path: Path,
) -> None:
    """project.json was changed before the upgrade: the rows say whose store it is."""
    root = tmp_path / "old"
    write_project_file(root, "p-0000aaaa")
    shutil.copyfile(FIXTURE, project.store_path(root))
    with pytest.raises(ProjectMismatch) as caught:
        Store.open(root)
    assert str(caught.value) == project.mismatch("p-0000aaaa", FIXTURE_PROJECT)
    assert recorded_project(root) == FIXTURE_PROJECT
    write_project_file(root, FIXTURE_PROJECT)
    with Store.open(root) as store:
        assert settings.recorded_project(store.db) == FIXTURE_PROJECT


def test_the_project_most_rows_hold_is_adopted_never_the_user_stores(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    guidance.init_project(root)
    real = project.load_project_id(root)
    with Store.open(root) as store:
        for n in range(2):
            pipeline.store_memory(store, make_memory(real, f"Deploys freeze on day {n}"), PERSON)
        pipeline.store_memory(store, make_memory("other-1", "Releases are tagged"), PERSON)
        for n in range(4):
            memory = make_memory(user.USER_PROJECT, f"I prefer short names {n}")
            pipeline.store_memory(store, memory, PERSON)
    before_the_record(root)
    write_project_file(root, "p-0000aaaa")
    with pytest.raises(ProjectMismatch, match=f"belongs to project {real};"):
        Store.open(root)
    assert recorded_project(root) == real


def test_a_store_with_no_rows_adopts_project_json_at_its_next_open(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    guidance.init_project(root)
    real = project.load_project_id(root)
    before_the_record(root)
    # A reader that cannot write reads as it stands, checking nothing.
    with Store.open(root, options=Options(read_only=True)):
        pass
    assert recorded_project(root) is None
    with Store.open(root):
        pass
    assert recorded_project(root) == real
    write_project_file(root, "p-0000aaaa")
    with pytest.raises(ProjectMismatch):
        Store.open(root)


def test_a_store_made_without_project_json_records_it_at_the_first_open_with_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    (root / project.DIR).mkdir(parents=True)
    Store.open(root, create=True).close()
    assert recorded_project(root) is None
    write_project_file(root, "app-1a2b3c4d")
    Store.open(root).close()
    assert recorded_project(root) == "app-1a2b3c4d"


def test_the_user_store_records_no_project(tmp_path: Path) -> None:
    environ = {"TREE_RING_USER_HOME": str(tmp_path / "home")}
    opened = user.open_user(environ, create=True)
    assert opened is not None
    with opened as store:
        memory = make_memory(user.USER_PROJECT, "I prefer short names")
        pipeline.store_memory(store, memory, PERSON)
        assert settings.recorded_project(store.db) is None
