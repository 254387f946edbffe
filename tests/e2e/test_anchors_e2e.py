"""Anchors in the real Claude Code CLI (2.1.328), offline against the mock
Anthropic API: a turn that writes a file gets the checkpoint, the capture it
names is anchored to that file, and once the file changes the next
session's brief marks the memory stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tree_ring.read import brief

from .harnesses import SUMMARY, ClaudeCode, capture_command, conversation, tree_ring
from .mockserver import Body, MockServer, Turn

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_an_edited_file_anchors_the_capture_and_the_next_brief_marks_it_stale(
    claude: ClaudeCode, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    claude.install(plugin_dir, project)
    target = project / "retry.py"
    ran: list[str] = []

    def capture(body: Body) -> str:
        ran.append(capture_command(claude.stop_reason(body), SUMMARY))
        return ran[-1]

    turns = [
        Turn(tool=("Write", {"file_path": str(target), "content": "RETRIES = 3\n"})),
        Turn(text="Wrote it."),
        Turn(expect="Tree Ring checkpoint", shell=capture),
        Turn(text="Saved one lesson."),
    ]
    with MockServer(claude.handler, turns, tmp_path / "one.jsonl") as mock:
        claude.session(project, mock.base_url, allowed=("Write",))
    assert target.read_text() == "RETRIES = 3\n", "the Write tool did not run"
    assert ran, "the scripted model never saw the checkpoint"
    (memory,) = json.loads(tree_ring("--json", "list", root=project))["items"]
    shown = json.loads(tree_ring("--json", "show", memory["id"], root=project))
    assert [(a["path"], a["state"]) for a in shown["anchors"]] == [("retry.py", "fresh")]

    target.write_text("RETRIES = 30\n")
    with MockServer(claude.handler, [Turn(text="Hello again.")], tmp_path / "two.jsonl") as mock:
        claude.session(project, mock.base_url)
        second = mock.model_requests()
    opening = [t for t in conversation(second[0]) if brief.BEGIN in t]
    assert opening, conversation(second[0])
    [line] = [x for x in opening[0].splitlines() if SUMMARY in x]
    assert '(stale: "retry.py" changed since ' in line
