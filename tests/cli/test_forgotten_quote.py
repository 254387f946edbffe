"""A disputed row's reason that quotes content forgotten since is shown with
the quote withheld, by every read that shows the reason: the brief, `show`,
the review queue (text and JSON) and MCP's show."""

from __future__ import annotations

from pathlib import Path

from conftest import CliRunner
from mcp_support import CLAUDE_ENV, claude

QUOTED = "Deploy the payments service only from the release branch"
MARK = "[withheld: forgotten content]"
SHOWN = f"refuted by claude-code: contradicts: {MARK}; check the runbook"


def _disputed(run_cli: CliRunner) -> str:
    """A memory an agent refuted quoting another, which a person then forgot."""
    wrong = run_cli("--json", "remember", "Run the migrations before each deploy of the api")
    quoted = run_cli("--json", "remember", QUOTED).json()["id"]
    reason = f"contradicts: {QUOTED}; check the runbook"
    refuted = run_cli("refute", wrong.json()["id"], "--reason", reason, environ=CLAUDE_ENV)
    assert refuted.code == 0, refuted.err
    gone = run_cli("forget", quoted, "--mode", "delete", "--reason", "wrong")
    assert gone.code == 0, gone.err
    return wrong.json()["id"]


def test_every_read_shows_the_reason_with_the_forgotten_quote_withheld(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = _disputed(run_cli)
    shown = run_cli("--json", "show", memory_id).json()
    assert shown["memory"]["review"]["review_reason"] == SHOWN
    assert shown["refuted"]["reason"] == f"contradicts: {MARK}; check the runbook"
    text = run_cli("show", memory_id).out
    assert f"review.review_reason: {SHOWN}" in text
    assert f"contradicts: {MARK}; check the runbook" in text.split("disputed_by:")[1]
    [item] = run_cli("--json", "review", "list").json()["items"]
    assert (item["id"], item["review_reason"]) == (memory_id, SHOWN)
    listed = run_cli("review", "list").out
    assert f"    why: {SHOWN}" in listed.splitlines()
    brief = run_cli("brief").out
    [line] = [line for line in brief.splitlines() if memory_id in line]
    assert f"(disputed by claude-code: contradicts: {MARK}; check the runbook)" in line
    mcp = claude(project_root).call("show", {"id": memory_id})["memory"]
    assert mcp["review_reason"] == SHOWN
    for out in (str(shown), text, str(item), listed, brief, str(mcp)):
        assert "payments" not in out


def test_a_reason_quoting_nothing_forgotten_is_shown_as_written(run_cli: CliRunner) -> None:
    wrong = run_cli("--json", "remember", "Run the migrations before each deploy of the api")
    run_cli("--json", "remember", QUOTED)
    forgotten = run_cli("--json", "remember", "Releases are cut every second Thursday morning")
    run_cli("forget", forgotten.json()["id"], "--mode", "delete", "--reason", "wrong")
    reason = f"contradicts: {QUOTED}"
    run_cli("refute", wrong.json()["id"], "--reason", reason, environ=CLAUDE_ENV)
    shown = run_cli("--json", "show", wrong.json()["id"]).json()["memory"]
    assert shown["review"]["review_reason"] == f"refuted by claude-code: {reason}"
