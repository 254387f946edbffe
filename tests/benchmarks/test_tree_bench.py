"""The summary-tree benchmark runs in quick mode and appending stays flat with size.

Never an absolute time: the bound is on the ratio of the per-append cost at
the largest size to the cost at the smallest (100x the memories), measured
in one run, so a slow or busy machine slows both sides alike.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import REPO

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

BENCH = REPO / "benchmarks" / "tree_bench.py"
# O(1) or O(log n) appends give a ratio near 1; O(n) would give about 100.
RATIO_BOUND = 8.0


def test_quick_benchmark_shape_and_append_ratio() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["quick"] is True
    assert report["config"]["sizes"] == [100, 1_000, 10_000]
    assert [run["memories"] for run in report["runs"]] == report["config"]["sizes"]
    for run in report["runs"]:
        for kind in ("tree_us", "write_us", "plain_write_us"):
            assert set(run["append"][kind]) == {"median", "p95", "max", "mean"}
        assert run["build"]["seconds"] >= 0 and run["build"]["per_memory_us"] >= 0
        assert run["brief"]["has_history_line"] is True
        assert run["brief"]["bytes"] <= 6_000
        assert run["tree"]["max_level"] >= 1
    ratios = report["ratios"]
    assert ratios["size"] == 100.0
    assert 0 < ratios["tree_append_median"] < RATIO_BOUND
    assert 0 < ratios["write_median"] < RATIO_BOUND
