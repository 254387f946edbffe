"""The hooks refuse a `.tree-ring/` that holds a link (or a FIFO, or a file
where a directory belongs): exit 0, one line on stderr, no brief, no block,
and nothing created, changed or removed anywhere, the links' targets included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO
from links_support import (
    CASES,
    OTHER_MEMORY,
    RECEIPTS_CASES,
    build,
    changed,
    receipts_said,
    snapshot,
)
from tree_support import remember

from tree_ring.model import project
from tree_ring.store.db import Store

LAUNCHER = REPO / "hooks" / "tree_ring_hook.py"
FIXTURES = REPO / "tests" / "fixtures" / "hooks"
EVENTS = [f"{h}-{e}" for h in ("claude-code", "codex") for e in ("session-start", "stop")]


def run(name: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    data["cwd"] = str(cwd)
    harness = "claude-code" if name.startswith("claude-code") else "codex"
    return subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), harness],
        input=json.dumps(data).encode(),
        capture_output=True,
        env={**os.environ},
        timeout=20,  # a FIFO opened for reading would hang here
        check=False,
    )


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_hooks_refuse_a_linked_tree_and_touch_nothing(
    case: str, event: str, tmp_path: Path
) -> None:
    proj = build(tmp_path, case)
    before = snapshot(tmp_path)
    proc = run(event, proj)
    assert proc.returncode == 0
    assert proc.stdout == b"", proc.stdout
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "symbolic link" in lines[0] or "is not a" in lines[0], lines[0]
    assert OTHER_MEMORY not in proc.stderr.decode()
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("event", EVENTS)
def test_hooks_from_a_subdirectory_refuse_a_linked_tree(event: str, tmp_path: Path) -> None:
    proj = build(tmp_path, "link_dir_relative")
    (proj / "src").mkdir()
    before = snapshot(tmp_path)
    proc = run(event, proj / "src")
    assert proc.stdout == b"" and "symbolic link" in proc.stderr.decode()
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("event", EVENTS)
def test_the_same_project_without_links_briefs_and_blocks(event: str, tmp_path: Path) -> None:
    # The control: what the cases above refuse is the link, not the setup.
    build(tmp_path, "link_guidance")
    (tmp_path / "proj" / ".tree-ring" / "AGENTS.md").unlink()
    proc = run(event, tmp_path / "proj")
    assert proc.stderr == b"" and proc.stdout, proc.stderr


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("case", sorted(RECEIPTS_CASES))
def test_hooks_go_on_without_receipts_where_their_folder_is_not_one(
    case: str, event: str, tmp_path: Path
) -> None:
    # A committed link, file or FIFO in place of the receipts folder must not
    # turn the brief (and its scars) off: one line on stderr, the brief as
    # ever, and nothing written through it or outside the store.
    proj = build(tmp_path, case)
    scar = "Never run migrations on Fridays."
    with Store.open(proj) as store:
        remember(store, project.load_project_id(proj), scar, ring="scar")
    before = snapshot(tmp_path)
    proc = run(event, proj)
    assert proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and receipts_said(case, proj) in lines[0], proc.stderr
    if event.endswith("session-start"):
        shown = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        assert scar in shown
    else:
        answer = json.loads(proc.stdout)
        assert answer == {} or (answer["decision"] == "block" and " capture " in answer["reason"])
    assert all(
        name == "proj/.tree-ring" or name.startswith("proj/.tree-ring/memory.sqlite")
        for name in changed(before, snapshot(tmp_path))
    ), changed(before, snapshot(tmp_path))
