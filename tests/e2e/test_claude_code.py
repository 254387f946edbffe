"""Tree Ring in the real Claude Code CLI (2.1.328), offline against the mock
Anthropic API: installed from this repository's marketplace, the brief at
session start, one checkpoint at stop, the capture command run as the reason
wrote it, and the saved memory in the next session's brief."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tree_ring.mcp import schemas
from tree_ring.read import brief

from .harnesses import (
    CHECKPOINT,
    REMEMBERED,
    STORED,
    WORK_COMMAND,
    ClaudeCode,
    conversation,
    mcp_round_trip,
    memory_round_trip,
    subagent_session,
)
from .mockserver import MockServer, Turn

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_brief_checkpoint_capture_and_next_brief(
    claude: ClaudeCode, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    trip = memory_round_trip(claude, plugin_dir, project, tmp_path)
    # Claude Code adds the brief as a system message after the first user turn.
    assert any(
        t.startswith("SessionStart hook additional context: Tree Ring memory for project ")
        for t in conversation(trip.first[0])
    )
    # The stop reason comes back as user feedback, unescaped.
    assert any(
        t.startswith("Stop hook feedback:\nTree Ring checkpoint ")
        for t in conversation(trip.first[2])
    )
    assert trip.command.startswith(
        f'python3 -I -S "{plugin_dir}/bin/tree-ring" --root "{project}" '
    )
    assert " --agent-profile claude-code " in trip.command


def test_subagent_gets_the_brief_and_its_work_one_checkpoint_in_the_main_session(
    claude: ClaudeCode, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    # The foreground subagent's requests come next: it runs a command, then answers.
    requests = subagent_session(
        claude,
        plugin_dir,
        project,
        tmp_path,
        then=(Turn(shell=WORK_COMMAND), Turn(text="Build checked.")),
    )
    # SubagentStart's context opens the subagent's own conversation.
    assert any(
        "SubagentStart hook additional context: Tree Ring memory for project " in r
        for r in requests
    )
    # SubagentStop did not block; the subagent's work earned the session's
    # own Stop one checkpoint, in the main session's partition.
    checkpoints = {c for r in requests for c in CHECKPOINT.findall(r)}
    assert len(checkpoints) == 1, checkpoints
    profiles = {m for r in requests for m in re.findall(r"--agent-profile (\S+)", r)}
    assert "claude-code" in profiles and not any(":" in p for p in profiles), profiles


def test_plugin_validates(claude: ClaudeCode, plugin_dir: Path) -> None:
    out = claude.validate(plugin_dir)
    assert "Validation passed" in out
    # Hooks are auto-loaded from hooks/hooks.json; all four are found.
    assert out.count("tree_ring_hook.py") == 4


def test_mcp_recall_returns_a_stored_memory_and_remember_reaches_the_next_brief(
    claude: ClaudeCode, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    # Claude Code defers plugin MCP tools: the model finds them by tool search first.
    names = ",".join(claude.mcp_tool(n) for n in ("recall", "remember"))
    search = Turn(
        expect=claude.mcp_tool("recall"), tool=("ToolSearch", {"query": f"select:{names}"})
    )
    trip = mcp_round_trip(claude, plugin_dir, project, tmp_path, lead=(search,))
    offered = {t.get("name") for t in trip.first[-1]["tools"]}
    assert {claude.mcp_tool("recall"), claude.mcp_tool("remember")} <= offered
    # The recall result reached the model as structuredContent (compact JSON),
    # the recalled-data notice inside it, before the memory.
    (recalled,) = [json.loads(t) for t in trip.outputs if STORED in t]
    assert recalled["ok"] is True and recalled["notice"] == schemas.NOTICE
    assert list(recalled)[:2] == ["ok", "notice"]
    assert [r["summary"] for r in recalled["results"]] == [STORED]
    # The remembered memory is the agent's, in Claude Code's session.
    memory = trip.memory
    assert (memory["origin"], memory["agent_profile"], memory["scope"]) == (
        "claude-code",
        "claude-code",
        "agent",
    )
    assert memory["session_id"] == memory["origin_session"] and memory["session_id"]
    opening = [t for t in conversation(trip.second[0]) if brief.BEGIN in t]
    assert opening and REMEMBERED in opening[0] and STORED in opening[0]


def test_a_slash_command_reaches_the_model_with_the_plugins_path(
    claude: ClaudeCode, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    """The commands name `${CLAUDE_PLUGIN_ROOT}/bin/tree-ring`, a variable the
    model's shell does not hold: Claude Code puts the plugin's path in the
    command's text before the model reads it, so the line it runs is whole."""
    claude.install(plugin_dir, project)
    with MockServer(claude.handler, [Turn(text="done")], tmp_path / "slash.jsonl") as mock:
        claude.session(project, mock.base_url, prompt="/tree-ring:recall local queue")
    text = "\n".join(conversation(mock.model_requests()[0]))
    lines = [ln.strip() for ln in text.splitlines() if "bin/tree-ring" in ln]
    assert lines == [f'python3 -I -S "{plugin_dir}/bin/tree-ring" recall "QUERY"']
    assert "CLAUDE_PLUGIN_ROOT" not in text
