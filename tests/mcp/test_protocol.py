"""The MCP server's protocol: JSON lines in, JSON lines out, every error code.

Messages are piped through the server's own `serve` loop (mcp_support.Pipe);
the last tests run `tree-ring mcp` as the plugin configs wire it, as a real
process.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from governance_support import query
from mcp_support import CLAUDE_ENV, Pipe, claude, session

from tree_ring.mcp import protocol, schemas, tools
from tree_ring.mcp import server as server_module

REPO = Path(__file__).resolve().parents[2]


def error_of(reply: dict[str, Any]) -> tuple[Any, int]:
    assert "result" not in reply, reply
    return reply["id"], reply["error"]["code"]


@pytest.mark.parametrize(
    ("offered", "answered"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),  # not a handshake revision
        ("1999-01-01", "2025-11-25"),
    ],
)
def test_initialize_negotiates_the_revision(offered: str, answered: str) -> None:
    result = Pipe().initialize(offered)["result"]
    assert result["protocolVersion"] == answered
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "tree-ring"
    assert result["instructions"] == schemas.INSTRUCTIONS


def test_initialize_without_a_revision_is_invalid_params() -> None:
    reply = Pipe().request("initialize", {"capabilities": {}})
    assert error_of(reply) == (1, -32602)


def test_before_initialize_only_ping_and_discover_are_served() -> None:
    pipe = Pipe()
    refused = [
        ("tools/list", None),
        ("tools/call", {"name": "status"}),
        ("resources/list", None),
        ("no/such/method", None),
    ]
    for method, params in refused:
        reply = pipe.request(method, params)
        assert reply["error"] == {
            "code": -32002,
            "message": "Server not initialized: send `initialize` first "
            "(before it only ping and server/discover are served)",
        }, method
    assert pipe.request("ping")["result"] == {}
    assert "supportedVersions" in pipe.request("server/discover")["result"]
    assert pipe.send({"jsonrpc": "2.0", "method": "notifications/initialized"}) == []
    # A failed handshake is no handshake.
    assert error_of(pipe.request("initialize", {"capabilities": {}}))[1] == -32602
    assert error_of(pipe.request("tools/list"))[1] == -32002
    pipe.initialize()
    assert len(pipe.request("tools/list")["result"]["tools"]) == len(schemas.TOOLS)


def rows(root: Path) -> set[tuple[Any, ...]]:
    """Every memory and every audit entry of the project's store."""
    memories = query(root, "SELECT id, summary FROM memories")
    audit = query(root, "SELECT seq, action FROM audit_log")
    return {("memory", *r) for r in memories} | {("audit", *r) for r in audit}


def test_a_write_before_initialize_stores_nothing(project_root: Path) -> None:
    kept = claude(project_root).call("remember", {"summary": "The cron runs at noon."})
    before = rows(project_root)
    assert ("memory", kept["id"], "The cron runs at noon.") in before
    environ = {**CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root)}
    pipe = Pipe(environ, project_root, harness="claude-code")
    write = {"name": "remember", "arguments": {"summary": "The backup runs at midnight."}}
    assert error_of(pipe.request("tools/call", write)) == (1, -32002)
    assert rows(project_root) == before
    pipe.initialize()
    stored = pipe.call("remember", write["arguments"])
    new_memory = ("memory", stored["id"], "The backup runs at midnight.")
    assert {r for r in rows(project_root) - before if r[0] == "memory"} == {new_memory}


