"""Memory that flows, in the real CLIs: Claude Code's stop capture lands in its
partition; the person finds it in `inbox` and promotes it; the next Codex
session in the project is briefed with it. And a person's `remember --scope
global` in one project reaches the brief of a session in another."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tree_ring.read import brief

from .harnesses import (
    REPO,
    SUMMARY,
    ClaudeCode,
    Codex,
    conversation,
    memory_round_trip,
    run,
    scrubbed_env,
    session,
    tree_ring,
)
from .mockserver import Turn

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GLOBAL_NOTE = "I prefer pytest -q for every test run, marker GL0B4L."


def person(home: Path, *args: str, root: Path) -> str:
    """The person at the terminal, in the same home the harnesses run in, so
    the user store the hooks read is the one these commands write."""
    cmd = [sys.executable, str(REPO / "bin" / "tree-ring"), "--root", str(root), *args]
    return run(cmd, env=scrubbed_env(home), cwd=root).stdout


def opening(requests: list[dict[str, object]]) -> str:
    """The brief the first model request of a session carried."""
    head = brief.EMPTY.split("{project}")[0]  # "Tree Ring memory for project "
    found = [t for t in conversation(requests[0]) if head in t and "<skills" not in t]
    assert found, conversation(requests[0])
    return found[0]


def test_capture_inbox_promote_reaches_codex_and_a_global_note_every_project(
    claude: ClaudeCode, codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    home = claude.home
    assert codex.home == home
    # Claude Code's stop capture saves a lesson in Claude's own partition.
    memory_round_trip(claude, plugin_dir, project, tmp_path)
    codex.install(plugin_dir, project)
    before = session(codex, project, [Turn(text="Hi.")], tmp_path / "codex1.jsonl")
    assert SUMMARY not in opening(before)  # Codex does not see Claude's partition

    # The person sees it in the inbox, with its origin and session, and promotes it.
    listed = json.loads(person(home, "--json", "inbox", root=project))
    (item,) = [i for i in listed["items"] if i["summary"] == SUMMARY]
    assert (item["origin"], item["scope"], item["partition"]) == (
        "claude-code",
        "agent",
        "agent claude-code",
    )
    assert item["session_id"]
    text = person(home, "promote", item["id"], "--reason", "every harness needs it", root=project)
    assert f"promoted {item['id']} from agent to the shared project scope" in text
    assert json.loads(person(home, "--json", "inbox", root=project))["items"] == []

    after = session(codex, project, [Turn(text="Hi again.")], tmp_path / "codex2.jsonl")
    shown = opening(after)
    assert SUMMARY in shown and "origin: claude-code session" in shown

    # A person's global note, written in this project, reaches a session in another.
    other = tmp_path / "other"
    other.mkdir()
    tree_ring("init", root=other)
    stored = person(home, "remember", GLOBAL_NOTE, "--scope", "global", root=project)
    assert stored.startswith("stored mem_")
    assert (home / ".local" / "share" / "tree-ring" / "user.sqlite").exists()
    elsewhere = session(claude, other, [Turn(text="Hello.")], tmp_path / "claude-other.jsonl")
    assert f'[you] "{GLOBAL_NOTE}"' in opening(elsewhere)
    assert SUMMARY not in opening(elsewhere)  # the promoted lesson stays in its project
