"""The server starts on little: the library loads on the first tool call.

A fresh process, started the way `bin/tree-ring mcp` starts it, answers the
handshake and `tools/list`, then reports which modules it had imported. The
store, SQLite, the read and write paths and the CLI must not be among them;
that is what keeps start-up within the SessionStart hook's (the timing itself
is benchmarks/mcp_startup.py).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PROBE = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
sys.argv = ["tree-ring", "mcp"]
from tree_ring.__main__ import main
main()
sys.stderr.write(repr(sorted(sys.modules)))
"""
LINES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25"},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def loaded_after(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str]]:
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE],
        input=b"".join(json.dumps(m).encode() + b"\n" for m in lines),
        capture_output=True,
        timeout=60,
        check=True,
    )
    replies = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    modules: set[str] = set(ast.literal_eval(proc.stderr.decode()))
    return replies, modules


def test_handshake_and_listing_import_no_library_beyond_the_schemas() -> None:
    replies, modules = loaded_after(LINES)
    assert [r["id"] for r in replies] == [1, 2] and replies[1]["result"]["tools"]
    heavy = {"sqlite3", "_sqlite3", "tree_ring.store.db", "tree_ring.read.recall"}
    heavy |= {"tree_ring.write.verbs"}
    heavy |= {"tree_ring.cli.app", "tree_ring.mcp.tools", "argparse", "tree_ring.guard"}
    assert heavy & modules == set()


def test_the_first_tool_call_loads_the_library() -> None:
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "status"}}
    replies, modules = loaded_after([*LINES, call])
    assert replies[2]["id"] == 3 and "structuredContent" in replies[2]["result"]
    assert {"tree_ring.mcp.tools", "tree_ring.store.db"} <= modules
    # The store loads SQLite's C module, with or without the package around it.
    assert modules & {"sqlite3", "_sqlite3"}


def test_the_cli_help_names_the_server_and_the_server_has_its_own() -> None:
    launcher = str(REPO / "bin" / "tree-ring")
    cli = subprocess.run([sys.executable, launcher, "--help"], capture_output=True, text=True)
    assert "tree-ring mcp" in " ".join(cli.stdout.split())
    own = subprocess.run(
        [sys.executable, launcher, "mcp", "--help"], capture_output=True, text=True
    )
    assert own.returncode == 0 and own.stdout.startswith("usage: tree-ring mcp")
    bad = subprocess.run(
        [sys.executable, launcher, "mcp", "--nope"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.startswith(
        "error: tree-ring mcp: unrecognized arguments: --nope;"
    )
    assert bad.stdout == ""
