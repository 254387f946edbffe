"""Shared fixtures: every test runs in its own temporary home and project.

The autouse fixture points HOME at tmp_path and removes every Tree Ring and
harness variable, so no test touches a real home directory and no test sees
the session it happens to run inside.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tree_ring import cli, guidance, project
from tree_ring.audit import Actor
from tree_ring.identity import Identity, Origin
from tree_ring.record import Memory, new_memory_id, now_iso
from tree_ring.store import Store

REPO = Path(__file__).resolve().parent.parent
LAUNCHER = REPO / "bin" / "tree-ring"
HARNESS_VARS = ("CLAUDECODE", "AI_AGENT")
HARNESS_PREFIXES = ("TREE_RING_", "CLAUDE_", "CODEX_")


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


PERSON = Actor.person()
AGENT = Actor("claude-code", Origin("claude-code", "sess-1"))


def make_memory(project_id: str | None, summary: str, **fields: Any) -> Memory:
    """A valid memory with sensible defaults; tests override what they test."""
    now = fields.pop("created_at", None) or now_iso()
    base = Memory(
        id=new_memory_id(),
        created_at=now,
        updated_at=now,
        summary=summary,
        event_type="note",
        project=project_id,
        valid_from=now,
    )
    return dataclasses.replace(base, **fields).with_hash()


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


CliRunner = Callable[..., Run]


@pytest.fixture
def run_cli(project_root: Path) -> CliRunner:
    """Run the CLI in-process against the test project."""

    def runner(*args: str, environ: dict[str, str] | None = None, root: bool = True) -> Run:
        argv = (["--root", str(project_root)] if root else []) + list(args)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = cli.main(argv, environ or {})
            except SystemExit as exit_:
                code = int(exit_.code or 0)
        return Run(code, out.getvalue(), err.getvalue())

    return runner


def run_process(
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """Run the real launcher as a separate process."""
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *args],
        input=input,
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
