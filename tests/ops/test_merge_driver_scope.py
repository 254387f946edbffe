"""The ledger's merge driver merges ledgers only.

`init` points git's `merge.tree-ring.driver` at Tree Ring, and any
committed `.gitattributes` line can name that driver for any path
(`app.py merge=tree-ring`). The driver drops every line that is not a
ledger line, so it emptied a source file and git recorded a clean merge.
It now refuses a path that is no `.tree-ring/ledger.jsonl`, and a side that
holds text but no ledger line: exit 1, ours as it was, and git reports a
conflict to merge by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import LAUNCHER

from tree_ring.team import ledger

HEADER = json.dumps({"project": "p-1", "record": "ledger", "schema": 1}) + "\n"
MEMORY = (
    json.dumps({"id": "mem_20260101_000000_000000000001", "record": "memory", "summary": "a"})
    + "\n"
)
SOURCE = "def f():\n    return 1\n\ndef g():\n    return 2\n"


def _driver(tmp_path: Path, ours: str, theirs: str, *path: str) -> subprocess.CompletedProcess[str]:
    for name, text in (("base", ""), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), "merge-driver",
         *(str(tmp_path / n) for n in ("base", "ours", "theirs")), *path],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("path", "is_ledger"),
    [
        (".tree-ring/ledger.jsonl", True),
        ("services/api/.tree-ring/ledger.jsonl", True),
        ("app.py", False),
        ("ledger.jsonl", False),
        (".tree-ring/ledger.jsonl.orig", False),
        ("other/ledger.jsonl", False),
        (".tree-ring/ledger.jsonl/../app.py", False),
        (".tree-ring/notes/ledger.jsonl", False),
        ("notes\\.tree-ring\\ledger.jsonl", False),
        ("/etc/.tree-ring/ledger.jsonl", False),
        ("../../.tree-ring/ledger.jsonl", False),
        ("x/../.tree-ring/ledger.jsonl", False),
        ("./.tree-ring/ledger.jsonl", False),
        (".tree-ring//ledger.jsonl", False),
    ],
)
def test_only_a_projects_ledger_path_is_a_ledger(path: str, is_ledger: bool) -> None:
    assert ledger.is_ledger_path(path) is is_ledger


@pytest.mark.parametrize("path", ["app.py", "docs/notes.md"])
def test_a_path_that_is_no_ledger_is_refused_and_left_as_ours(tmp_path: Path, path: str) -> None:
    done = _driver(tmp_path, HEADER + MEMORY, HEADER, path)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert f"{path} is not a Tree Ring ledger" in done.stderr
    assert (tmp_path / "ours").read_text(encoding="utf-8") == HEADER + MEMORY


@pytest.mark.parametrize("side", ["ours", "theirs"])
def test_a_side_with_no_ledger_line_is_refused(tmp_path: Path, side: str) -> None:
    ours, theirs = (SOURCE, HEADER) if side == "ours" else (HEADER, SOURCE)
    for named in ((".tree-ring/ledger.jsonl",), ()):
        done = _driver(tmp_path, ours, theirs, *named)
        assert done.returncode == 1, done.stderr
        assert done.stderr.count("\n") == 1
        shown = named[0] if named else str(tmp_path / "ours")
        said = f"the {side} side of {shown} holds text but no ledger line; merge it by hand"
        assert said in done.stderr
        assert "gitattributes" not in done.stderr
        assert (tmp_path / "ours").read_text(encoding="utf-8") == ours


def test_empty_sides_and_ledgers_still_merge(tmp_path: Path) -> None:
    done = _driver(tmp_path, "", HEADER + MEMORY, ".tree-ring/ledger.jsonl")
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "ours").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in written] == [json.loads(HEADER), json.loads(MEMORY)]


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=a@example.com", "-c", "user.name=A", *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_a_source_file_named_for_the_driver_is_a_conflict_not_emptied(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert _git(root, "init", "-q", "-b", "main").returncode == 0
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    init = subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), "init"],
        cwd=root, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert init.returncode == 0, init.stderr
    assert "merge-driver" in _git(root, "config", "merge.tree-ring.driver").stdout
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    (root / ".gitattributes").write_text("app.py merge=tree-ring\n", encoding="utf-8")
    assert _git(root, "add", "-A").returncode == 0
    assert _git(root, "commit", "-qm", "base").returncode == 0
    assert _git(root, "checkout", "-qb", "feature").returncode == 0
    (root / "app.py").write_text(SOURCE.replace("return 2", "return 3"), encoding="utf-8")
    assert _git(root, "commit", "-qam", "feature").returncode == 0
    assert _git(root, "checkout", "-q", "main").returncode == 0
    ours = SOURCE.replace("return 1", "return 10")
    (root / "app.py").write_text(ours, encoding="utf-8")
    assert _git(root, "commit", "-qam", "main").returncode == 0
    merge = _git(root, "merge", "--no-edit", "feature")
    assert merge.returncode != 0
    assert "CONFLICT" in merge.stdout + merge.stderr
    assert (root / "app.py").read_text(encoding="utf-8") == ours
    theirs = _git(root, "show", ":3:app.py").stdout
    assert theirs == SOURCE.replace("return 2", "return 3")