def test_an_initialize_in_a_batch_is_refused_and_the_batch_writes_nothing(
    project_root: Path,
) -> None:
    """MCP: initialize must not be part of a JSON-RPC batch. It is refused
    and does not initialize, so the write beside it meets the lifecycle."""
    kept = claude(project_root).call("remember", {"summary": "The cron runs at noon."})
    before = query(project_root, "SELECT * FROM memories")
    audit = rows(project_root)
    assert {r["id"] for r in before} == {kept["id"]}
    environ = {**CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root)}
    pipe = Pipe(environ, project_root, harness="claude-code")
    initialize = {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "tests", "version": "0"},
    }
    write = {"name": "remember", "arguments": {"summary": "The backup runs at midnight."}}
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": write},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    (replies,) = pipe.raw(json.dumps(batch).encode() + b"\n")
    assert replies == [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32600,
                "message": "Invalid request: send `initialize` alone, not in a batch",
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {
                "code": -32002,
                "message": "Server not initialized: send `initialize` first "
                "(before it only ping and server/discover are served)",
            },
        },
        {"jsonrpc": "2.0", "id": 3, "result": {}},
    ]
    assert pipe.server.version is None
    assert [dict(r) for r in query(project_root, "SELECT * FROM memories")] == [
        dict(r) for r in before
    ]
    assert rows(project_root) == audit
    # The server goes on: a lone initialize, then the same write, works.
    pipe.next_id = 3
    assert pipe.initialize()["result"]["protocolVersion"] == "2025-06-18"
    stored = pipe.call("remember", write["arguments"])
    new_memory = ("memory", stored["id"], "The backup runs at midnight.")
    assert {r for r in rows(project_root) - audit if r[0] == "memory"} == {new_memory}
    # Once initialized, an initialize in a batch is still refused, and the
    # rest of the batch runs.
    again = [
        {"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "id": 11, "method": "ping"},
    ]
    (replies,) = pipe.raw(json.dumps(again).encode() + b"\n")
    assert [error_of(replies[0]), replies[1]] == [
        (10, -32600),
        {"jsonrpc": "2.0", "id": 11, "result": {}},
    ]


def test_notifications_get_no_reply_not_even_unknown_ones() -> None:
    pipe = Pipe()
    replies = pipe.send(
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "method": "no/such/method"},
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "nope"}},
    )
    assert replies == []


def test_a_request_with_positional_or_scalar_params() -> None:
    pipe = session()
    # Positional params: a valid message; as a notification it is owed nothing.
    assert pipe.send({"jsonrpc": "2.0", "method": "tools/list", "params": [1]}) == []
    assert error_of(pipe.request("tools/list", [1])) == (2, -32602)  # type: ignore[arg-type]
    # Scalar params make no valid request: answered as such, with the id if it
    # carried one, else null (JSON-RPC 2.0's own example).
    bad = {"jsonrpc": "2.0", "method": "tools/call", "params": "x"}
    assert [error_of(r) for r in pipe.send(bad)] == [(None, -32600)]
    assert [error_of(r) for r in pipe.send({**bad, "id": 9})] == [(9, -32600)]
    assert pipe.request("ping")["result"] == {}


def test_initialize_with_a_revision_that_is_not_a_string() -> None:
    reply = Pipe().request("initialize", {"protocolVersion": 5, "capabilities": {}})
    assert reply["error"]["message"] == "Invalid params: protocolVersion must be a string"


def test_ping_and_an_unknown_method() -> None:
    pipe = session()
    assert pipe.request("ping")["result"] == {}
    assert error_of(pipe.request("resources/list")) == (3, -32601)
    assert error_of(pipe.request("server/unknown")) == (4, -32601)


@pytest.mark.parametrize(
    "line",
    [b"{not json", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"\xff\xfe{}", b"nan!"],
)
def test_unreadable_lines_are_parse_errors_and_the_next_line_is_served(line: bytes) -> None:
    replies = Pipe().raw(line + b'\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
    assert [error_of(replies[0]), replies[1]] == [
        (None, -32700),
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    ]


@pytest.mark.parametrize("where", ["id", "params"])
def test_a_number_too_long_to_read_is_named_and_the_next_line_is_served(where: str) -> None:
    digits = sys.get_int_max_str_digits()
    huge = "9" * (digits + 1)
    if where == "id":
        line = '{"jsonrpc":"2.0","id":' + huge + ',"method":"ping"}'
    else:
        line = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":-' + huge + "}}"
    replies = Pipe().raw(line.encode() + b"\n" + PING)
    assert replies == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32700,
                "message": f"Parse error: a number in the message has more than {digits} digits",
            },
        },
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    ]
    # One digit fewer is read, and the id comes back as it was sent.
    most = int("9" * digits)
    (reply,) = Pipe().send({"jsonrpc": "2.0", "id": most, "method": "ping"})
    assert reply == {"jsonrpc": "2.0", "id": most, "result": {}}


