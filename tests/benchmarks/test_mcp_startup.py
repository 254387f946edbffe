"""The MCP start-up benchmark runs in quick mode and reports what it promises.

The ratio itself (the server's CPU time to its tools/list answer against the
SessionStart hook's) is the benchmark's to report, met or not, never a test's
to time: a loaded machine must not fail the suite. The test holds the report's
shape and that its verdict follows from its numbers.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import REPO

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

BENCH = REPO / "benchmarks" / "mcp_startup.py"


def test_quick_benchmark_shape_and_verdict() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json-only"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["runs"] == 5 and report["memories"] == 200
    assert report["mcp_command"].endswith("bin/tree-ring mcp --harness claude-code")
    assert report["mcp_command"].startswith("-I -S ")
    assert report["hook_command"].startswith("-I -S ")
    medians = report["median_ms"]
    assert set(medians) == {"hook", "mcp", "python_pass"}
    assert medians["mcp"]["ready_ms"] <= medians["mcp"]["wall_ms"]
    target = report["target"]["mcp_over_hook_at_most"]
    assert target == 2.0
    assert report["mcp_over_hook"]["cpu"] > 0
    assert report["within_target"] is (report["mcp_over_hook"]["cpu"] <= target)
