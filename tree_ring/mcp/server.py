"""`tree-ring mcp`: serve this project's memory to an MCP client on stdin/stdout.

Methods: `initialize` (negotiates 2025-11-25, 2025-06-18, 2025-03-26 or
2024-11-05; sent alone, never in a batch), `ping`, `tools/list`, `tools/call`,
and `server/discover` with the stateless 2026-07-28 envelope; any other
request gets -32601. Until a successful `initialize`, only `ping`,
`server/discover` and requests in the 2026-07-28 envelope (which has no
handshake) are served: any other request gets -32002 and nothing runs, so a
stream that skipped the handshake writes nothing.

A tool's failure is a result, not a protocol error: `isError: true`, and
`ok: false` with the reason inside `structuredContent` too. Protocol errors
are for messages: -32700 unreadable JSON, -32600 not a request (or an
`initialize` inside a batch), -32601 no such method, -32602 bad params or an
unknown tool, -32603 a fault in Tree Ring, -32002 a request before `initialize`.
A notification gets no reply; one that is not `notifications/...` (a
`tools/call` with no id) is not run, so nothing is written unseen.

Start-up imports only this module, the protocol and the tool schemas; the
library loads on the first tool call. stdout carries protocol messages only:
anything else printed while serving goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, cast

from tree_ring import __version__
from tree_ring.mcp import protocol, schemas
from tree_ring.mcp.protocol import RpcError
from tree_ring.model.errors import TreeRingError

USAGE = """\
usage: tree-ring mcp [--harness claude-code|codex|agent] [--root DIR]

