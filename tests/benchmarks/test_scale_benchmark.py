"""The scale benchmark's --quick mode runs, and its JSON has the promised shape.

Only ratios inside one run are checked, never absolute times: the brief walks
an index, so it must not grow like the store; the bulk path must stay within
sight of a bare FTS5 table fed the same text.
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

SCRIPT = REPO / "benchmarks" / "scale.py"
# How far one timed rate may pass another it should not (`test_quick_benchmark_shape_and_ratios`).
RATE_BOUND = 3.0
FIELDS = {
    "memories",
    "bulk_import_per_s",
    "bulk_import_per_cpu_s",
    "bulk_import_s",
    "import_lines_per_s",
    "plain_fts_insert_per_s",
    "plain_fts_match_p95_ms",
    "import_vs_plain_fts",
    "sqlite_floor_per_s",
    "import_vs_sqlite_floor",
    "required_python_us_per_memory",
    "import_ceiling_per_s",
    "import_vs_ceiling",
    "recall_p50_ms",
    "recall_p95_ms",
    "recall_p95_vs_plain_match",
    "brief_p50_ms",
    "brief_p95_ms",
    "cli_remember_median_ms",
    "hook_median_ms",
    "db_bytes_per_memory",
    "peak_rss_mb",
}


def test_quick_benchmark_shape_and_ratios(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--quick",
            "--json-only",
            "--queries",
            "40",
            "--briefs",
            "20",
            "--processes",
            "3",
            "--import-lines",
            "100",
            "--original",
            "300",
            "--work-dir",
            str(work),
        ],
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    report = json.loads(proc.stdout)
    assert report["sizes"] == [1_000, 10_000]
    assert set(report["targets"]) >= {"recall_p95_ms", "hook_median_ms", "import_per_s", "at"}
    results = report["results"]
    goal = report["targets"]["import_per_s"]
    assert set(report["targets"]["import_met_at"]) == {
        int(size) for size, r in results.items() if r["bulk_import_per_s"] >= goal
    }
    assert set(report["targets"]["import_ceiling_reaches_at"]) == {
        int(size) for size, r in results.items() if r["import_ceiling_per_s"] >= goal
    }
    assert report["baseline"]["python_startup_median_ms"] > 0
    original = report["original_export"]
    assert original["memories"] == 300 and original["lines_per_s"] > 0
    small, large = report["results"]["1000"], report["results"]["10000"]
    for result in (small, large):
        assert set(result) >= FIELDS, FIELDS - set(result)
        assert result["bulk_import_per_s"] > 0 and result["db_bytes_per_memory"] > 0
        # The bulk path does more than a bare FTS5 insert, never less; nor
        # is it faster than SQLite writing the same rows with no Python at
        # all. Each side is timed apart, so a busy machine stretches one
        # and not the other: the bound is loose (a rate read in the wrong
        # unit would be ten times off), and the benchmark reports the ratio.
        assert 0 < result["import_vs_plain_fts"] < RATE_BOUND
        assert 0 < result["import_vs_sqlite_floor"] < RATE_BOUND
        # The ceiling adds the Python no write may skip to SQLite alone, so it
        # lies below SQLite alone, and the import does not pass it.
        assert result["import_ceiling_per_s"] < result["sqlite_floor_per_s"]
        assert 0 < result["import_vs_ceiling"] < RATE_BOUND
        if result["hook_median_ms"] is not None:
            # The hook starts the same interpreter with the same flags and
            # then does its work: never less than that bare start (medians of
            # runs interleaved with it, so load falls on both alike).
            assert result["hook_vs_bare_startup"] > 1
    # Times are the benchmark's to report, never a test's to hold (a loaded
    # machine must not fail the suite): here only that they were measured.
    assert large["brief_p95_ms"] > 0 and small["brief_p95_ms"] > 0
    assert large["bulk_import_per_cpu_s"] > 0 and small["bulk_import_per_cpu_s"] > 0
    # The store grows with its memories, not faster: bytes, not time.
    assert large["db_bytes_per_memory"] < 2 * small["db_bytes_per_memory"]
    assert not list(work.iterdir()), "the benchmark cleans up after itself"
