"""A store is this clone's own: one git tracks came with a checkout (a branch
or a fork that added it with `git add -f`) and is refused, in one line, by
every command and, failing open, by the hooks; and the walk that finds a
project stops at its repository's root, and never takes a `.tree-ring/`
another user owns above the working folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import run_process
from reliability_support import run_hook

from tree_ring.model import gitdir, project
from tree_ring.model.errors import UnsafePath
from tree_ring.store.db import Store


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@x", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    assert run_process("--root", str(root), "init").returncode == 0
    written = run_process("--root", str(root), "remember", "A note of the store's author")
    assert written.returncode == 0, written.stderr
    return root


def _start(root: Path) -> dict[str, object]:
    return {"hook_event_name": "SessionStart", "cwd": str(root), "session_id": "s1"}


def test_an_ignored_store_is_opened(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    assert gitdir.tracked([str(project.store_path(repo))]) is None
    with Store.open(repo) as store:
        assert store.db.scalar("SELECT count(*) FROM memories") == 1
    hooked = run_hook(_start(repo))
    assert hooked.returncode == 0 and b"A note of the store's author" in hooked.stdout


def test_a_tracked_store_is_refused_by_every_command_and_the_hook(repo: Path) -> None:
    _git(repo, "add", "-f", ".tree-ring/memory.sqlite")
    _git(repo, "commit", "-qm", "the store, forced in")
    store = str(project.store_path(repo))
    assert gitdir.tracked([store]) == store
    with pytest.raises(UnsafePath, match="tracked by git"):
        Store.open(repo)
    for args in (("list",), ("recall", "note"), ("remember", "Another note")):
        run = run_process("--root", str(repo), *args)
        lines = run.stderr.decode().strip().splitlines()
        assert run.returncode != 0 and len(lines) == 1 and "tracked by git" in lines[0]
    hooked = run_hook(_start(repo))
    assert hooked.returncode == 0 and hooked.stdout.strip() in (b"", b"{}")
    assert b"tracked by git" in hooked.stderr
    # Untracked and moved aside, the project starts again from its ledger.
    _git(repo, "rm", "-q", "--cached", ".tree-ring/memory.sqlite")
    os.replace(project.store_path(repo), repo / "theirs.sqlite")
    assert run_process("--root", str(repo), "sync").returncode == 0
    assert run_process("--root", str(repo), "list").returncode == 0


def test_a_longer_path_ending_the_same_way_is_not_the_store(repo: Path) -> None:
    other = repo / "vendor" / ".tree-ring"
    other.mkdir(parents=True)
    (other / "memory.sqlite").write_bytes(b"not ours")
    _git(repo, "add", "-f", "vendor/.tree-ring/memory.sqlite")
    assert gitdir.tracked([str(project.store_path(repo))]) is None
    assert gitdir.tracked([str(other / "memory.sqlite")]) == str(other / "memory.sqlite")


def test_the_walk_stops_at_the_repository_root(repo: Path) -> None:
    inner = repo / "vendor" / "lib"
    (inner / "src").mkdir(parents=True)
    _git(inner, "init", "-q")
    assert project.find_root_str(inner / "src") is None
    assert project.find_root_str(repo / "vendor") == str(repo.resolve())
    hooked = run_hook(_start(inner / "src"))
    assert hooked.returncode == 0 and b"A note of the store's author" not in hooked.stdout


def test_another_users_store_above_the_working_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    assert run_process("--root", str(shared), "init").returncode == 0
    below = shared / "work" / "here"
    below.mkdir(parents=True)
    if os.getuid() == 0:
        os.chown(shared / ".tree-ring", 4243, 4243)
    else:
        monkeypatch.setattr(os, "getuid", lambda: os.stat(shared).st_uid + 1)
    with pytest.raises(UnsafePath, match="belongs to another user"):
        project.find_root_str(below)
    # At the working folder itself, it is the folder someone chose to work in.
    assert project.find_root_str(shared) == str(shared.resolve())


def test_a_tracked_write_ahead_log_is_refused(repo: Path) -> None:
    # SQLite would replay it over this clone's own store when opening it.
    wal = repo / ".tree-ring" / "memory.sqlite-wal"
    wal.write_bytes(b"frames of someone else's store")
    _git(repo, "add", "-f", ".tree-ring/memory.sqlite-wal")
    with pytest.raises(UnsafePath, match=r"memory\.sqlite-wal is tracked by git"):
        Store.open(repo)


@pytest.mark.parametrize(
    "setting",
    [("update-index", "--index-version", "4"), ("update-index", "--split-index")],
    ids=["version 4", "split"],
)
def test_an_index_this_reader_does_not_read_is_asked_of_git(
    repo: Path, setting: tuple[str, ...]
) -> None:
    (repo / "README").write_text("a file before the store\n")
    _git(repo, "add", "README")
    _git(repo, *setting)
    assert gitdir.tracked([str(project.store_path(repo))]) is None
    with Store.open(repo):
        pass
    _git(repo, "add", "-f", ".tree-ring/memory.sqlite")
    _git(repo, *setting)
    with pytest.raises(UnsafePath, match="tracked by git"):
        Store.open(repo)


def test_an_index_git_cannot_read_for_us_is_no_reason_to_trust_the_store(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git(repo, "update-index", "--index-version", "4")
    monkeypatch.setenv("PATH", str(repo / "no-git-here"))
    with pytest.raises(UnsafePath, match="cannot tell whether git tracks"):
        Store.open(repo)


def test_the_ledger_copy_beside_the_store_is_refused_when_tracked(repo: Path) -> None:
    kept = repo / ".tree-ring" / "memory.sqlite-ledger"
    kept.write_bytes(b'{"record": "header"}\n')
    _git(repo, "add", "-f", ".tree-ring/memory.sqlite-ledger")
    with pytest.raises(UnsafePath, match=r"memory\.sqlite-ledger is tracked by git"):
        Store.open(repo)


def _nested_store(repo: Path, folder: str) -> Path:
    root = repo / folder
    root.mkdir(parents=True)
    assert run_process("--root", str(root), "init").returncode == 0
    assert run_process("--root", str(root), "remember", "A note of its author").returncode == 0
    return project.store_path(root)


@pytest.mark.parametrize("length", [24, 47, 303])
def test_a_tracked_store_is_found_whatever_its_paths_length(repo: Path, length: int) -> None:
    """An index entry's flags hold its path's length; one whose low byte reads
    as "/" (47, 303, ...) is still the store, not a longer path's tail."""
    tail = "/.tree-ring/memory.sqlite"
    wanted = length - len(tail)
    # Folders of at most 100 characters each, joined by "/", `wanted` in all.
    parts: list[str] = []
    while wanted > 0:
        part = min(100, wanted)
        if 0 < wanted - part < 2:  # leave room for a "/" and a character
            part -= 2
        parts.append("p" * part)
        wanted -= part + 1
    folder = "/".join(parts)
    store = _nested_store(repo, folder) if folder else project.store_path(repo)
    rel = os.path.relpath(store, repo)
    assert len(rel) == length or (not folder and len(rel) == 24)
    _git(repo, "add", "-f", rel)
    assert gitdir.tracked([str(store)]) == str(store)
    with pytest.raises(UnsafePath, match="tracked by git"):
        Store.open(store.parent.parent)