Serve this project's Tree Ring memory to an MCP client over stdin/stdout
(newline-delimited JSON-RPC). The project is found from the client
(CLAUDE_PROJECT_DIR, Codex's workspaces, PWD, the working directory) unless
--root DIR or TREE_RING_ROOT names it; the harness names where the calls come
from (default: what the environment shows, else `agent`).
"""
SERVER_INFO = {"name": "tree-ring", "title": "Tree Ring", "version": __version__}
HARNESS_CHOICES = ("claude-code", "codex", "agent")
# What a handshake-era client may send before `initialize` has succeeded.
BEFORE_INITIALIZE = frozenset({"initialize", "ping", "server/discover"})


def _note(message: str) -> None:
    try:
        sys.stderr.write(f"tree-ring mcp: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Server:
    """One client connection: the negotiated revision and how to answer."""

    def __init__(self, harness: str | None, environ: Mapping[str, str], cwd: Path) -> None:
        self.harness = harness
        self.environ = environ
        self.cwd = cwd
        self.version: str | None = None  # the handshake revision, once negotiated

    # -- messages -----------------------------------------------------------

    def receive(self, line: bytes) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The reply to one line, or None when nothing is owed."""
        try:
            message = protocol.decode(line)
        except RpcError as exc:
            return protocol.error(None, exc)
        try:
            protocol.check_depth(message)
        except RpcError as exc:
            return protocol.error(protocol.message_id(message), exc)
        if isinstance(message, list):
            # Batches (2025-03-26): one reply per request in them, none if
            # they held only notifications.
            if not message:
                return protocol.error(None, RpcError(protocol.INVALID_REQUEST, "empty batch"))
            batch = cast(list[object], message)
            replies = [r for r in (self.one(m, batched=True) for m in batch) if r is not None]
            return replies or None
        return self.one(message)

    def one(self, message: object, *, batched: bool = False) -> dict[str, Any] | None:
        try:
            request = protocol.request(message)
        except RpcError as exc:
            return protocol.error(protocol.message_id(message), exc)
        if request is None:
            return None
        if request.id is None and not request.method.startswith("notifications/"):
            # A call with no id can be answered by no one: MCP's requests
            # carry one, so none is run fire-and-forget (no unseen write).
            _note(f"{request.method} without an id: not run")
            return None
        try:
            value = self.handle(request, batched=batched)
        except RpcError as exc:
            return None if request.id is None else protocol.error(request.id, exc)
        except Exception as exc:  # a fault in Tree Ring: the connection goes on
            _note(f"internal error in {request.method}: {type(exc).__name__}: {exc}")
            fault = RpcError(protocol.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")
            return None if request.id is None else protocol.error(request.id, fault)
        if request.id is None:
            return None
        return protocol.result(request.id, value if value is not None else {})

    def handle(self, request: protocol.Request, *, batched: bool = False) -> dict[str, Any] | None:
        modern = self.modern_version(request)
        version = modern or self.version or protocol.HANDSHAKE_VERSIONS[0]
        method, params = request.method, request.params
        before = modern is None and self.version is None and request.id is not None
        if before and method not in BEFORE_INITIALIZE:
            # The lifecycle: nothing but ping until the handshake is done
            # (notifications, owed nothing, still pass). Claude Code probes
            # server/discover first, so that is served too.
            raise RpcError(
                protocol.NOT_INITIALIZED,
                "Server not initialized: send `initialize` first "
                "(before it only ping and server/discover are served)",
            )
        if method == "initialize" and batched:
            # MCP: initialize must not be part of a batch, as nothing else
            # may run until it has succeeded. It does not run, so the rest
            # of the batch meets the lifecycle as a stream that skipped it.
            raise RpcError(
                protocol.INVALID_REQUEST,
                "Invalid request: send `initialize` alone, not in a batch",
            )
        if method == "initialize":
            value = self.initialize(params)
        elif method == "server/discover":
            value = self.discover()
            modern = protocol.MODERN_VERSIONS[0]
        elif method == "ping":
            value = {}
        elif method == "tools/list":
            value = self.list_tools(params, version)
        elif method == "tools/call":
            value = self.call_tool(params, request.meta, version)
        elif method.startswith("notifications/"):
            return None  # initialized, cancelled, ...: nothing to do or say
        else:
            raise RpcError(protocol.METHOD_NOT_FOUND, f"Method not found: {method}")
        if modern is not None:
            value |= {"resultType": "complete", "_meta": {protocol.SERVER_INFO_META: SERVER_INFO}}
        return value

    # -- revisions ----------------------------------------------------------

    def modern_version(self, request: protocol.Request) -> str | None:
        """2026-07-28 when the request's envelope names it; None for the handshake era."""
        named = request.meta.get(protocol.VERSION_META)
        if named is None:
            return None
        if named not in protocol.MODERN_VERSIONS:
            # The handshake revisions too: a client that shares no stateless
            # revision with this server falls back to `initialize` on seeing them.
            supported = [*protocol.MODERN_VERSIONS, *protocol.HANDSHAKE_VERSIONS]
            raise RpcError(
                protocol.UNSUPPORTED_VERSION,
                f"Unsupported protocol version: {named!r}",
                {"supported": supported, "requested": named},
            )
        if not isinstance(request.meta.get(protocol.CAPABILITIES_META), dict):
            raise RpcError(
                protocol.INVALID_PARAMS,
                f'Invalid params: a {named} request carries _meta["{protocol.CAPABILITIES_META}"]',
            )
        return str(named)

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        offered = params.get("protocolVersion")
        if not isinstance(offered, str):
            said = "is missing" if offered is None else "must be a string"
            raise RpcError(protocol.INVALID_PARAMS, f"Invalid params: protocolVersion {said}")
        self.version = protocol.negotiate(offered)
        return {
            "protocolVersion": self.version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": SERVER_INFO,
            "instructions": schemas.INSTRUCTIONS,
        }

    def discover(self) -> dict[str, Any]:
        return {
            "supportedVersions": [*protocol.MODERN_VERSIONS, *protocol.HANDSHAKE_VERSIONS],
            "capabilities": {"tools": {"listChanged": False}},
            "instructions": schemas.INSTRUCTIONS,
            # Nothing here depends on who asks or when.
            "cacheScope": "public",
            "ttlMs": 0,
        }

    # -- tools --------------------------------------------------------------

    def list_tools(self, params: dict[str, Any], version: str) -> dict[str, Any]:
        if params.get("cursor") is not None:
            # One page holds every tool, so no cursor was ever handed out.
            raise RpcError(protocol.INVALID_PARAMS, "Invalid params: unknown cursor")
        annotations = protocol.at_least(version, protocol.ANNOTATIONS_SINCE)
        structured = protocol.at_least(version, protocol.STRUCTURED_SINCE)
        value: dict[str, Any] = {
            "tools": [
                tool.listing(annotations=annotations, structured=structured)
                for tool in schemas.TOOLS
            ]
        }
        if version in protocol.MODERN_VERSIONS:
            value |= {"cacheScope": "public", "ttlMs": 0}
        return value

    def call_tool(
        self, params: dict[str, Any], meta: dict[str, Any], version: str
    ) -> dict[str, Any]:
        name = params.get("name")
        tool = schemas.BY_NAME.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(schemas.BY_NAME)
            raise RpcError(protocol.INVALID_PARAMS, f"Unknown tool: {name!r}; tools: {known}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(protocol.INVALID_PARAMS, "Invalid params: arguments must be an object")
        structured = protocol.at_least(version, protocol.STRUCTURED_SINCE)
        try:
            data = self.run(tool, cast(dict[str, Any], arguments), meta)
        except TreeRingError as exc:
            # The error may quote an argument (an id, an operation id): whatever
            # in it looks like a secret is withheld, as the CLI's errors are.
            from tree_ring.guard.messages import withhold

            said = withhold(str(exc))
            return tool_result({"ok": False, "error": said}, error=True, structured=structured)
        return tool_result(data, error=False, structured=structured)

    def run(
        self, tool: schemas.Tool, arguments: dict[str, Any], meta: dict[str, Any]
    ) -> dict[str, Any]:
        # The library loads here, on the first call, not at start-up.
        from tree_ring.mcp import identity, tools
        from tree_ring.store.db import Options

        checked = schemas.check_arguments(tool, arguments)
        caller = identity.resolve(self.harness, self.environ, meta, self.cwd)
        call = tools.Call(caller, Options.from_environ(self.environ), self.environ)
        fields = tools.HANDLERS[tool.name](call, checked)
        head: dict[str, Any] = {"ok": True}
        if "notice" in tool.output_schema["properties"]:
            # First, so a model reading the compact JSON meets it before the data.
            head["notice"] = schemas.NOTICE
        return head | fields


def tool_result(data: dict[str, Any], *, error: bool, structured: bool) -> dict[str, Any]:
    """The same JSON as text and, from 2025-06-18 on, as structuredContent."""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(data, ensure_ascii=False)}],
        "isError": error,
    }
    if structured:
        result["structuredContent"] = data
    return result


