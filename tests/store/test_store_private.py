"""A store is private to its user whatever the umask, as the files beside it
are: it holds sensitive rows, agents' partitions and forget reasons that no
ledger carries. One an earlier version left readable by others is made
private when it is next opened to write."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.store.db import Options, Store


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_project_store_and_its_wal_are_private(tmp_path: Path, loose_umask: None) -> None:
    guidance.init_project(tmp_path)
    with Store.open(tmp_path) as store:
        with store.write() as db:
            db.execute("CREATE TABLE scratch (x)")  # a write, so the WAL holds frames
        path = Path(project.store_path_str(str(tmp_path)))
        assert _mode(path) == 0o600
        sides = [Path(f"{path}{side}") for side in ("-wal", "-shm")]
        assert [p for p in sides if p.exists()]
        assert {_mode(p) for p in sides if p.exists()} == {0o600}


def test_a_new_user_store_is_private(tmp_path: Path, loose_umask: None) -> None:
    path = tmp_path / "user" / "user.sqlite"
    Store.open_file(str(path), create=True).close()
    assert _mode(path) == 0o600


def test_a_store_others_could_read_is_made_private_when_opened_to_write(
    tmp_path: Path, loose_umask: None
) -> None:
    guidance.init_project(tmp_path)
    path = Path(project.store_path_str(str(tmp_path)))
    path.chmod(0o644)
    Store.open(tmp_path, options=Options(read_only=True)).close()
    assert _mode(path) == 0o644  # a read-only open changes nothing
    Store.open(tmp_path).close()
    assert _mode(path) == 0o600
