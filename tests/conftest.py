"""Shared fixtures: every test runs in its own temporary home and project.

The autouse fixture points HOME at tmp_path and removes every Tree Ring and
harness variable, so no test touches a real home directory and no test sees
the session it happens to run inside. Helpers live in helpers.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import (  # re-exported for tests that import them from here
    AGENT,
    LAUNCHER,
    PERSON,
    REPO,
    CliRunner,
    Run,
    cli_runner,
    make_memory,
    run_process,
)
from processes import Spawner

from tree_ring.cli import argparsing, reader
from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.store.db import Store

__all__ = ["AGENT", "LAUNCHER", "PERSON", "REPO", "CliRunner", "Run", "make_memory", "run_process"]

HARNESS_VARS = ("CLAUDECODE", "AI_AGENT")
HARNESS_PREFIXES = ("TREE_RING_", "CLAUDE_", "CODEX_")
TERMINAL_SIZE_VARS = ("LINES", "COLUMNS")


_read = reader.read


def _read_both_ways(
    words: Sequence[str], verb: str, handler: Callable[..., int], arguments: Callable[[Any], None]
) -> Any:
    """The CLI's reader, checked against argparse on every line a test runs:
    a line it reads, argparse reads to the same names and values."""
    found = _read(words, verb, handler, arguments)
    if found is not None:
        assert vars(found) == vars(argparsing.parse(words)), list(words)
    return found


reader.read = _read_both_ways


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in list(os.environ):
        if name.startswith("TREE_RING_E2E_"):
            continue  # where the end-to-end CLIs live, not an identity
        if name.startswith(HARNESS_PREFIXES) or name in HARNESS_VARS:
            monkeypatch.delenv(name)
    # pytest-xdist's workers export LINES=24 and COLUMNS=80, which curses and
    # shutil.get_terminal_size take over a terminal's real size.
    for name in TERMINAL_SIZE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    guidance.init_project(root)
    return root


@pytest.fixture
def store(project_root: Path) -> Iterator[Store]:
    with Store.open(project_root) as opened:
        yield opened


@pytest.fixture
def project_id(project_root: Path) -> str:
    return project.load_project_id(project_root)


@pytest.fixture
def identity(project_id: str) -> Identity:
    return Identity(project_id, "claude-code", "sess-1", "sess-1")


@pytest.fixture
def run_cli(project_root: Path) -> CliRunner:
    return cli_runner(project_root)


@pytest.fixture
def spawn() -> Iterator[Spawner]:
    """Starts processes (`spawn(argv, **popen)`); whatever is still running when
    the test ends, passed or failed, is killed with its children."""
    spawner = Spawner()
    try:
        yield spawner
    finally:
        spawner.close()
