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
from links_support import CASES, OTHER_MEMORY, build, snapshot

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
