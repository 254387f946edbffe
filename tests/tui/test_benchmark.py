"""The terminal UI's benchmark runs in --quick mode and reports what it promises.

No time is asserted: the figures are reported, and only held to what they
must be whatever the machine does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

pytestmark = pytest.mark.slow

SCRIPT = REPO / "benchmarks" / "tui.py"


def test_quick_benchmark_shape(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--runs", "3", "--work-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    document, _, table = proc.stdout.rpartition("\n}\n")
    report = json.loads(document + "\n}")
    assert report["memories"] == 1_000 and report["runs"] == 3
    for key in ("first_screen_cpu_ms", "baseline_cpu_ms", "process_first_frame_wall_ms"):
        assert report[key] > 0
    # The first frame before `status`'s figures, the second with them.
    assert report["screen"][0].startswith(" TREE RING  rings:ambient  counting")
    assert " of 1000)" in report["screen"][1]
    assert report["counted_screen"][0].startswith(" TREE RING  rings:ambient  live:1000")
    assert report["counted_screen_cpu_ms"] > 0
    assert len(report["screen"]) == 24
    assert "target: first screen under 300 ms" in table
