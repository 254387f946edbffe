"""The official MCP Python SDK (a dev dependency only) drives `tree-ring mcp`.

In both of the SDK's connection modes: `legacy` (the initialize handshake)
and `auto` (probe `server/discover`, which this server answers, so the
stateless 2026-07-28 revision). The SDK's client validates every successful
result's `structuredContent` against the tool's `outputSchema` and raises on
a mismatch; failed results it does not check, so those are checked here
against the same schema. The last test shows the SDK does reject a result
that breaks its schema, so the passing runs mean something.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_support import SESSION, conforms

from tree_ring.mcp import schemas

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "bin" / "tree-ring"


def parameters(project_root: Path, script: list[str] | None = None) -> StdioServerParameters:
    args = script or ["-I", "-S", str(LAUNCHER), "mcp", "--harness", "claude-code"]
    return StdioServerParameters(
        command=sys.executable,
        args=args,
        cwd=str(project_root),
        env={
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(project_root.parent),
            "CLAUDECODE": "1",
            "CLAUDE_CODE_SESSION_ID": SESSION,
            "CLAUDE_PROJECT_DIR": str(project_root),
        },
    )


async def exercise(project_root: Path, mode: str) -> dict[str, Any]:
    """Every tool once, successes and failures; returns what the test checks."""
    seen: dict[str, Any] = {}
    async with Client(parameters(project_root), mode=mode) as client:
        seen["version"] = client.protocol_version
        listed = await client.list_tools()
        seen["tools"] = [tool.name for tool in listed.tools]
        assert all(tool.output_schema for tool in listed.tools)

        async def ok(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(name, arguments)  # the SDK validates here
            assert result.is_error is False and result.structured_content is not None
            data: dict[str, Any] = result.structured_content
            assert data["ok"] is True
            return data

        async def fails(name: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(name, arguments)
            assert result.is_error is True and result.structured_content is not None
            conforms(name, result.structured_content)
            error: str = result.structured_content["error"]
            return error

        stored = await ok("remember", {"summary": f"The SDK test ran in {mode} mode."})
        await ok(
            "capture",
            {"summary": "Captured.", "event_type": "lesson", "operation_id": "auto-0123456789ab-1"},
        )
        recalled = await ok("recall", {"query": "SDK test mode"})
        seen["recalled"] = [r["id"] for r in recalled["results"]]
        seen["stored"] = stored["id"]
        seen["brief"] = (await ok("brief", {}))["ids"]
        seen["shown"] = (await ok("show", {"id": stored["id"]}))["memory"]["summary"]
        seen["listed"] = (await ok("list", {"limit": 10}))["count"]
        seen["status"] = (await ok("status", {}))["memories"]["live"]
        seen["forgot"] = (await ok("forget", {"id": stored["id"], "reason": "test"}))["mode"]
        seen["failures"] = [
            await fails("show", {"id": stored["id"] + "x"}),
            await fails("recall", {"query": "x", "root": "/"}),
            await fails("remember", {"summary": "x", "limit": 3}),
        ]
    return seen


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_the_sdk_client_drives_every_tool(project_root: Path, mode: str, version: str) -> None:
    seen = anyio.run(exercise, project_root, mode)
    assert seen["version"] == version
    assert seen["tools"] == [tool.name for tool in schemas.TOOLS]
    assert seen["recalled"] == [seen["stored"]]
    assert seen["stored"] in seen["brief"]
    assert seen["shown"] == f"The SDK test ran in {mode} mode."
    assert (seen["listed"], seen["status"], seen["forgot"]) == (2, 2, "redact")
    assert [("no memory" in e, "refused" in e, "no argument" in e) for e in seen["failures"]] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]


BROKEN = """
import sys
sys.path.insert(0, {repo!r})
from tree_ring.mcp import tools
from tree_ring.mcp.server import main

tools.HANDLERS["status"] = lambda call, args: {{"project": 7}}
sys.exit(main(["--harness", "claude-code"]))
"""


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_sdk_rejects_a_result_that_breaks_its_schema(project_root: Path, mode: str) -> None:
    script = ["-c", BROKEN.format(repo=str(REPO))]

    async def call_status() -> str:
        async with Client(parameters(project_root, script), mode=mode) as client:
            try:
                await client.call_tool("status", {})
            except RuntimeError as exc:
                return str(exc)
        return "accepted"

    assert anyio.run(call_status).startswith("Invalid structured content returned by tool status")
