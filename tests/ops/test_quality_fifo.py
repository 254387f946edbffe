"""What a folder of scenarios holds beside its files is reported, never waited on.

A FIFO named `*.json` in the folder (or a link to one, or to a device, or a
folder of that name) is a broken scenario with its own one-line error, and
the other scenarios run: `quality` and `recall-quality` open a listed entry
only when it is a regular file, so nothing holds the open. A FIFO named on
its own is read once, as a pipe named as the file always is. Each runs as a
real process with a timeout: an open that waited would wait forever.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import run_process

TIMEOUT = 60  # seconds; each run below takes about one
SCENARIO = {
    "name": "good",
    "category": "constraint_recall",
    "query": "lint rule",
    "seed_memories": [{"id": "mem_t_rule", "summary": "Lint rule: ruff check runs in CI."}],
    "expected_recall": ["mem_t_rule"],
}
ODD = ("d", "x", "y", "z")  # a folder, a FIFO, a link to it, a link to a device


def _refusal(path: Path) -> str:
    return (
        f"{path}: not a regular file (a pipe, a device or a folder); "
        "a folder's scenarios are regular JSON files: move it out of the folder"
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    scenarios = tmp_path / "sc"
    scenarios.mkdir()
    (scenarios / "a-good.json").write_text(json.dumps(SCENARIO), encoding="utf-8")
    (scenarios / "d.json").mkdir()
    os.mkfifo(scenarios / "x.json")
    (scenarios / "y.json").symlink_to("x.json")
    (scenarios / "z.json").symlink_to(os.devnull)
    return scenarios


def _items(stdout: bytes) -> list[tuple[str, bool, Any]]:
    return [(s["name"], s["passed"], s["error"]) for s in json.loads(stdout)["items"]]


def _expected(folder: Path) -> list[tuple[str, bool, Any]]:
    odd: list[tuple[str, bool, Any]] = [
        (name, False, _refusal(folder / f"{name}.json")) for name in ODD
    ]
    return [("good", True, None), *odd]


def test_quality_reports_each_entry_that_is_no_file_and_runs_the_rest(
    folder: Path, tmp_path: Path
) -> None:
    proc = run_process("quality", str(folder), cwd=tmp_path, timeout=TIMEOUT)
    assert (proc.returncode, proc.stderr) == (1, b"")
    fail = "?                        0/0       0/0        FAIL"
    assert proc.stdout.decode().splitlines() == [
        "scenario  category                 expected  forbidden  result",
        "good      constraint_recall        1/1       0/0        ok",
        *(
            line
            for name in ODD
            for line in (f"{name:<8}  {fail}", f"  error: {_refusal(folder / f'{name}.json')}")
        ),
        "5 scenarios, 4 failed; expected recall 1/1 (100.0%); forbidden recall 0/0 (n/a)",
    ]
    proc = run_process("--json", "quality", str(folder), cwd=tmp_path, timeout=TIMEOUT)
    assert (proc.returncode, proc.stderr) == (1, b"")
    assert _items(proc.stdout) == _expected(folder)


def test_recall_quality_reports_them_too(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_process(
        "--json", "recall-quality", str(folder), "--out-dir", str(out),
        cwd=tmp_path, timeout=TIMEOUT,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (1, b"")
    assert _items(proc.stdout) == _expected(folder)
    written = json.loads((out / "quality" / "quality-report.json").read_text(encoding="utf-8"))
    assert written["failed"] == list(ODD)


def test_a_fifo_named_on_its_own_is_read_once(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)

    def feed() -> None:
        with pipe.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(SCENARIO))

    threading.Thread(target=feed, daemon=True).start()
    proc = run_process("--json", "quality", str(pipe), cwd=tmp_path, timeout=TIMEOUT)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert _items(proc.stdout) == [("good", True, None)]
