"""`.tree-ring/.gitignore` keeps the receipts out of git whatever their kind:
a file or a link named `receipts` cannot be committed in place of the
folder. An earlier init's file is brought up to date; a person's is kept."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tree_ring.harness import guidance
from tree_ring.model import project

OLD = project.OLD_GITIGNORES[0]


def ignored(repo: Path, path: str) -> bool:
    done = subprocess.run(
        ["git", "check-ignore", "-q", "--no-index", path],
        cwd=repo,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


@pytest.mark.parametrize("kind", ["file", "link", "folder"])
def test_receipts_of_every_kind_are_ignored(tmp_path: Path, kind: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, timeout=30)
    guidance.init_project(repo)
    receipts = repo / ".tree-ring" / "receipts"
    if kind == "file":
        receipts.write_text("x\n", encoding="utf-8")
    elif kind == "link":
        receipts.symlink_to(tmp_path)
    else:
        receipts.mkdir()
        (receipts / "codex.json").write_text("{}\n", encoding="utf-8")
    assert ignored(repo, ".tree-ring/receipts")
    if kind == "folder":
        assert ignored(repo, ".tree-ring/receipts/codex.json")
    # The control: what is meant to be committed is not ignored.
    assert not ignored(repo, ".tree-ring/project.json")


def test_the_old_pattern_let_a_file_through(tmp_path: Path) -> None:
    # Why the pattern changed: `receipts/` matches only a folder.
    repo = tmp_path / "repo"
    (repo / ".tree-ring").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, timeout=30)
    (repo / ".tree-ring" / ".gitignore").write_text(OLD, encoding="utf-8")
    (repo / ".tree-ring" / "receipts").write_text("x\n", encoding="utf-8")
    assert not ignored(repo, ".tree-ring/receipts")


def test_the_files_of_a_store_build_are_ignored(tmp_path: Path) -> None:
    # A killed `init` or first hook leaves them (`store/db.py`, `_create`).
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, timeout=30)
    guidance.init_project(repo)
    built = ".tree-ring/memory.sqlite.new-b935b8ec50e4a88a"
    for side in ("", "-wal", "-shm", "-journal"):
        (repo / (built + side)).write_bytes(b"")
        assert ignored(repo, built + side)
    assert not ignored(repo, ".tree-ring/project.json")
    # Under the gitignore the previous init wrote, they were not.
    (repo / ".tree-ring" / ".gitignore").write_text(project.OLD_GITIGNORES[-1], encoding="utf-8")
    assert not ignored(repo, built)


@pytest.mark.parametrize("old", project.OLD_GITIGNORES)
def test_init_brings_an_earlier_inits_gitignore_up_to_date(tmp_path: Path, old: str) -> None:
    guidance.init_project(tmp_path)
    path = tmp_path / ".tree-ring" / ".gitignore"
    path.write_text(old, encoding="utf-8")
    report = guidance.init_project(tmp_path)
    assert path.read_text(encoding="utf-8") == project.GITIGNORE
    assert report.updated == [".tree-ring/.gitignore"]
    assert ".tree-ring/.gitignore" not in report.kept + report.created
    again = guidance.init_project(tmp_path)
    assert again.updated == [] and ".tree-ring/.gitignore" in again.kept
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".gitignore")) == [
        ".gitignore"
    ]


def test_init_keeps_a_gitignore_a_person_changed(tmp_path: Path) -> None:
    guidance.init_project(tmp_path)
    path = tmp_path / ".tree-ring" / ".gitignore"
    mine = OLD + "notes.txt\n"
    path.write_text(mine, encoding="utf-8")
    report = guidance.init_project(tmp_path)
    assert path.read_text(encoding="utf-8") == mine
    assert report.updated == [] and ".tree-ring/.gitignore" in report.kept
