"""Helpers shared by the MCP server's tests: JSON lines piped through a server.

`Pipe` feeds lines to one in-process `Server` (the same `serve` loop the
process runs) and returns what it wrote back, one parsed message per line.
`session` is a Pipe that has done the handshake. `call` makes one tools/call
and checks what every result must be whatever the tool: the text block is the
same JSON as `structuredContent`, which conforms to the tool's declared
`outputSchema`, and `ok` agrees with `isError`.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tree_ring.mcp import schemas
from tree_ring.mcp.server import Server, serve

Message = dict[str, Any]
SESSION = "5f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f"
CLAUDE_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": SESSION}


class Pipe:
    def __init__(
        self,
        environ: dict[str, str] | None = None,
        cwd: Path | None = None,
        harness: str | None = None,
    ) -> None:
        self.server = Server(harness, environ or {}, cwd or Path.cwd())
        self.next_id = 0

    def raw(self, data: bytes) -> list[Any]:
        """Everything the server wrote for `data`, one parsed line each."""
        out = io.BytesIO()
        serve(self.server, io.BytesIO(data), out)
        text = out.getvalue().decode("ascii")
        assert text == "" or text.endswith("\n")
        return [json.loads(line) for line in text.splitlines()]

    def send(self, *messages: Message) -> list[Any]:
        return self.raw(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    def request(self, method: str, params: Message | None = None) -> Message:
        self.next_id += 1
        message: Message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        (reply,) = self.send(message)
        assert reply["id"] == self.next_id
        return reply

    def initialize(self, version: str = "2025-06-18") -> Message:
        reply = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "0"},
            },
        )
        assert self.send({"jsonrpc": "2.0", "method": "notifications/initialized"}) == []
        return reply

    def call(self, name: str, arguments: Any = None, meta: Message | None = None) -> Message:
        """One tools/call; returns structuredContent after checking the result's shape."""
        params: Message = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if meta is not None:
            params["_meta"] = meta
        reply = self.request("tools/call", params)
        assert "error" not in reply, reply
        result = reply["result"]
        structured: Message = result["structuredContent"]
        (block,) = result["content"]
        assert block["type"] == "text" and json.loads(block["text"]) == structured
        conforms(name, structured)
        assert structured["ok"] is not result["isError"]
        return structured


# Each tool's outputSchema, checked against the meta-schema once, as a validator.
# Checking it again on every call made the check most of a call's cost.
_VALIDATORS: dict[str, tuple[Message, Draft202012Validator]] = {}


def validator(name: str) -> Draft202012Validator:
    schema = schemas.BY_NAME[name].output_schema
    cached = _VALIDATORS.get(name)
    if cached is None or cached[0] is not schema:
        Draft202012Validator.check_schema(schema)
        cached = _VALIDATORS[name] = (schema, Draft202012Validator(schema))
    return cached[1]


def conforms(name: str, structured: Message) -> None:
    errors = [e.message for e in validator(name).iter_errors(structured)]
    assert errors == [], errors


def session(
    environ: dict[str, str] | None = None, cwd: Path | None = None, harness: str | None = None
) -> Pipe:
    pipe = Pipe(environ, cwd, harness)
    pipe.initialize()
    return pipe


def claude(project_root: Path, **extra: str) -> Pipe:
    """A Claude Code session in `project_root`, as the plugin's .mcp.json starts it."""
    environ = {**CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root), **extra}
    return session(environ, project_root, harness="claude-code")


def codex_meta(project_root: Path, session_id: str = "01a22f96-codex-thread") -> Message:
    """The `_meta` Codex 0.169 sends with every tools/call (the fields that matter)."""
    return {
        "sessionId": session_id,
        "threadId": session_id,
        "plugin_id": "tree-ring@tree-ring",
        "x-codex-turn-metadata": {
            "session_id": session_id,
            "workspaces": {str(project_root): {"has_changes": True}},
        },
    }


def failed(structured: Message, *words: str) -> str:
    """The error of a failed call, which must say each of `words`."""
    assert structured["ok"] is False, structured
    error: str = structured["error"]
    for word in words:
        assert word in error, error
    return error
