"""A disputed row whose reason quotes a memory a person forgot after: what
every read of a review reason or an audit entry's reason is checked with."""

from __future__ import annotations

from conftest import CliRunner
from mcp_support import CLAUDE_ENV

QUOTED = "Deploy the payments service only from the release branch"
MARK = "[withheld: forgotten content]"
# The refutation's reason, as recorded in its audit entry and refutation.
REFUTED = f"contradicts: {MARK}; check the runbook"
# The row's review reason.
SHOWN = f"refuted by claude-code: {REFUTED}"


def disputed(run_cli: CliRunner) -> str:
    """A memory an agent refuted quoting another, which a person then forgot."""
    wrong = run_cli("--json", "remember", "Run the migrations before each deploy of the api")
    quoted = run_cli("--json", "remember", QUOTED).json()["id"]
    reason = f"contradicts: {QUOTED}; check the runbook"
    refuted = run_cli("refute", wrong.json()["id"], "--reason", reason, environ=CLAUDE_ENV)
    assert refuted.code == 0, refuted.err
    gone = run_cli("forget", quoted, "--mode", "delete", "--reason", "wrong")
    assert gone.code == 0, gone.err
    return wrong.json()["id"]
