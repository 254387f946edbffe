"""The MCP `brief` is the SessionStart brief, the person's own lines included."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from conftest import CliRunner
from mcp_support import SESSION, claude

from tree_ring.hook import adapter


def _hook_text(root: Path, environ: dict[str, str]) -> str:
    payload = {"hook_event_name": "SessionStart", "session_id": SESSION, "cwd": str(root)}
    out = io.BytesIO()
    saved, sys.stderr = sys.stderr, io.StringIO()
    try:
        assert (
            adapter.main("claude-code", io.BytesIO(json.dumps(payload).encode()), environ, out) == 0
        )
    finally:
        sys.stderr = saved
    return json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]


def test_the_mcp_brief_holds_the_persons_lines_as_the_hook_does(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    noted = run_cli("remember", "I prefer pytest -q", "--scope", "global", environ=home)
    assert noted.code == 0, noted.err
    run_cli("remember", "Deploys go through the staging branch", environ=home)
    result = claude(project_root, **home).call("brief", {})
    assert '[you] "I prefer pytest -q' in result["text"]
    assert result["text"] == _hook_text(project_root, {**home, "CLAUDECODE": "1"})


def test_a_damaged_user_store_costs_the_mcp_brief_only_its_lines(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    run_cli("remember", "Deploys go through the staging branch", environ=home)
    (tmp_path / "me").mkdir()
    (tmp_path / "me" / "user.sqlite").write_bytes(b"not a database at all" * 100)
    result = claude(project_root, **home).call("brief", {})
    assert result["ok"] is True and "Deploys go through the staging branch" in result["text"]
    assert "[you]" not in result["text"]
