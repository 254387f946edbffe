"""A FIFO at `.tree-ring/ledger.jsonl`: checked by its kind before it is
opened, as every other entry of `.tree-ring/` is, so nothing waits on it.

The SessionStart hook still gives its brief and says on stderr why the team
ledger was not read; `sync` refuses in one line; a person's `remember` keeps
the row it committed and fails in one line that says so. Each runs as a real
process with a short timeout: an open for reading would wait forever.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, CliRunner, run_process

from tree_ring.store.db import Store

FIXTURES = REPO / "tests" / "fixtures" / "hooks"
TIMEOUT = 20  # seconds; each run below takes well under one
REFUSAL = (
    "is not a regular file; the ledger must be a regular file: "
    "remove it and run `tree-ring sync` to write it again"
)


@pytest.fixture
def fifo(project_root: Path, run_cli: CliRunner) -> Path:
    done = run_cli("remember", "Deploys freeze on Fridays after the release branch is cut")
    assert done.code == 0, done.err
    assert run_cli("sync").code == 0
    ledger = project_root / ".tree-ring" / "ledger.jsonl"
    assert ledger.is_file()
    ledger.unlink()
    os.mkfifo(ledger)
    return ledger


def _summaries(root: Path) -> set[str]:
    with Store.open(root) as store:
        return {str(row[0]) for row in store.conn.execute("SELECT summary FROM memories")}


def test_the_session_start_hook_briefs_and_says_why_the_ledger_was_not_read(
    project_root: Path, fifo: Path
) -> None:
    data = json.loads((FIXTURES / "claude-code-session-start.json").read_text(encoding="utf-8"))
    data["cwd"] = str(project_root)
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(REPO / "hooks" / "tree_ring_hook.py"), "claude-code"],
        input=json.dumps(data).encode(),
        capture_output=True,
        env={**os.environ},
        timeout=TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stderr.decode() == (
        f"tree-ring hook (claude-code): team ledger not imported: {fifo} {REFUSAL}\n"
    )
    brief = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Deploys freeze on Fridays" in brief


def test_sync_refuses_in_one_line(project_root: Path, fifo: Path) -> None:
    proc = run_process("--root", str(project_root), "sync", timeout=TIMEOUT)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode() == f"error: {fifo} {REFUSAL}\n"


def test_a_persons_remember_keeps_its_row_and_fails_in_one_line_that_says_so(
    project_root: Path, fifo: Path
) -> None:
    summary = "The staging database is reset every Monday morning"
    proc = run_process("--root", str(project_root), "remember", summary, timeout=TIMEOUT)
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("stored mem_")
    assert proc.stderr.decode() == (
        "error: the write is committed to the store, but the team ledger was not updated: "
        f"{fifo} {REFUSAL}\n"
    )
    assert summary in _summaries(project_root)
    assert fifo.is_fifo()  # refused, not replaced


def test_doctor_names_the_ledger_and_reads_nothing_from_it(project_root: Path, fifo: Path) -> None:
    proc = run_process("--root", str(project_root), "--json", "doctor", timeout=TIMEOUT)
    checks = {c["name"]: c for c in json.loads(proc.stdout)["items"]}
    assert (checks["ledger"]["ok"], checks["ledger"]["detail"]) == (False, f"{fifo} {REFUSAL}")
