"""The store: layout, project identity, migrations, WAL, and FTS kept with rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import PERSON, CliRunner, make_memory

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.errors import NoStore, SchemaTooNew
from tree_ring.store import schema
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def test_init_creates_layout_and_reports_it(tmp_path: Path, run_cli: CliRunner) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    first = run_cli("--json", "init", "--root", str(root), root=False)
    assert first.code == 0, first.err
    report = first.json()
    folder = root / ".tree-ring"
    expected = {
        ".tree-ring/",
        ".tree-ring/project.json",
        ".tree-ring/.gitignore",
        ".tree-ring/AGENTS.md",
        ".tree-ring/SKILL.md",
        ".tree-ring/CLI.md",
        ".tree-ring/memory.sqlite",
    }
    assert set(report["written"]) == expected
    assert report["kept"] == []
    for name in ("project.json", ".gitignore", "AGENTS.md", "SKILL.md", "CLI.md", "memory.sqlite"):
        assert (folder / name).is_file()
    ignored = (folder / ".gitignore").read_text()
    assert "memory.sqlite" in ignored.splitlines() and "receipts" in ignored.splitlines()
    assert "project.json" not in ignored.splitlines()


def test_init_never_overwrites(tmp_path: Path, run_cli: CliRunner) -> None:
    root = tmp_path / "app"
    (root / ".tree-ring").mkdir(parents=True)
    (root / ".tree-ring" / "AGENTS.md").write_text("my own notes\n")
    first = run_cli("--json", "init", "--root", str(root), root=False).json()
    assert ".tree-ring/AGENTS.md" in first["kept"]
    assert (root / ".tree-ring" / "AGENTS.md").read_text() == "my own notes\n"
    project_id = first["project"]
    second = run_cli("--json", "init", "--root", str(root), root=False).json()
    assert second["written"] == []
    assert second["project"] == project_id


def test_same_directory_name_gets_different_ids(tmp_path: Path) -> None:
    a = tmp_path / "one" / "app"
    b = tmp_path / "two" / "app"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    id_a = guidance.init_project(a).project_id
    id_b = guidance.init_project(b).project_id
    assert id_a != id_b
    assert id_a.startswith("app-") and id_b.startswith("app-")


def test_clone_shares_committed_project_id(tmp_path: Path) -> None:
    original = tmp_path / "orig" / "svc"
    original.mkdir(parents=True)
    project_id = guidance.init_project(original).project_id
    clone = tmp_path / "clone" / "svc"
    (clone / ".tree-ring").mkdir(parents=True)
    (clone / ".tree-ring" / "project.json").write_bytes(
        (original / ".tree-ring" / "project.json").read_bytes()
    )
    assert guidance.init_project(clone).project_id == project_id


def test_root_is_found_by_walking_up(project_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = project_root / "src" / "pkg"
    deep.mkdir(parents=True)
    assert project.locate(None, {}, deep) == project_root
    assert project.locate(str(project_root / ".tree-ring"), {}) == project_root
    assert project.locate(None, {"TREE_RING_ROOT": str(project_root)}, Path("/")) == project_root
    # The environment the caller passes is the one that counts, not the process's.
    monkeypatch.setenv("TREE_RING_ROOT", str(project_root))
    with pytest.raises(NoStore):
        project.locate(None, {}, Path("/"))


def test_missing_store_is_a_one_line_error(tmp_path: Path, run_cli: CliRunner) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    with pytest.raises(NoStore):
        project.locate(None, {}, empty)
    result = run_cli("recall", "anything", "--root", str(empty), root=False)
    assert result.code != 0
    assert result.err.startswith("error: ") and result.err.count("\n") == 1
    assert "init" in result.err


def test_wal_and_busy_timeout(store: Store) -> None:
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
    assert store.conn.execute("PRAGMA secure_delete").fetchone()[0] == 1


def test_migrations_are_recorded_in_a_ledger(store: Store) -> None:
    names = [r[0] for r in store.conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [name for name, _ in schema.MIGRATIONS]
    version = store.conn.execute("PRAGMA user_version").fetchone()[0]
    assert version == len(schema.MIGRATIONS)


def test_older_store_is_migrated_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "old"
    root.mkdir()
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
    guidance.init_project(root)
    monkeypatch.undo()
    with Store.open(root) as store:
        names = {r[0] for r in store.conn.execute("SELECT name FROM schema_migrations")}
    assert names == {name for name, _ in schema.MIGRATIONS}


def test_newer_store_is_refused(project_root: Path, run_cli: CliRunner) -> None:
    conn = sqlite3.connect(project.store_path(project_root))
    conn.execute(
        "INSERT INTO schema_migrations(name, applied_at) VALUES ('9999_from_the_future', 'x')"
    )
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNew, match="newer Tree Ring"):
        Store.open(project_root)
    result = run_cli("list")
    assert result.code != 0 and "newer Tree Ring" in result.err


def _fts_count(store: Store) -> int:
    return store.conn.execute("SELECT count(*) FROM memory_fts").fetchone()[0]


def test_fts_row_is_written_with_the_memory(store: Store, project_id: str) -> None:
    memory = make_memory(project_id, "Porter stemming finds deployed builds")
    pipeline.store_memory(store, memory, PERSON)
    hits = store.conn.execute(
        "SELECT m.id FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid "
        "WHERE memory_fts MATCH 'deploy'"
    ).fetchall()
    assert [h[0] for h in hits] == [memory.id]
    assert _fts_count(store) == 1


def test_failed_write_leaves_neither_row_nor_index(store: Store, project_id: str) -> None:
    memory = make_memory(project_id, "A memory written once")
    pipeline.store_memory(store, memory, PERSON)
    duplicate = make_memory(project_id, "Another text under the same id", id=memory.id)
    with pytest.raises(Exception, match="already exists"):
        pipeline.store_memory(store, duplicate, PERSON)
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 1
    assert _fts_count(store) == 1
    store.conn.execute("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')")


def test_project_json_is_valid_and_stable(project_root: Path) -> None:
    data = json.loads((project_root / ".tree-ring" / "project.json").read_text())
    assert data["project_id"] == project.load_project_id(project_root)
    assert data["name"] == "proj"


def test_a_second_open_never_reads_the_file_a_connection_holds(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing any descriptor of the database file drops every POSIX lock this
    process holds on it, SQLite's too: while a store is open, opening it again
    (a web request, the TUI) must not read the header through a descriptor of
    its own. Once every connection is closed, the header is read again."""
    import builtins

    from tree_ring.store import db as db_module

    path = Path(store.db.path)
    opened: list[str] = []
    real_open = builtins.open

    def watching(file: object, *args: object, **kwargs: object) -> object:
        if isinstance(file, (str, Path)) and Path(file) == path:
            opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]  # any open()

    monkeypatch.setattr(builtins, "open", watching)
    with Store.open(store.root) as second:
        assert second.db.scalar("SELECT count(*) FROM memories") == 0
    assert opened == []
    store.close()
    assert db_module.file_damage(path) is None
    assert opened == [str(path)]


