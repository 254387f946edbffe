"""The mock model servers' own behaviour, without any CLI (fast, not e2e):
Codex's namespaced function calls, its custom (freeform) tool calls, and a
turn that waits for a tool to appear."""

from __future__ import annotations

import json

from .mock_openai import custom_tools, output_items
from .mockserver import MAX_WAITS, Reply, Script, Turn


def test_a_dotted_tool_name_becomes_a_namespaced_function_call() -> None:
    reply = Reply(tool=("mcp__tree_ring.recall", {"query": "deploy"}))
    (item,) = output_items(reply, ["exec_command"])
    assert (item["type"], item["name"], item["namespace"]) == (
        "function_call",
        "recall",
        "mcp__tree_ring",
    )
    assert json.loads(item["arguments"]) == {"query": "deploy"}
    (flat,) = output_items(Reply(tool=("view_image", {})), ["view_image"])
    assert flat["name"] == "view_image" and "namespace" not in flat


def test_a_tool_offered_as_custom_gets_its_input_as_raw_text() -> None:
    body = {"tools": [{"type": "custom", "name": "apply_patch"}, {"type": "function", "name": "x"}]}
    assert custom_tools(body) == {"apply_patch"}
    patch = "*** Begin Patch\n*** Add File: a.py\n+A = 1\n*** End Patch\n"
    reply = Reply(tool=("apply_patch", {"input": patch}))
    (item,) = output_items(reply, ["apply_patch"], custom_tools(body))
    assert (item["type"], item["name"], item["input"]) == ("custom_tool_call", "apply_patch", patch)
    assert "arguments" not in item
    (plain,) = output_items(reply, ["apply_patch"])
    assert plain["type"] == "function_call" and json.loads(plain["arguments"]) == {"input": patch}


def test_a_waiting_turn_runs_its_shell_until_the_text_appears_then_gives_up() -> None:
    script = Script([Turn(expect="READY", wait_shell="sleep 1", text="go")])
    waited = [script.next_reply("not yet", {}, is_main=True) for _ in range(3)]
    assert [(r.shell, r.source) for r in waited] == [("sleep 1", "wait")] * 3
    assert script.next_reply("READY now", {}, is_main=True).text == "go"
    stuck = Script([Turn(expect="READY", wait_shell="true")])
    replies = [stuck.next_reply("", {}, is_main=True) for _ in range(MAX_WAITS + 2)]
    assert [r.source for r in replies].count("wait") == MAX_WAITS
    assert replies[-1].source == "fallback-expect-unmet"