@pytest.mark.parametrize(
    ("message", "answer_id"),
    [
        ({"id": 1, "method": "ping"}, 1),  # no jsonrpc
        ({"jsonrpc": "1.0", "id": 2, "method": "ping"}, 2),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, 3),
        ({"jsonrpc": "2.0", "id": 4, "method": ""}, 4),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
        (["not", "a", "request"], None),
        (42, None),
        ("ping", None),
    ],
)
def test_invalid_requests(message: Any, answer_id: Any) -> None:
    replies = Pipe().raw(json.dumps(message).encode() + b"\n")
    # A batch of non-requests gets its errors back as one batch.
    flat = replies[0] if replies and isinstance(replies[0], list) else replies
    codes = {error_of(reply) for reply in flat}
    assert codes == {(answer_id, -32600)}


PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n'


@pytest.mark.parametrize(
    "line",
    [b"[" * 5000, b"{" * 5000, b'{"a":' * 5000, b"[" * 5000 + b"]" * 5000, b'"' + b"[" * 5000],
)
def test_nesting_too_deep_to_parse_is_a_parse_error_and_the_next_line_is_served(
    line: bytes,
) -> None:
    replies = Pipe().raw(line + b"\n" + PING)
    assert [error_of(replies[0]), replies[1]] == [
        (None, -32700),
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    ]


def nested_ping(depth: int) -> bytes:
    """A ping whose whole message nests `depth` levels (the message is one)."""
    inner = "[" * (depth - 2) + "]" * (depth - 2)
    return b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":%s}}\n' % inner.encode()


def test_a_message_nested_past_the_limit_is_invalid_with_its_id() -> None:
    limit = protocol.MAX_DEPTH
    replies = Pipe().raw(nested_ping(limit) + nested_ping(limit + 1) + nested_ping(900) + PING)
    assert replies[0] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert [error_of(r) for r in replies[1:3]] == [(3, -32600), (3, -32600)]
    assert replies[3] == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_a_fault_reading_a_message_is_an_internal_error_and_the_connection_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = protocol.decode

    def broken(line: bytes) -> object:
        if b"boom" in line:
            raise MemoryError
        return real(line)

    monkeypatch.setattr(protocol, "decode", broken)
    replies = Pipe().raw(b"boom\n" + PING)
    assert [error_of(replies[0]), replies[1]] == [
        (None, -32603),
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    ]


def test_params_that_are_not_an_object_are_invalid_params() -> None:
    (reply,) = Pipe().send({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": [1]})
    assert error_of(reply) == (9, -32602)


def test_unknown_tool_and_bad_arguments_are_invalid_params() -> None:
    pipe = session()
    for params in (
        {"name": "rm_rf"},
        {"name": 3},
        {},
        {"name": "recall", "arguments": ["query"]},
        {"name": "recall", "arguments": "query"},
    ):
        assert error_of(pipe.request("tools/call", params))[1] == -32602, params
    assert error_of(pipe.request("tools/list", {"cursor": "page-2"}))[1] == -32602


def test_a_clients_responses_are_dropped() -> None:
    replies = Pipe().send(
        {"jsonrpc": "2.0", "id": 5, "result": {}},
        {"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": "x"}},
    )
    assert replies == []


def test_a_batch_gets_one_reply_per_request() -> None:
    pipe = session()
    (replies,) = pipe.raw(
        json.dumps(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "nope"},
            ]
        ).encode()
        + b"\n"
    )
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["result"] == {} and replies[1]["error"]["code"] == -32601
    only_notifications = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    assert pipe.raw(json.dumps(only_notifications).encode() + b"\n") == []
    (empty,) = pipe.raw(b"[]\n")
    assert error_of(empty) == (None, -32600)


