"""The write-path benchmark runs in quick mode, and what it reports is consistent.

Never a timing: the targets are for the full run, and a quick run on a busy
machine may miss them. What is checked is that every figure is there, that
each verdict follows from its figures, and that each reason names them.
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

BENCH = REPO / "benchmarks" / "write_path.py"


def test_quick_benchmark_shape_and_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--quick",
            "--writes",
            "40",
            "--rss-lines",
            "300,1200",
            "--repetitive",
            "1000",
            "--growth",
            "200,400,800",
            "--work-dir",
            str(work),
            "--json-out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["quick"] is True
    assert not list(work.iterdir()), "the benchmark cleans up after itself"

    writes = report["single_writes"]
    assert writes["sizes"] == [1_000, 10_000]
    small, large = (writes["results"][str(size)] for size in writes["sizes"])
    for result, size in ((small, 1_000), (large, 10_000)):
        assert result["memories"] == size and result["writes"] == 40
        assert result["per_cpu_s"] > 0 and result["per_s"] > 0
        stages = result["stage_cpu_ms"]
        assert set(stages) == {"decide", "persist", "after", "rest"}
        assert min(stages["decide"], stages["persist"], stages["after"]) > 0
        assert sum(stages.values()) == pytest.approx(result["cpu_ms_per_write"])
        assert result["cpu_ms_per_write"] == pytest.approx(1000 / result["per_cpu_s"])
    assert writes["ratio_cpu"] == pytest.approx(small["per_cpu_s"] / large["per_cpu_s"])
    assert writes["ratio_wall"] == pytest.approx(small["per_s"] / large["per_s"])
    assert writes["met"] == (writes["ratio_cpu"] <= writes["target_ratio"] == 3.0)
    growth = {k: large["stage_cpu_ms"][k] - small["stage_cpu_ms"][k] for k in small["stage_cpu_ms"]}
    assert writes["grew_most"] == max(growth, key=lambda k: growth[k])
    assert writes["grew_most"] in writes["reason"]

    rss = report["import_rss"]
    assert [r["lines"] for r in rss["results"]] == [300, 1_200]
    for result in rss["results"]:
        assert result["memories"] == result["lines"]
        assert result["peak_rss_mb"] > 0 and result["cpu_s"] > 0 and result["wall_s"] > 0
        # About 6 KB a line.
        assert 5_000 < result["file_mb"] * 2**20 / result["lines"] < 7_000
    first, last = rss["results"]
    assert rss["growth"] == pytest.approx(last["peak_rss_mb"] / first["peak_rss_mb"])
    assert rss["under_target"] == all(r["peak_rss_mb"] < rss["target_mb"] for r in rss["results"])
    assert rss["flat"] == (rss["growth"] <= rss["target_growth"])
    assert rss["met"] == (rss["under_target"] and rss["flat"])
    assert f"{last['peak_rss_mb']:.0f} MB" in rss["reason"]

    rep = report["import_repetitive"]
    assert rep["lines"] == rep["memories"] == 1_000 and rep["vocabulary"] == 200
    assert rep["target_s"] == pytest.approx(60.0 * 1_000 / 100_000)
    assert rep["met"] == (rep["cpu_s"] < rep["target_s"] and rep["peak_rss_mb"] < 150)
    assert rep["target_rss_mb"] == 150 and f"{rep['peak_rss_mb']:.0f} MB" in rep["reason"]

    grow = report["import_growth"]
    assert [r["lines"] for r in grow["results"]] == [200, 400, 800]
    for result in grow["results"]:
        assert result["memories"] == result["lines"] and result["cpu_s"] > 0
        assert result["peak_rss_mb"] > 0
    cpu = [r["cpu_s"] for r in grow["results"]]
    assert grow["doubling_cpu"] == pytest.approx([cpu[1] / cpu[0], cpu[2] / cpu[1]])
    assert grow["met"] == all(x <= grow["target_doubling"] == 2.5 for x in grow["doubling_cpu"])
    assert f"x{grow['doubling_cpu'][1]:.2f}" in grow["reason"]
    assert rep["us_per_line"] == pytest.approx(1e6 * rep["cpu_s"] / 1_000)

    table = done.stdout[done.stdout.rindex("}") + 1 :]
    assert table.count(" | ") >= 15  # a header and four rows of four cells
    for row in (
        "single writes 1,000 -> 10,000",
        "import peak RSS",
        "import 1,000 lines",
        "import growth 200 -> 400 -> 800",
    ):
        assert row in table
