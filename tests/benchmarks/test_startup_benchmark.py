"""The start-up benchmark's --quick mode runs, and its JSON has the promised shape.

No time is asserted: each figure is only held to what it must be whatever the
machine does (a process that does more costs more than one that does less),
and the guard's compilation, which the benchmark reports, is a count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

SCRIPT = REPO / "benchmarks" / "startup.py"
COMMANDS = {
    "bare",
    "stdlib_hook",
    "session_start",
    "session_start_user",
    "session_start_repository",
    "session_start_forgot",
    "session_start_after_capture",
    "stop",
    "fts_query",
    "recall",
    "remember",
}


def test_quick_benchmark_shape(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--runs", "15", "--work-dir", str(work)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    document, _, table = proc.stdout.rpartition("\n}\n")
    report = json.loads(document + "\n}")
    assert report["memories"] == 1_000 and report["runs"] == 15
    assert set(report["cpu_median_ms"]) == COMMANDS
    assert set(report["targets"]) == {
        "session_start_vs_bare",
        "session_start_user_vs_bare",
        "session_start_forgot_vs_bare",
        "session_start_after_capture_vs_bare",
        "stop_vs_bare",
        "recall_vs_fts_query",
        "remember_guard_share",
    }
    for target in report["targets"].values():
        assert target["met"] == (target["ratio"] <= target["at_most"])
    ratios = report["ratios"]
    # Every command starts the interpreter and then does more.
    for name in (
        "session_start_vs_bare",
        "session_start_user_vs_bare",
        "session_start_forgot_vs_bare",
        "session_start_after_capture_vs_bare",
        "stop_vs_bare",
        "stdlib_hook_vs_bare",
    ):
        assert ratios[name] > 1
    assert ratios["session_start_repository_vs_session_start"] > 0
    assert 0 < ratios["remember_guard_share"] < 1
    probe = report["guard_probe"]
    # A plain sentence opens no rule's prefilter, and its fields hold the heads
    # of few keyword terms (its event type, "note", that of "not for public").
    assert probe["patterns_compiled"] == 0
    assert 0 <= probe["keyword_terms_compiled"] < probe["keyword_terms"] / 10
    assert probe["rules"] > 0
    assert "SessionStart hook / python3 -I -S -c pass" in table
    assert "SessionStart after a capture / python3 -c pass" in table
    assert not list(work.iterdir()), "the benchmark cleans up after itself"
