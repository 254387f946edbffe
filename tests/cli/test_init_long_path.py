"""A project path too long for SQLite: `init` refuses it before writing
anything, a store moved under one says so in one line, and an init whose
store cannot be made leaves nothing half-written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers import cli_runner

from tree_ring.harness import guidance
from tree_ring.store import sql
from tree_ring.store.db import Store, longest_root

TOO_LONG = "the project path is too long for SQLite"


def folder_of(base: Path, length: int) -> Path:
    """A new folder under `base` whose resolved path is `length` bytes long."""
    real = os.path.realpath(base)
    left = length - len(real.encode()) - 1
    parts: list[str] = []
    while left > 100:
        parts.append("d" * 99)
        left -= 100
    folder = Path(real, *parts, "e" * left)
    folder.mkdir(parents=True)
    assert len(str(folder).encode()) == length
    return folder


def entries(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def test_sqlite_opens_paths_of_at_most_504_bytes(tmp_path: Path) -> None:
    # Measured, not assumed: the unix VFS's 512 less room for "-journal".
    assert sql.MAX_PATH_BYTES == 504
    assert longest_root() == 504 - len("/.tree-ring/memory.sqlite.new-") - 16 == 458
    fits = folder_of(tmp_path / "a", 504 - len("/s.db"))
    sqlite3.connect(fits / "s.db").execute("CREATE TABLE t (x)").connection.close()
    over = folder_of(tmp_path / "b", 505 - len("/s.db"))
    with pytest.raises(sqlite3.OperationalError, match="unable to open"):
        sqlite3.connect(over / "s.db").execute("CREATE TABLE t (x)")


def test_init_refuses_a_path_too_long_and_writes_nothing(tmp_path: Path) -> None:
    root = folder_of(tmp_path, longest_root() + 1)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=30)
    result = cli_runner(root)("init")
    assert result.code == 2 and result.out == ""
    assert result.err == (
        f"error: {TOO_LONG} ({longest_root() + 1} bytes, limit {longest_root()}); "
        "move the project to a shorter path and run `tree-ring init` there\n"
    )
    assert {name for name in entries(root) if not name.startswith(".git")} == set()
    # At the limit, the store is made.
    fits = folder_of(tmp_path / "fits", longest_root())
    assert cli_runner(fits)("init").code == 0
    assert (fits / ".tree-ring" / "memory.sqlite").is_file()


def test_a_store_moved_under_a_long_path_says_so_in_one_line(tmp_path: Path) -> None:
    short = tmp_path / "p"
    short.mkdir()
    guidance.init_project(short)
    moved = folder_of(tmp_path / "deep", 490)
    moved.rmdir()
    short.rename(moved)
    result = cli_runner(moved)("status")
    assert result.code != 0
    store = len(str(moved / ".tree-ring" / "memory.sqlite").encode())
    assert result.err == (
        f"error: {TOO_LONG}: its store's path is {store} bytes, the limit 504; "
        "move the project to a shorter path\n"
    )


def test_an_init_whose_store_cannot_be_made_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(self: Store) -> None:
        raise sql.translate(sqlite3.OperationalError("database or disk is full"), "memory.sqlite")

    monkeypatch.setattr(Store, "_migrate", fail)
    root = tmp_path / "proj"
    root.mkdir()
    result = cli_runner(root)("init")
    assert result.code != 0 and "no space left for the store" in result.err
    assert entries(root) == set()  # no guidance, no half-built store beside it
    # A folder that was there keeps what it held; only this init's files go.
    (root / ".tree-ring").mkdir()
    (root / ".tree-ring" / "AGENTS.md").write_text("our own guidance\n")
    assert cli_runner(root)("init").code != 0
    assert entries(root) == {".tree-ring", ".tree-ring/AGENTS.md"}
    assert (root / ".tree-ring" / "AGENTS.md").read_text() == "our own guidance\n"
