"""The imports benchmark runs in quick mode, and each verdict follows from its figures.

Never a timing: the targets are for the full run, and a quick run on a busy
machine may miss them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest
from helpers import REPO

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

BENCH = REPO / "benchmarks" / "imports.py"


def test_quick_benchmark_shape_and_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json-out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [r["rows"] for r in report["rss"]] == [1_000, 4_000, 4_000]
    assert all(r["peak_rss_mb"] > 0 and r["cpu_s"] > 0 for r in report["rss"])
    worst = max(r["peak_rss_mb"] for r in report["rss"])
    assert report["rss_met"] == (worst <= report["rss_target_mb"])
    growth = [g["cpu_s"] for g in report["growth"]]
    assert report["doublings"] == [round(b / a, 2) for a, b in pairwise(growth)]
    assert report["growth_met"] == all(r <= report["doubling_target"] for r in report["doublings"])
    vocabulary = report["vocabulary"]
    assert report["vocabulary_met"] == (vocabulary["cpu_s"] < report["vocabulary_target_s"])
    assert "peak RSS of `import`" in done.stdout and "per doubling" in done.stdout