def test_a_line_over_the_limit_is_refused_without_being_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(protocol, "MAX_MESSAGE", 1000)
    huge = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "x" * 5000})
    replies = Pipe().raw(huge.encode() + b'\n\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    assert error_of(replies[0]) == (None, -32600)
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert len(replies) == 2


def test_blank_lines_and_crlf_are_tolerated() -> None:
    replies = Pipe().raw(b'\r\n  \n{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n')
    assert replies == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


def listing(version: str) -> list[dict[str, Any]]:
    pipe = Pipe()
    pipe.initialize(version)
    tools_: list[dict[str, Any]] = pipe.request("tools/list")["result"]["tools"]
    return tools_


def test_tools_list_names_every_tool_with_schemas_and_hints() -> None:
    listed = listing("2025-06-18")
    assert [t["name"] for t in listed] == [
        "recall",
        "brief",
        "show",
        "list",
        "status",
        "remember",
        "capture",
        "forget",
        "refute",
    ]
    for tool in listed:
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        assert tool["outputSchema"]["type"] == "object"
        assert tool["annotations"]["openWorldHint"] is False
        assert len(tool["description"]) > 80
    hints = {t["name"]: t["annotations"] for t in listed}
    read_only = {name for name, h in hints.items() if h["readOnlyHint"]}
    assert read_only == {"recall", "brief", "show", "list", "status"}
    assert {name for name, h in hints.items() if h["destructiveHint"]} == {"forget"}


def test_older_revisions_get_only_what_they_define() -> None:
    oldest, annotated = listing("2024-11-05"), listing("2025-03-26")
    assert all(set(t) == {"name", "description", "inputSchema"} for t in oldest)
    assert all(set(t) == {"name", "description", "inputSchema", "annotations"} for t in annotated)


def test_an_older_revision_gets_the_json_as_text_only(project_root: Path) -> None:
    pipe = Pipe({**CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root)}, project_root)
    pipe.initialize("2025-03-26")
    result = pipe.request("tools/call", {"name": "status"})["result"]
    assert "structuredContent" not in result and result["isError"] is False
    assert json.loads(result["content"][0]["text"])["root"] == str(project_root)


MODERN_META = {
    protocol.VERSION_META: "2026-07-28",
    protocol.CAPABILITIES_META: {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
}


def test_discover_and_the_stateless_revision(project_root: Path) -> None:
    pipe = Pipe({**CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root)}, project_root)
    found = pipe.request("server/discover", {"_meta": MODERN_META})["result"]
    assert found["supportedVersions"][0] == "2026-07-28"
    assert set(found["supportedVersions"]) >= set(protocol.HANDSHAKE_VERSIONS)
    assert found["resultType"] == "complete" and found["instructions"] == schemas.INSTRUCTIONS
    listed = pipe.request("tools/list", {"_meta": MODERN_META})["result"]
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 0
    assert listed["_meta"][protocol.SERVER_INFO_META]["name"] == "tree-ring"
    assert all("outputSchema" in tool for tool in listed["tools"])
    called = pipe.request("tools/call", {"name": "status", "_meta": MODERN_META})["result"]
    assert called["resultType"] == "complete" and called["structuredContent"]["ok"] is True


def test_an_unknown_revision_in_the_envelope_is_refused_with_what_is_served() -> None:
    reply = Pipe().request(
        "tools/list", {"_meta": {**MODERN_META, protocol.VERSION_META: "2099-01-01"}}
    )
    assert error_of(reply) == (1, -32022)
    assert reply["error"]["data"]["supported"] == ["2026-07-28", *protocol.HANDSHAKE_VERSIONS]
    no_caps = {k: v for k, v in MODERN_META.items() if k != protocol.CAPABILITIES_META}
    assert error_of(Pipe().request("tools/list", {"_meta": no_caps}))[1] == -32602


def test_a_fault_in_tree_ring_is_an_internal_error_and_the_connection_goes_on(
    project_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(call: tools.Call, args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(tools.HANDLERS, "status", broken)
    pipe = claude(project_root)
    assert error_of(pipe.request("tools/call", {"name": "status"}))[1] == -32603
    assert "disk on fire" in capsys.readouterr().err
    assert pipe.request("ping")["result"] == {}


def test_stdout_carries_only_protocol_messages(
    project_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def noisy(call: tools.Call, args: dict[str, Any]) -> dict[str, Any]:
        print("a stray line from somewhere in the library")
        return {"project": "p", "count": 0, "ids": [], "text": ""}

    monkeypatch.setitem(tools.HANDLERS, "brief", noisy)
    monkeypatch.chdir(project_root)
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "brief"}},
    ]
    stdin = io.BytesIO(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
    stdout = io.BytesIO()
    env = {**CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root)}
    assert server_module.main([], stdin, stdout, env) == 0
    lines = stdout.getvalue().decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [1, 2]
    assert "a stray line" in capsys.readouterr().err
    assert sys.stdout is not sys.stderr  # restored after serving


@pytest.mark.parametrize(
    ("argv", "harness"),
    [([], None), (["--harness", "codex"], "codex"), (["--harness=agent"], "agent")],
)
def test_the_harness_comes_from_the_launch_command(argv: list[str], harness: str | None) -> None:
    assert server_module.parse_args(argv) == harness


