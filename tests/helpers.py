"""Helpers shared by the tests: memory builders, actors, CLI runners.

Imported as `from helpers import ...`; fixtures stay in conftest.py, which
pytest finds on its own.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tree_ring.cli import app
from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin
from tree_ring.model.record import Memory, new_memory_id, now_iso

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
LAUNCHER = REPO / "bin" / "tree-ring"

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
    return base.replace(**fields).with_hash()


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


CliRunner = Callable[..., Run]


def parenthesized(text: str) -> str:
    """`text` with each small letter parenthesized (U+249C, "(a)" to NFKC) and
    each digit 1 to 9 too (U+2474, "(1)"); the rest as it is."""
    return "".join(
        chr(0x249C + ord(c) - ord("a"))
        if "a" <= c <= "z"
        else chr(0x2474 + int(c) - 1)
        if "1" <= c <= "9"
        else c
        for c in text
    )


def cli_runner(project_root: Path) -> CliRunner:
    """Run the CLI in-process against a project."""

    def runner(*args: str, environ: dict[str, str] | None = None, root: bool = True) -> Run:
        argv = (["--root", str(project_root)] if root else []) + list(args)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = app.main(argv, environ or {})
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


def measured_cases(sets: dict[str, list[dict[str, Any]]], missed: frozenset[str]) -> list[Any]:
    """One pytest case per question of sets measured once, `set:question`;
    the questions `missed` lists are strict expected failures, so the list
    fails the day one is found."""
    import pytest

    return [
        pytest.param(
            name,
            case,
            id=f"{name}:{case['question']}",
            marks=[pytest.mark.xfail(reason="missed when measured", strict=True)]
            if f"{name}:{case['question']}" in missed
            else [],
        )
        for name, questions in sets.items()
        for case in questions
    ]


def unprivileged() -> list[str]:
    """The prefix that runs a command subject to file permissions: as root
    (where chmod stops nothing) every capability is dropped with `setpriv`."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"]


def recorded_project(root: Path) -> str | None:
    """The project a project's store records as its own (settings key
    `project`), read as SQLite holds it, or None when none is recorded."""
    import sqlite3

    from tree_ring.model import project

    conn = sqlite3.connect(project.store_path(root))
    try:
        row = conn.execute("SELECT value FROM settings WHERE key = 'project'").fetchone()
    finally:
        conn.close()
    return None if row is None else json.loads(row[0])


# How an editor may save a text file: with a byte-order mark (as Windows
# editors often do), with CRLF or CR line ends, or both. Each holds the same
# text as the plain file, and Tree Ring reads it so.
SAVED_AS: dict[str, Callable[[str], bytes]] = {
    "plain": lambda text: text.encode(),
    "bom": lambda text: b"\xef\xbb\xbf" + text.encode(),
    "crlf": lambda text: text.replace("\n", "\r\n").encode(),
    "bom+crlf": lambda text: b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode(),
    "cr": lambda text: text.replace("\n", "\r").encode(),
}


def json_lines(text: str) -> list[str]:
    """Lines as JSON Lines end: at "\\n", "\\r\\n" or "\\r", nowhere else."""
    found = re.split(r"\r\n|\r|\n", text)
    return found[:-1] if found[-1] == "" else found
