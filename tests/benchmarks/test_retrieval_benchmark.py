"""The retrieval benchmark's --quick run: recall is never worse than plain FTS5.

Both systems search the same synthetic corpus in the same run (2,000
memories, 100 queries with one known answer each), so the comparison holds on
any machine; only quality is asserted here, never time.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import REPO

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

SCRIPT = REPO / "benchmarks" / "retrieval.py"


def test_recall_is_not_worse_than_plain_fts5_at_5_and_10() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=REPO,
    )
    assert proc.returncode in (0, 1), proc.stderr
    result = json.loads(proc.stdout)
    ours, plain = result["tree_ring"], result["baseline_fts5_bm25"]
    assert result["corpus"]["memories"] == 2_000
    assert result["corpus"]["queries"] == 100
    for k in (5, 10):
        assert ours[f"recall@{k}"] >= plain[f"recall@{k}"], (k, ours, plain)
    assert result["not_worse_at_5_and_10"] is True
    assert proc.returncode == 0
    # Failure queries want the scar, which plain bm25 has no reason to prefer.
    assert ours["by_kind"]["failure"]["recall@1"] > plain["by_kind"]["failure"]["recall@1"]
