"""`--as-of T` is what was believed at T: a memory an agent refuted after T
was believed then, and one refuted before T was not."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import CliRunner

from tree_ring.model import project

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "agent-session-1"}
EARLY = "The sandbox resets at midnight UTC"
LATE = "The staging cluster scales down at night"
KEPT = "The default branch is main"


def _refuted_at(root: Path, memory_id: str, at: str) -> None:
    """Date a refutation (the CLI dates it now)."""
    with sqlite3.connect(project.store_path(root)) as conn:
        conn.execute("UPDATE refutations SET created_at = ? WHERE memory_id = ?", (at, memory_id))


def test_as_of_reads_a_refutation_by_its_time(run_cli: CliRunner, project_root: Path) -> None:
    ids = {t: run_cli("--json", "remember", t).json()["id"] for t in (EARLY, LATE, KEPT)}
    for text in (EARLY, LATE):
        done = run_cli("refute", ids[text], "--reason", "it changed", environ=AGENT)
        assert done.code == 0, done.err
    then = "2999-01-01T00:00:00.000000Z"
    _refuted_at(project_root, ids[EARLY], "2998-01-01T00:00:00.000000Z")
    _refuted_at(project_root, ids[LATE], "2999-06-01T00:00:00.000000Z")
    listed = run_cli("--json", "list", "--as-of", then).json()["items"]
    assert {i["summary"] for i in listed} == {LATE, KEPT}
    found = run_cli("--json", "recall", "staging cluster scales", "--as-of", then).json()["items"]
    assert found and found[0]["summary"] == LATE
    # Now neither refuted memory is believed.
    assert {i["summary"] for i in run_cli("--json", "list").json()["items"]} == {KEPT}
