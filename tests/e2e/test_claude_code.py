"""Tree Ring in the real Claude Code CLI (2.1.328), offline against the mock
Anthropic API: installed from this repository's marketplace, the brief at
session start, one checkpoint at stop, the capture command run as the reason
wrote it, and the saved memory in the next session's brief."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .harnesses import ClaudeCode, conversation, memory_round_trip, subagent_session

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
        for t in conversation(trip.first[1])
    )
    assert trip.command.startswith(
        f'python3 -I -S "{plugin_dir}/bin/tree-ring" --root "{project}" '
    )
    assert " --agent-profile claude-code " in trip.command


def test_subagent_gets_the_brief_and_its_own_checkpoint_identity(
    claude: ClaudeCode, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    requests = subagent_session(claude, plugin_dir, project, tmp_path)
    # SubagentStart's context opens the subagent's own conversation.
    assert any(
        "SubagentStart hook additional context: Tree Ring memory for project " in r
        for r in requests
    )
    # SubagentStop blocked the subagent once, naming its own partition.
    profiles = {m for r in requests for m in re.findall(r"--agent-profile (\S+)", r) if ":" in m}
    assert len(profiles) == 1, profiles
    assert re.fullmatch(r"claude-code:general-purpose:[0-9a-f]{16}", profiles.pop())


def test_plugin_validates(claude: ClaudeCode, plugin_dir: Path) -> None:
    out = claude.validate(plugin_dir)
    assert "Validation passed" in out
    # Hooks are auto-loaded from hooks/hooks.json; all four are found.
    assert out.count("tree_ring_hook.py") == 4
