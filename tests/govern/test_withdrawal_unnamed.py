"""An agent's write refused by another agent's withdrawal does not name the
withdrawn note: it was in the other harness's partition, "no memory" to this
agent everywhere else (docs/THREAT-MODEL.md)."""

from __future__ import annotations

from conftest import CliRunner
from governance_support import CLAUDE, CODEX

TEXT = "The integration suite needs the docker socket mounted"


def test_a_refused_write_names_no_other_partitions_note(run_cli: CliRunner) -> None:
    theirs = run_cli("--json", "remember", TEXT, environ=CODEX).json()["id"]
    gone = run_cli("forget", theirs, "--mode", "delete", "--reason", "wrong", environ=CODEX)
    assert gone.code == 0, gone.err
    refused = run_cli("remember", TEXT, environ=CLAUDE)
    assert refused.code != 0
    assert "withdrawn by an agent" in refused.err and "no agent will store it again" in refused.err
    assert theirs not in refused.err and "audit --target" not in refused.err
    # A person's write is not refused by it.
    assert run_cli("remember", TEXT).code == 0
