"""`view`, `report`, `tui` and `mcp` take the global options before the verb,
as the top-level usage says, and refuse a bad option in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_process

NOW = "2027-01-01T00:00:00.000000Z"


def test_root_and_json_before_report_write_the_file(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    done = run_process("--root", str(project_root), "--json", "report", "--html", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["command"] == "report"
    assert out.read_text().startswith("<!DOCTYPE html>")
    done = run_process(f"--root={project_root}", "report", "--html", str(out), "--now", NOW)
    assert done.returncode == 0 and done.stderr == b""


def test_root_before_view_reaches_view(project_root: Path) -> None:
    # A bad option of view's own shows the global ones were taken as view's.
    done = run_process("--json", "--root", str(project_root), "view", "--port", "x")
    assert done.returncode == 2 and done.stdout == b""
    error = json.loads(done.stderr)["error"]
    assert error["code"] == "usage" and error["message"].startswith("tree-ring view: argument")


def test_root_before_tui_reaches_tui(project_root: Path) -> None:
    done = run_process("--root", str(project_root), "tui")
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: tree-ring tui needs a terminal")
    json_first = run_process("--json", "tui")
    assert json.loads(json_first.stderr)["error"]["message"].startswith(
        "tree-ring tui is interactive and prints no JSON"
    )


def test_json_before_mcp_is_one_line_saying_it_does_not_apply() -> None:
    done = run_process("--json", "mcp")
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("error: tree-ring mcp:") and "--json" in err and "JSON-RPC" in err


@pytest.mark.parametrize("before", [True, False])
def test_root_names_the_project_mcp_serves(
    project_root: Path, tmp_path: Path, before: bool
) -> None:
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status"}},
    ]
    stdin = b"".join(json.dumps(call).encode() + b"\n" for call in calls)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = ["--root", str(project_root)]
    words = [*root, "mcp"] if before else ["mcp", *root]
    done = run_process(*words, input=stdin, cwd=elsewhere, env={"PWD": str(elsewhere)})
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    status = replies[1]["result"]["structuredContent"]
    assert status["root"] == str(project_root)


@pytest.mark.parametrize(
    "words",
    [
        ["view", "--bogus"],
        ["tui", "--bogus"],
        ["report", "--bogus"],
        ["report"],
        ["view", "--port", "x"],
    ],
)
def test_a_bad_option_is_one_line(words: list[str], project_root: Path) -> None:
    done = run_process(*words, "--root", str(project_root))
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    verb = words[0]
    assert err.startswith(f"error: tree-ring {verb}: ")
    assert err.endswith(f"(`tree-ring {verb} --help` shows how)\n")
