"""Transcripts as Claude Code 2.1.328 and Codex 0.169.0 write them (the shapes
seen in their session files), for hook tests that need a turn with or
without work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# A turn is a list of steps: ("prompt", text), ("shell", command),
# ("tool", name) for another tool call, ("say", text), ("feedback", text)
# for the hook's own message coming back.
Step = tuple[str, str]


def claude_lines(turns: list[list[Step]], sidechain: bool = False) -> list[dict[str, Any]]:
    """Claude Code's lines; a subagent's own file marks every line `isSidechain`."""
    lines: list[dict[str, Any]] = []
    for turn in turns:
        for kind, value in turn:
            if kind == "prompt":
                lines.append(
                    {"type": "user", "promptId": "p", "message": {"role": "user", "content": value}}
                )
            elif kind == "feedback":
                lines.append(
                    {"type": "user", "isMeta": True, "message": {"role": "user", "content": value}}
                )
            elif kind in ("shell", "tool"):
                name, args = ("Bash", {"command": value}) if kind == "shell" else (value, {})
                lines.append(
                    {
                        "type": "assistant",
                        "message": {
                            "role": "assistant",
                            "content": [
                                {"type": "tool_use", "id": "t", "name": name, "input": args}
                            ],
                        },
                    }
                )
                result = {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
                lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
            else:
                lines.append(
                    {
                        "type": "assistant",
                        "message": {
                            "role": "assistant",
                            "content": [{"type": "text", "text": value}],
                        },
                    }
                )
            lines.append({"type": "attachment", "attachment": {"type": "noise"}})
    return [{**line, "isSidechain": sidechain} for line in lines]


def codex_lines(turns: list[list[Step]]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [{"type": "session_meta", "payload": {"id": "s"}}]

    def item(payload: dict[str, Any]) -> None:
        lines.append({"type": "response_item", "payload": payload})

    def message(role: str, text: str) -> None:
        kind = "input_text" if role == "user" else "output_text"
        item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    for turn in turns:
        for kind, value in turn:
            if kind == "prompt":
                lines.append({"type": "event_msg", "payload": {"type": "task_started"}})
                message("user", "<environment_context>\n</environment_context>")
                message("user", value)
            elif kind == "feedback":
                message("user", f'<hook_prompt hook_run_id="stop:1">{value}</hook_prompt>')
            elif kind == "shell":
                arguments = json.dumps({"cmd": value})
                item({"type": "function_call", "name": "exec_command", "arguments": arguments})
                item({"type": "function_call_output", "output": "ok"})
            elif kind == "tool":
                item({"type": "function_call", "name": value, "arguments": "{}"})
                item({"type": "function_call_output", "output": "ok"})
            else:
                message("assistant", value)
            lines.append({"type": "event_msg", "payload": {"type": "token_count"}})
    return lines


def write_transcript(
    path: Path, harness: str, turns: list[list[Step]], *, subagent: bool = False
) -> Path:
    lines = claude_lines(turns, subagent) if harness == "claude-code" else codex_lines(turns)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


WORK: list[list[Step]] = [[("prompt", "fix the build"), ("shell", "make"), ("say", "Fixed.")]]
CHAT: list[list[Step]] = [[("prompt", "what is a monad?"), ("say", "A monoid in endofunctors.")]]
