"""The plugin's MCP wiring and its commands, as each harness reads them.

Claude Code reads `.mcp.json` at the plugin root and fills in
`${CLAUDE_PLUGIN_ROOT}`; Codex reads the file `.codex-plugin/plugin.json`
names, fills in nothing and starts the server in the plugin folder
(`"cwd": "."`). Codex turns Claude's argument-free commands into skills of its
own that cannot find the launcher, so its manifest migrates none
(`"commands": []`) and lists `codex-skills/`, one skill per command, instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tree_ring.cli import argparsing

REPO = Path(__file__).resolve().parents[2]
COMMANDS = sorted(p.stem for p in (REPO / "commands").glob("*.md"))


def load(path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPO / path).read_text(encoding="utf-8"))
    return data


def cli_verbs() -> set[str]:
    parser = argparsing.build_parser()
    sub = parser._subparsers  # pyright: ignore[reportPrivateUsage]
    assert sub is not None
    (action,) = [a for a in sub._group_actions]  # pyright: ignore[reportPrivateUsage]
    return set(action.choices)  # pyright: ignore[reportUnknownArgumentType, reportArgumentType]


def test_claude_code_starts_the_server_from_the_plugin_root() -> None:
    (server,) = load(".mcp.json")["mcpServers"].values()
    assert server["command"] == "python3"
    assert server["args"] == [
        "-I",
        "-S",
        "${CLAUDE_PLUGIN_ROOT}/bin/tree-ring",
        "mcp",
        "--harness",
        "claude-code",
    ]
    assert list(load(".mcp.json")["mcpServers"]) == ["tree-ring"]


def test_codex_starts_the_server_in_the_plugin_folder_with_pwd() -> None:
    manifest = load(".codex-plugin/plugin.json")
    assert manifest["mcpServers"] == "./codex-mcp.json"
    (name, server), *_ = load("codex-mcp.json")["mcpServers"].items()
    assert name == "tree-ring"  # the model's namespace: mcp__tree_ring
    assert server == {
        "command": "python3",
        "args": ["-I", "-S", "bin/tree-ring", "mcp", "--harness", "codex"],
        "cwd": ".",
        "env_vars": ["PWD"],
    }
    assert "CLAUDE_PLUGIN_ROOT" not in json.dumps(server)


def test_codex_migrates_no_command_and_has_a_skill_for_each() -> None:
    manifest = load(".codex-plugin/plugin.json")
    assert manifest["commands"] == []
    assert manifest["skills"] == ["./skills/", "./codex-skills/"]
    skills = sorted(p.parent.name for p in (REPO / "codex-skills").glob("*/SKILL.md"))
    assert skills == COMMANDS == ["capture", "forget", "init", "recall", "remember", "status"]


def frontmatter(text: str) -> dict[str, str]:
    head = text.split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.strip().splitlines())


@pytest.mark.parametrize("name", COMMANDS)
def test_each_codex_skill_runs_the_launcher_without_claudes_variables(name: str) -> None:
    text = (REPO / "codex-skills" / name / "SKILL.md").read_text(encoding="utf-8")
    meta = frontmatter(text)
    assert meta["name"] == name and len(meta["description"]) > 40
    # Nothing Codex lacks: no plugin-root variable, no slash command.
    assert "CLAUDE_PLUGIN_ROOT" not in text and "/tree-ring:" not in text
    commands = re.findall(r"^    (python3 .*)$", text, re.M)
    verbs = cli_verbs()
    for command in commands:
        words = command.split()
        assert words[:4] == ["python3", "-I", "-S", '"PLUGIN/bin/tree-ring"'], command
        verb = next(w for w in words[4:] if not w.startswith("-") and not w.startswith('"'))
        assert verb in verbs, command
    if name != "capture":  # capture runs the command the checkpoint wrote
        assert commands, f"{name} names no command"


@pytest.mark.parametrize("name", COMMANDS)
def test_claude_commands_run_the_launcher_isolated(name: str) -> None:
    text = (REPO / "commands" / f"{name}.md").read_text(encoding="utf-8")
    for command in re.findall(r"^    (python3 .*)$", text, re.M):
        assert command.startswith('python3 -I -S "${CLAUDE_PLUGIN_ROOT}/bin/tree-ring" '), command


def test_skills_run_the_launcher_isolated() -> None:
    for path in (REPO / "skills").glob("*/SKILL.md"):
        for command in re.findall(r"^    (python3 .*)$", path.read_text(encoding="utf-8"), re.M):
            assert command.startswith("python3 -I -S "), (path, command)
