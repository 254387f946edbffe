"""Anchors in the real Codex CLI (0.169.0), offline against the mock
Responses API: a turn whose `apply_patch` call adds one file and edits
another gets the checkpoint, the capture it names is anchored to both files,
and once one of them changes the next session's brief marks the memory stale.

Codex offers `apply_patch` only to a model its catalog knows, as a custom
(freeform) tool taking the patch text; the sessions here run as `gpt-5.5`,
and the mock answers with a `custom_tool_call` whose input is the patch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tree_ring.read import brief

from .harnesses import SUMMARY, Codex, capture_command, conversation, tree_ring
from .mockserver import Body, MockServer, Turn

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MODEL = "gpt-5.5"
PATCH = (
    "*** Begin Patch\n"
    "*** Add File: retry.py\n"
    "+RETRIES = 3\n"
    "*** Update File: deploy.py\n"
    "@@\n"
    "-TIMEOUT = 5\n"
    "+TIMEOUT = 10\n"
    "*** End Patch\n"
)


def test_a_patched_file_anchors_the_capture_and_the_next_brief_marks_it_stale(
    codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    edited = project / "deploy.py"
    edited.write_text("TIMEOUT = 5\n")
    codex.install(plugin_dir, project)
    ran: list[str] = []

    def capture(body: Body) -> str:
        ran.append(capture_command(codex.stop_reason(body), SUMMARY))
        return ran[-1]

    turns = [
        Turn(tool=("apply_patch", {"input": PATCH})),
        Turn(text="Wrote it."),
        Turn(expect="Tree Ring checkpoint", shell=capture),
        Turn(text="Saved one lesson."),
    ]
    with MockServer(codex.handler, turns, tmp_path / "one.jsonl") as mock:
        codex.session(project, mock.base_url, model=MODEL)
        first = mock.model_requests()
    offered = {(t.get("type"), t.get("name")) for t in first[0]["tools"]}
    assert ("custom", "apply_patch") in offered, sorted(map(str, offered))
    assert (project / "retry.py").read_text() == "RETRIES = 3\n", "the patch added nothing"
    assert edited.read_text() == "TIMEOUT = 10\n", "the patch edited nothing"
    assert ran, "the scripted model never saw the checkpoint"
    (memory,) = json.loads(tree_ring("--json", "list", root=project))["items"]
    shown = json.loads(tree_ring("--json", "show", memory["id"], root=project))
    assert {(a["path"], a["state"]) for a in shown["anchors"]} == {
        ("retry.py", "fresh"),
        ("deploy.py", "fresh"),
    }

    edited.write_text("TIMEOUT = 30\n")
    with MockServer(codex.handler, [Turn(text="Hello again.")], tmp_path / "two.jsonl") as mock:
        codex.session(project, mock.base_url, model=MODEL)
        second = mock.model_requests()
    opening = [t for t in conversation(second[0]) if brief.BEGIN in t]
    assert opening, conversation(second[0])
    [line] = [x for x in opening[0].splitlines() if SUMMARY in x]
    assert '(stale: "deploy.py" changed since ' in line
