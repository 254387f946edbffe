"""The checkpoint benchmark runs, its report has the promised shape, and each
verdict is what its numbers say (counts only: nothing here is timed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import REPO

SCRIPT = REPO / "benchmarks" / "checkpoint.py"
CADENCES = ["after-work", "every-stop", "session-end", "off"]
HARNESSES = ["claude-code", "codex"]
FIELDS = {
    "checkpoints",
    "added_model_turns",
    "reason_chars",
    "stops_seen",
    "checkpoint_turns",
    "max_per_turn",
    "work_turns_after_last_checkpoint",
}


def test_report_shape_and_verdicts_follow_from_the_numbers(tmp_path: Path) -> None:
    work_dir = tmp_path / "work"
    work_dir.mkdir()
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--work-dir", str(work_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    document, _, table = proc.stdout.rpartition("\n}\n")
    report: dict[str, Any] = json.loads(document + "\n}")
    assert proc.returncode == (0 if all(report["verdicts"].values()) else 1), proc.stderr
    assert report["turns"] == 20 and report["interval_minutes"] == 30
    work = report["work_turns"]
    assert 0 < len(work) < 20
    results = report["results"]
    assert sorted(results) == sorted(CADENCES)
    for cadence in CADENCES:
        assert sorted(results[cadence]) == HARNESSES
        for r in results[cadence].values():
            assert set(r) == FIELDS
            assert r["checkpoints"] == len(r["checkpoint_turns"])
            assert r["checkpoints"] <= r["added_model_turns"] <= 2 * r["checkpoints"]
            assert r["work_turns_after_last_checkpoint"] == [
                n for n in work if n > max(r["checkpoint_turns"], default=0)
            ]
            # Each turn's stop is seen, and each block's answering stop too.
            assert r["stops_seen"] >= 20 + r["checkpoints"]

    # The verdicts, recomputed from the numbers beside them.
    def each(cadence: str, key: str) -> list[Any]:
        return [results[cadence][h][key] for h in HARNESSES]

    expected = {
        "one_checkpoint_per_turn_at_most": all(max(each(c, "max_per_turn")) <= 1 for c in CADENCES),
        "off_adds_no_model_turn": each("off", "added_model_turns") == [0, 0],
        "after_work_adds_fewer_turns_than_every_stop": all(
            a < e
            for a, e in zip(
                each("after-work", "added_model_turns"),
                each("every-stop", "added_model_turns"),
                strict=True,
            )
        ),
        "every_stop_asks_once_per_turn": each("every-stop", "checkpoints") == [20, 20],
        "after_work_first_asks_at_the_first_work": all(
            turns[:1] == work[:1] for turns in each("after-work", "checkpoint_turns")
        ),
        "session_end_asks_once": each("session-end", "checkpoints") == [1, 1],
    }
    assert report["verdicts"] == expected
    old = report["previous_rule_modelled"]
    assert old["checkpoints"] > 20 and old["added_model_turns"] >= old["checkpoints"]
    for cadence in CADENCES:
        assert cadence in table
    assert not list(work_dir.iterdir()), "the benchmark cleans up after itself"