@pytest.mark.parametrize("argv", [["--harness", "person"], ["--port", "1"], ["--root"], ["serve"]])
def test_bad_launch_arguments_exit_with_a_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        server_module.parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: tree-ring mcp:") and err.count("\n") == 1


def wired_command(config: str) -> tuple[list[str], Path | None]:
    """The server command exactly as a plugin config file wires it."""
    entry = json.loads((REPO / config).read_text())["mcpServers"]["tree-ring"]
    args = [a.replace("${CLAUDE_PLUGIN_ROOT}", str(REPO)) for a in entry["args"]]
    assert entry["command"] == "python3"
    cwd = REPO / entry["cwd"] if "cwd" in entry else None
    return [sys.executable, *args], cwd


def exchange(cmd: list[str], cwd: Path | None, env: dict[str, str], lines: list[Any]) -> list[Any]:
    proc = subprocess.run(
        cmd,
        input=b"".join(
            (m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in lines
        ),
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return [json.loads(line) for line in proc.stdout.decode().splitlines()]


HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
]


def test_the_claude_code_config_starts_a_server_in_the_project(
    project_root: Path, tmp_path: Path
) -> None:
    # A module that would shadow the standard library, as the hooks are tested:
    # the server runs isolated (-I -S) like them.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "json.py").write_text("raise SystemExit('shadowed json')\n")
    cmd, cwd = wired_command(".mcp.json")
    env = {
        **os.environ,
        **CLAUDE_ENV,
        "CLAUDE_PROJECT_DIR": str(project_root),
        "PYTHONPATH": str(shadow),
    }
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status"}}
    replies = exchange(cmd, cwd or project_root, env, [*HANDSHAKE, call, b"{oops"])
    assert [r.get("id") for r in replies] == [0, 1, 2, None]
    assert len(replies[1]["result"]["tools"]) == len(schemas.TOOLS)
    status = replies[2]["result"]["structuredContent"]
    assert status["ok"] is True and status["root"] == str(project_root)
    assert replies[3]["error"]["code"] == -32700


def test_a_real_server_answers_deep_garbage_and_stays_up(project_root: Path) -> None:
    # One such line used to end the process with a traceback, and the agent's
    # session with it.
    cmd, cwd = wired_command(".mcp.json")
    env = {**os.environ, **CLAUDE_ENV, "CLAUDE_PROJECT_DIR": str(project_root)}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status"}}
    deep = [b"[" * 5000, b"[" * 300 + b"]" * 300, nested_ping(500).rstrip(b"\n")]
    replies = exchange(cmd, cwd or project_root, env, [*HANDSHAKE, *deep, call])
    assert [(r.get("id"), r.get("error", {}).get("code")) for r in replies] == [
        (0, None),
        (1, None),
        (None, -32700),
        (None, -32600),
        (3, -32600),
        (2, None),
    ]
    assert replies[-1]["result"]["structuredContent"]["ok"] is True


def test_the_codex_config_runs_from_the_plugin_folder(project_root: Path) -> None:
    cmd, cwd = wired_command("codex-mcp.json")
    assert cwd == REPO
    # Codex passes little more than PATH, HOME and what env_vars names (PWD).
    env = {"PATH": os.environ["PATH"], "HOME": str(project_root.parent), "PWD": str(REPO)}
    meta = {
        "sessionId": "thread-1",
        "x-codex-turn-metadata": {"workspaces": {str(project_root): {}}},
    }
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"summary": "Codex wired it."}, "_meta": meta},
    }
    replies = exchange(cmd, cwd, env, [*HANDSHAKE, call])
    written = replies[2]["result"]["structuredContent"]
    assert written["ok"] is True, written
    listed = claude(project_root, CLAUDE_CODE_SESSION_ID="other").call("list", {"scope": "agent"})
    assert listed["memories"] == []  # Codex's own partition, not Claude Code's
    mine = session({}, project_root, harness="codex").call("list", {}, meta)
    assert [m["summary"] for m in mine["memories"]] == ["Codex wired it."]


def test_the_forget_reason_limit_advertised_is_the_one_the_library_keeps() -> None:
    # A client that checks the schema before calling must not send a reason
    # the write path then refuses, nor be kept from one it takes.
    [forget] = [t for t in listing("2025-06-18") if t["name"] == "forget"]
    reason = forget["inputSchema"]["properties"]["reason"]
    assert (reason["minLength"], reason["maxLength"]) == (1, 1000)
