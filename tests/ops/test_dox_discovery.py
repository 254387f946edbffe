"""`dox sync` reads the project's own AGENTS.md files, not those of its dependencies."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import query, write

from tree_ring.model.actor import Actor
from tree_ring.model.identity import Identity
from tree_ring.sources import discovery, dox

RULE = "# Rules\nYou must follow {}.\n"
DEPENDENCY_FOLDERS = (
    ".venv/lib/python3.11/site-packages/fancylib",
    "venv/lib/pkg",
    "lib/python3.12/site-packages/other",
    "node_modules/pkg",
    "vendor/github.com/x",
    "build/vendor",
    "dist/pkg",
    "target/doc",
    ".tox/py311",
    ".nox/tests",
    "__pypackages__/3.11/lib/pkg",
    ".git/info",
    ".tree-ring/inner",
)


def put(root: Path, *folders: str) -> None:
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "AGENTS.md").write_text(RULE.format(folder or "the root"))


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def files_read(root: Path, identity: Identity, source: Path | None = None) -> set[str]:
    return dox.collect(source or root, root, identity, Actor.person()).read


@pytest.fixture
def outside_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No repository above the project, whatever holds the test's folder."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


def test_dependency_and_ignored_files_are_not_read_in_git(
    run_cli: CliRunner, project_root: Path, identity: Identity
) -> None:
    git(project_root, "init", "-q")
    (project_root / ".gitignore").write_text(".venv/\nbuild/\nnotes/\n")
    put(project_root, "", "src", "notes", "docs/api", *DEPENDENCY_FOLDERS)
    git(project_root, "add", "AGENTS.md", "src/AGENTS.md")
    # Tracked, yet someone else's: vendored code is skipped all the same.
    git(project_root, "add", "-f", "vendor/github.com/x/AGENTS.md")
    assert files_read(project_root, identity) == {
        "AGENTS.md",
        "src/AGENTS.md",
        "docs/api/AGENTS.md",
    }
    report = write(run_cli, "dox", "sync")
    refs = {row["source_ref"] for row in query(project_root, "SELECT * FROM memories")}
    assert refs == {"AGENTS.md#rules-1", "src/AGENTS.md#rules-1", "docs/api/AGENTS.md#rules-1"}
    assert report["files_read"] == 3 and report["capped"] is False
    # An ignored file is read only when named as the source itself.
    assert files_read(project_root, identity, project_root / "notes" / "AGENTS.md") == {
        "notes/AGENTS.md"
    }
    assert files_read(project_root, identity, project_root / "notes") == set()


def test_a_checkout_another_user_owns_is_listed_by_git_not_walked(
    project_root: Path, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git refuses a repository another user owns ("dubious ownership", a
    container's mount); dox asks it as the owner would, so what git ignores
    there is not read."""
    git(project_root, "init", "-q")
    (project_root / ".gitignore").write_text("third_party/\n.cache/\n")
    put(project_root, "", "third_party/lib", ".cache/tool")
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    refused = subprocess.run(["git", "-C", str(project_root), "ls-files"], capture_output=True)
    assert refused.returncode != 0 and b"dubious ownership" in refused.stderr
    assert files_read(project_root, identity) == {"AGENTS.md"}


def test_the_projects_files_come_before_others_under_the_cap(
    project_root: Path, identity: Identity
) -> None:
    git(project_root, "init", "-q")
    # 130 untracked, not ignored, at the top; the project's own tracked file deeper.
    put(project_root, *(f"a{index:03d}" for index in range(130)), "src/core")
    git(project_root, "add", "src/core/AGENTS.md")
    found = discovery.find(project_root, dox.ADAPTER.accepts, 128, dox.ADAPTER.pathspecs)
    assert found.capped is True and len(found.files) == 128
    assert found.files[:3] == [
        project_root / "src/core/AGENTS.md",
        project_root / "a000/AGENTS.md",
        project_root / "a001/AGENTS.md",
    ]
    assert project_root / "a127/AGENTS.md" not in found.files