def _refuse(message: str) -> NoReturn:
    from tree_ring.model.text import error_safe

    message = error_safe(message)  # one line, whatever a value it quotes holds
    sys.stderr.write(f"error: tree-ring mcp: {message}; see `tree-ring mcp --help`\n")
    raise SystemExit(2)


def parse_args(argv: Sequence[str]) -> str | None:
    """The `--harness` value; SystemExit for help or a bad argument."""
    return launch_options(argv)[0]


def launch_options(argv: Sequence[str]) -> tuple[str | None, str | None]:
    """The `--harness` and `--root` values; SystemExit for help or a bad argument."""
    words = list(argv)
    harness: str | None = None
    root: str | None = None
    while words:
        word = words.pop(0)
        if word in ("-h", "--help"):
            sys.stdout.write(USAGE)
            raise SystemExit(0)
        if word == "--json":
            _refuse("it speaks JSON-RPC on stdin/stdout, so --json does not apply; leave it out")
        if word == "--root" and words:
            root = words.pop(0)
        elif word.startswith("--root="):
            root = word.partition("=")[2]
        elif word == "--harness" and words:
            harness = words.pop(0)
        elif word.startswith("--harness="):
            harness = word.partition("=")[2]
        else:
            # Named only if it is an option: any other word could be a token.
            from tree_ring.model.arguments import unrecognized

            _refuse(unrecognized([word]))
        if harness is not None and harness not in HARNESS_CHOICES:
            _refuse(f"--harness must be one of {', '.join(HARNESS_CHOICES)}")
        if root == "":
            _refuse("--root needs a directory")
    return harness, root


def answer(server: Server, line: bytes) -> dict[str, Any] | list[dict[str, Any]] | None:
    """`server.receive(line)`, and an internal error for a fault it did not
    foresee: no message, however formed, ends the connection."""
    try:
        return server.receive(line)
    except Exception as exc:
        _note(f"internal error reading a message: {type(exc).__name__}")
        fault = RpcError(protocol.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")
        return protocol.error(None, fault)


def serve(server: Server, stdin: BinaryIO, stdout: BinaryIO) -> None:
    for line in protocol.lines(stdin, protocol.MAX_MESSAGE):
        if line is None:
            too_long = f"Invalid Request: a message is at most {protocol.MAX_MESSAGE} bytes"
            reply = protocol.error(None, RpcError(protocol.INVALID_REQUEST, too_long))
        elif not line.strip():
            continue
        else:
            reply = answer(server, line)
        if reply is not None:
            stdout.write(protocol.encode(reply))
            stdout.flush()


def main(
    argv: Sequence[str] = (),
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    harness, root = launch_options(argv)
    env = os.environ if environ is None else environ
    if root is not None:
        # The same as TREE_RING_ROOT, which the server reads on every call.
        env = {**env, "TREE_RING_ROOT": os.path.abspath(root)}
    inp = stdin or sys.stdin.buffer
    out = stdout or sys.stdout.buffer
    saved = sys.stdout
    # Whatever else prints while serving must not land between protocol messages.
    sys.stdout = sys.stderr
    try:
        serve(Server(harness, env, Path.cwd()), inp, out)
    except BrokenPipeError:
        pass
    except KeyboardInterrupt:
        return 130
    finally:
        sys.stdout = saved
    return 0
