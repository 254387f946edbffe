"""The guard benchmark runs the write path's check over the in-repo corpora and
meets its targets; on a corpus of one's own it counts what it says it counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import REPO

BENCH = REPO / "benchmarks" / "guard.py"


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "guard.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--json-out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.exists(), done.stderr
    return done.returncode, json.loads(out.read_text("utf-8"))


def test_the_in_repo_corpora_meet_the_targets(tmp_path: Path) -> None:
    code, report = _run(tmp_path)
    assert report["secrets"] >= 590 and report["clean"] >= 770
    assert report["missed_rate"] <= 0.05, report["misses"]
    assert report["false_positive_rate"] <= 0.01, report["false_positives"]
    assert report["met"] == {"missed": True, "false_positives": True}
    assert code == 0
    # The obfuscated corpus is read with its classes, fields and all.
    assert report["by_class"]["field-split"]["secret"] >= 5
    assert report["by_class"]["base64-text"]["clean"] >= 3


def test_a_corpus_of_ones_own_counts_misses_and_false_positives(tmp_path: Path) -> None:
    token = "ghp_" + "Zk3q9XvB7mWp2LdR8sTn4YcH6jFa1Ue5GoQi"
    secrets = tmp_path / "held.jsonl"
    secrets.write_text(
        "\n".join(
            [
                json.dumps({"text": "Rotated to " + token[:20], "details": token[20:]}),
                json.dumps({"text": "Deploy notes", "source_quote": "export TOKEN=" + token}),
                json.dumps({"text": "nothing secret in here at all"}),
                "github-token\tthe CI token is " + token,
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    clean = tmp_path / "notes.txt"
    clean.write_text(f"Deploys freeze on Fridays\nthe CI token is {token}\n", encoding="utf-8")
    code, report = _run(tmp_path, "--secrets", str(secrets), "--clean", str(clean))
    assert (report["secrets"], report["missed"]) == (4, 1)
    assert (report["clean"], report["refused_clean"]) == (2, 1)
    assert {miss["at"] for miss in report["misses"]} == {"held.jsonl:3"}
    assert report["met"] == {"missed": False, "false_positives": False}
    assert code == 1


def test_a_missing_corpus_file_is_a_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--secrets", str(tmp_path / "nope.txt")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: no corpus file") and done.stdout == ""