def test_a_path_that_ends_with_the_stores_name_is_not_the_store(repo: Path) -> None:
    """`xproj/.tree-ring/memory.sqlite` is another project's store, not the
    store of `proj`, though the one path ends with the other."""
    mine = _nested_store(repo, "proj")
    theirs = _nested_store(repo, "xproj")
    _git(repo, "add", "-f", os.path.relpath(theirs, repo))
    assert gitdir.tracked([str(mine)]) is None
    assert gitdir.tracked([str(theirs)]) == str(theirs)
    with Store.open(mine.parent.parent):
        pass


def test_an_entry_with_extended_flags_is_read(repo: Path) -> None:
    """Version 3 writes two more bytes of flags before a path marked intent
    to add (`git add -N`); git lists it, and so does this reader."""
    _git(repo, "add", "-N", "-f", ".tree-ring/memory.sqlite")
    index = (repo / ".git" / "index").read_bytes()
    assert index[4:8] == b"\0\0\0\3"
    store = str(project.store_path(repo))
    assert gitdir.tracked([store]) == store


@pytest.mark.parametrize("mapped", [False, True], ids=["read", "mapped"])
def test_the_side_files_are_found_in_one_pass_over_a_large_index(
    repo: Path, mapped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of entries before the store's side file: the one the index
    holds is the one named, whichever of the folder's paths it is, whether
    the index is read or (as a large one is) mapped."""
    monkeypatch.setattr(gitdir, "MAP_ABOVE", 0 if mapped else gitdir.MAX_INDEX)
    many = repo / "src"
    many.mkdir()
    for n in range(3000):
        (many / f"m{n}.py").write_text("")
    _git(repo, "add", "src")
    shm = repo / ".tree-ring" / "memory.sqlite-shm"
    shm.write_bytes(b"another store's shared memory")
    _git(repo, "add", "-f", ".tree-ring/memory.sqlite-shm")
    with pytest.raises(UnsafePath, match=r"memory\.sqlite-shm is tracked by git"):
        Store.open(repo)
    assert gitdir.tracked([str(project.store_path(repo))]) is None
    data = gitdir._index_bytes(str(repo / ".git" / "index"))
    assert data is not None and isinstance(data, bytes) is not mapped


@pytest.mark.parametrize("kept", [12, 100, 0.5])
def test_an_index_cut_short_is_no_reason_to_trust_the_store(repo: Path, kept: float) -> None:
    """An index shorter than the entries its header counts (a crash, a full
    disk): git cannot read it, and the store it may list is not trusted."""
    _git(repo, "add", "-f", ".tree-ring/memory.sqlite")
    many = repo / "src"
    many.mkdir()
    for n in range(200):
        (many / f"m{n}.py").write_text("")
    _git(repo, "add", "src")
    index = repo / ".git" / "index"
    data = index.read_bytes()
    index.write_bytes(data[: int(kept if kept >= 1 else len(data) * kept)])
    assert subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True).returncode
    with pytest.raises(UnsafePath, match="cannot tell whether git tracks"):
        Store.open(repo)