def test_a_side_file_deleted_mid_check_is_no_damage(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last connection to close, in any process, deletes the -wal. A check
    that saw the file a moment ago and then finds it gone must answer, not
    raise: the store is whole either way."""
    import os

    from tree_ring.store import db as db_module

    path = Path(store.db.path)
    store.close()
    wal = f"{path}-wal"
    assert not os.path.exists(wal)
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda p: p == wal or real_exists(p))
    assert db_module.file_damage(path) is None
    assert db_module.access(path, read_only=True) == (True, False)


def test_store_bytes_counts_the_files_there_and_follows_no_link(tmp_path: Path) -> None:
    database = tmp_path / project.STORE
    database.write_bytes(b"x" * 300)
    assert project.store_bytes(database) == 300
    (tmp_path / f"{project.STORE}-wal").write_bytes(b"w" * 20)
    assert project.store_bytes(database) == 320
    elsewhere = tmp_path / "big"
    elsewhere.write_bytes(b"b" * 5000)
    (tmp_path / f"{project.STORE}-shm").symlink_to(elsewhere)
    assert project.store_bytes(database) == 320
    assert project.store_bytes(tmp_path / "absent.sqlite") == 0


def test_a_new_store_appears_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built beside its path and linked into place: while its tables are made,
    nothing is at the store's path that another process could open as a
    store cut short, and nothing is left beside it afterwards."""
    from tree_ring.harness import guidance
    from tree_ring.model import project

    root = tmp_path / "fresh"
    root.mkdir()
    guidance.init_project(root)
    path = project.store_path(root)
    path.unlink()  # as a fresh clone has it: the folder, no store
    seen: list[bool] = []
    real = Store._migrate

    def watching(self: Store) -> None:
        seen.append(path.exists())
        real(self)

    monkeypatch.setattr(Store, "_migrate", watching)
    with Store.open(root, create=True) as store:
        assert store.db.scalar("SELECT count(*) FROM memories") == 0
    assert seen[0] is False
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith("memory")) == [
        "memory.sqlite"
    ]
