"""Tree Ring in the real Codex CLI (0.169.0), offline against the mock
Responses API: installed from this repository's marketplace with its hooks
trusted the way /hooks records trust, the brief at session start, one
checkpoint at stop, the capture command run as the reason wrote it (after the
HTML unescaping a model reading Codex's hook_prompt does), and the saved
memory in the next session's brief."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .harnesses import Codex, conversation, memory_round_trip, subagent_session

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_brief_checkpoint_capture_and_next_brief(
    codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    trip = memory_round_trip(codex, plugin_dir, project, tmp_path)
    # Codex adds the brief as its own developer message, verbatim.
    assert any(t.startswith("Tree Ring memory for project ") for t in conversation(trip.first[0]))
    # Codex HTML-escapes the reason; it is written so that escaping changes nothing.
    prompts = [t for t in conversation(trip.first[1]) if "<hook_prompt " in t]
    assert prompts and "Tree Ring checkpoint " in prompts[-1]
    assert "&lt;" not in prompts[-1] and "&gt;" not in prompts[-1] and "&amp;" not in prompts[-1]
    # The plugin runs from Codex's plugin cache, and the command points there.
    cached = codex.codex_home / "plugins" / "cache" / "tree-ring" / "tree-ring" / "0.1.0"
    assert trip.command.startswith(f'python3 -I -S "{cached}/bin/tree-ring" --root "{project}" ')
    assert " --agent-profile codex " in trip.command


def test_subagent_gets_the_brief_and_its_own_checkpoint_identity(
    codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    requests = subagent_session(codex, plugin_dir, project, tmp_path)
    # The main session and the subagent each get the brief as a developer message.
    assert sum("Tree Ring memory for project " in r for r in requests) >= 2
    # SubagentStop blocked the subagent once, naming its own partition.
    profiles = {m for r in requests for m in re.findall(r"--agent-profile (\S+)", r) if ":" in m}
    assert len(profiles) == 1, profiles
    assert re.fullmatch(r"codex:default:[0-9a-f]{16}", profiles.pop())
