"""JSON-RPC 2.0 as MCP frames it on stdio, and the protocol revisions served.

One message per line, UTF-8, in both directions; stdout carries nothing else.
A request has an `id` (a string or an integer, never null) and gets exactly
one response; a notification has none and never gets one, not even an error;
a message with `result` or `error` and no `method` is the client's answer to
a request this server never sends, and is dropped.

Revisions: the handshake era (`initialize` negotiates one of
`HANDSHAKE_VERSIONS`), and 2026-07-28, which has no handshake: a client
probes `server/discover`, then every request names its revision in
`_meta["io.modelcontextprotocol/protocolVersion"]` and every result says
`resultType`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

JSONRPC = "2.0"
# Newest first: an offer of anything else is answered with the newest.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODERN_VERSIONS = ("2026-07-28",)
KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
# What changed on the way, for a client that negotiated an older revision.
ANNOTATIONS_SINCE = "2025-03-26"
STRUCTURED_SINCE = "2025-06-18"  # outputSchema, structuredContent, tool titles
VERSION_META = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# A request before `initialize`: the code LSP, whose lifecycle MCP copies,
# gives it (ServerNotInitialized).
NOT_INITIALIZED = -32002
UNSUPPORTED_VERSION = -32022

# A tool call carries one memory of at most a few tens of kilobytes; a line
# this long is not one a client meant to send.
MAX_MESSAGE = 1 << 20
# No message MCP defines nests past a dozen levels. Past this many, a message
# is refused before anything walks it: the parser and everything after it
# recurse, and a stack overflow would end the connection.
MAX_DEPTH = 64

RequestId = str | int


class RpcError(Exception):
    """A JSON-RPC error response: the message is what the client is told."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass(frozen=True)
class Request:
    """A request (with an id) or a notification (`id is None`)."""

    id: RequestId | None
    method: str
    params: dict[str, Any]

    @property
    def meta(self) -> dict[str, Any]:
        meta = self.params.get("_meta")
        return cast(dict[str, Any], meta) if isinstance(meta, dict) else {}


def at_least(version: str, since: str) -> bool:
    """Whether `version` has what `since` introduced (unknown versions do not)."""
    if version not in KNOWN_VERSIONS:
        return False
    return KNOWN_VERSIONS.index(version) >= KNOWN_VERSIONS.index(since)


def negotiate(offered: object) -> str:
    """The spec's rule: the client's revision if served, else the newest."""
    if isinstance(offered, str) and offered in HANDSHAKE_VERSIONS:
        return offered
    return HANDSHAKE_VERSIONS[0]


def lines(stream: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """Each line of `stream` until EOF; None for a line over `limit` bytes,
    whose rest is read and dropped rather than held in memory."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def decode(line: bytes) -> object:
    """One line's message. Unreadable JSON, JSON nested too deep for the
    parser, or a number too long for it, is a parse error (-32700, id null:
    nothing could be read)."""
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RpcError(PARSE_ERROR, "Parse error: the line is not UTF-8 JSON") from None
    except ValueError:
        # Valid JSON, but an integer longer than Python converts (4300 digits
        # unless changed): the only other ValueError the parser raises.
        digits = sys.get_int_max_str_digits()
        too_long = f"Parse error: a number in the message has more than {digits} digits"
        raise RpcError(PARSE_ERROR, too_long) from None
    except RecursionError:
        too_deep = f"Parse error: JSON nested too deep to read (at most {MAX_DEPTH} levels)"
        raise RpcError(PARSE_ERROR, too_deep) from None


def check_depth(message: object) -> None:
    """RpcError(INVALID_REQUEST) for a message that parsed but nests past
    MAX_DEPTH; the caller answers with the id it carried, if usable."""
    if nested_past(message, MAX_DEPTH):
        too_deep = f"Invalid Request: a message nests at most {MAX_DEPTH} levels deep"
        raise RpcError(INVALID_REQUEST, too_deep)


def nested_past(value: object, limit: int) -> bool:
    """Whether `value` holds an object or array more than `limit` levels down;
    walked with a list, not recursion, for the reason MAX_DEPTH gives."""
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: list[object] = list(cast(dict[str, object], item).values())
        elif isinstance(item, list):
            children = cast(list[object], item)
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def _id(message: dict[str, Any]) -> RequestId | None:
    value = message.get("id")
    # bool is an int to Python, and JSON-RPC ids are never true or false.
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return value


def request(message: object) -> Request | None:
    """A parsed message as a `Request`, or None for a message to drop: a
    response, or a notification with positional params.

    Raises RpcError(INVALID_REQUEST) for anything else; its `data` is unused and
    the caller answers with the id this message carried, if it had a valid one.
    """
    if not isinstance(message, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    msg = cast(dict[str, Any], message)
    if "method" not in msg and ("result" in msg or "error" in msg):
        return None
    if msg.get("jsonrpc") != JSONRPC:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    method = msg.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string')
    if "id" in msg and _id(msg) is None:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    params = msg.get("params", {})
    if params is None:
        params = {}
    if isinstance(params, list):
        # Positional params make a valid request that no method here takes;
        # as a notification it is owed nothing.
        if "id" not in msg:
            return None
        raise RpcError(INVALID_PARAMS, 'Invalid params: "params" must be an object')
    if not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an object or an array')
    return Request(_id(msg), method, cast(dict[str, Any], params))


def message_id(message: object) -> RequestId | None:
    """The id to answer an invalid message with, if it carried a usable one."""
    return _id(cast(dict[str, Any], message)) if isinstance(message, dict) else None


def result(request_id: RequestId, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": JSONRPC, "id": request_id, "result": value}


def error(request_id: RequestId | None, exc: RpcError) -> dict[str, Any]:
    """The error response; its message quotes what the request said (a tool's
    or a method's name), so whatever in it looks like a secret is withheld,
    as the CLI's errors withhold it."""
    from tree_ring.guard.messages import withhold

    body: dict[str, Any] = {"code": exc.code, "message": withhold(exc.message)}
    if exc.data is not None:
        body["data"] = exc.data
    return {"jsonrpc": JSONRPC, "id": request_id, "error": body}


def encode(message: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    # ASCII escapes: one line whatever the text holds, and nothing a client's
    # decoder could split (U+2028, lone surrogates from the library's input).
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"
