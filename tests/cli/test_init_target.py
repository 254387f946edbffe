"""Where `init` puts the store without --root: TREE_RING_ROOT, else the git
root above the working directory, else the working directory itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CliRunner, cli_runner


def init_from(cwd: Path, monkeypatch: pytest.MonkeyPatch, **environ: str) -> Path:
    monkeypatch.chdir(cwd)
    run: CliRunner = cli_runner(cwd)
    result = run("--json", "init", root=False, environ=environ)
    assert result.code == 0, result.err
    return Path(result.json()["root"])


def test_init_in_a_subdirectory_of_a_git_checkout_uses_the_git_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    nested = repo / "src" / "pkg"
    nested.mkdir(parents=True)
    (repo / ".git").mkdir()
    assert init_from(nested, monkeypatch) == repo.resolve()
    assert (repo / ".tree-ring" / "project.json").is_file()
    assert not (nested / ".tree-ring").exists()


def test_init_outside_git_uses_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    assert init_from(plain, monkeypatch) == plain.resolve()


def test_tree_ring_root_wins_over_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert init_from(repo, monkeypatch, TREE_RING_ROOT=str(elsewhere)) == elsewhere.resolve()
