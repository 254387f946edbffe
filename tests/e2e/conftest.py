"""Fixtures for the end-to-end tests; the harnesses and helpers are in
harnesses.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harnesses import ClaudeCode, Codex, cli_bin, snapshot_repo, tree_ring


@pytest.fixture(scope="session")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snapshot_repo(tmp_path_factory.mktemp("plugin") / "tree-ring")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh project on which `tree-ring init` has run."""
    proj = tmp_path / "proj"
    proj.mkdir()
    tree_ring("init", root=proj)
    return proj


@pytest.fixture
def claude(tmp_path: Path) -> ClaudeCode:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return ClaudeCode(cli_bin("claude"), home)


@pytest.fixture
def codex(tmp_path: Path) -> Codex:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return Codex(cli_bin("codex"), home)