def test_a_virtualenv_full_of_agents_files_leaves_the_projects_read(
    project_root: Path, identity: Identity, outside_git: None
) -> None:
    site = ".venv/lib/python3.11/site-packages"
    put(project_root, *(f"{site}/p{index}" for index in range(130)), "src")
    assert files_read(project_root, identity) == {"src/AGENTS.md"}
    git(project_root, "init", "-q")
    (project_root / ".gitignore").write_text("nothing-here/\n")  # .venv not ignored
    assert files_read(project_root, identity) == {"src/AGENTS.md"}
    # Though it sorts first, a deeper folder never crowds out one nearer the root.
    deep = [f"aa/deep/p{index}" for index in range(130)]
    put(project_root, *deep)
    assert files_read(project_root, identity) == {
        "src/AGENTS.md",
        *(f"{folder}/AGENTS.md" for folder in sorted(deep)[:127]),
    }


def test_dependency_folders_are_skipped_outside_git(
    project_root: Path, identity: Identity, outside_git: None
) -> None:
    assert "not a git repository" in str(discovery.git_listed(project_root, ("AGENTS.md",)))
    # Not a repository: nothing git would have skipped, so nothing to say.
    assert discovery.find(project_root, dox.ADAPTER.accepts, 5, ("AGENTS.md",)).unlisted is None
    put(project_root, "", "src", "env", "tools/env2", *DEPENDENCY_FOLDERS)
    (project_root / "tools" / "env2" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project_root / "tools" / "env2" / "lib").mkdir()
    put(project_root, "tools/env2/lib")
    # `env` without a pyvenv.cfg is an ordinary folder; with one, a virtualenv.
    assert files_read(project_root, identity) == {"AGENTS.md", "src/AGENTS.md", "env/AGENTS.md"}


def test_without_git_the_folder_is_walked_nearest_first(
    project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(project_root, "init", "-q")
    (project_root / ".gitignore").write_text("notes/\n")
    put(project_root, "z", "a/b/c", "notes")
    empty = project_root.parent / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # git cannot be run: the folder is walked
    unlisted = "git could not run (FileNotFoundError)"
    assert discovery.git_listed(project_root, dox.ADAPTER.pathspecs) == unlisted
    found = discovery.find(project_root, dox.ADAPTER.accepts, 2, dox.ADAPTER.pathspecs)
    assert (found.files, found.capped, found.unlisted) == (
        [project_root / "notes/AGENTS.md", project_root / "z/AGENTS.md"],
        True,
        unlisted,
    )


def test_a_repository_git_cannot_list_is_walked_and_the_sync_says_why(
    run_cli: CliRunner, project_root: Path
) -> None:
    # The rules of a neighbouring repository, named by --source-root.
    other = project_root / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / ".gitignore").write_text("third_party/\n")
    put(other, "", "third_party/lib")
    git(other, "add", "AGENTS.md")
    sync = ("dox", "sync", "--dry-run", "--source-root", str(other))
    listed = write(run_cli, *sync)
    assert (listed["files_read"], listed["unlisted"]) == (1, None)
    assert "note:" not in run_cli(*sync).out
    (other / ".git" / "index").write_bytes(b"DIRC\0\0\0\2garbage")
    walked = write(run_cli, *sync)
    assert walked["files_read"] == 2 and "index" in walked["unlisted"]
    lines = run_cli(*sync).out.splitlines()
    assert lines[-3:-1] == [
        f"note: git could not list this repository's files ({walked['unlisted']}), so the "
        "folder was walked and files git ignores were read too; fix git, or name the "
        "folder to read with --source-root",
        "dry run: nothing was written; run again without --dry-run to apply",
    ]


def test_a_deleted_tracked_file_and_a_tracked_symlink(
    run_cli: CliRunner, project_root: Path
) -> None:
    git(project_root, "init", "-q")
    put(project_root, "gone", "kept")
    os.symlink(project_root / "kept" / "AGENTS.md", project_root / "AGENTS.md")
    git(project_root, "add", "gone/AGENTS.md", "kept/AGENTS.md", "AGENTS.md")
    (project_root / "gone" / "AGENTS.md").unlink()
    report = write(run_cli, "dox", "sync")
    assert report["files_read"] == 1
    skipped = [item for item in report["items"] if item["change"] == "skipped"]
    assert {(item["where"], item["reason"]) for item in skipped} == {
        ("AGENTS.md", "a symlink; not followed")
    }
