"""An agent's read of the audit log names no row of another partition: the
agents' notes a person's write disputed are "no memory" to another agent, in
the entries of the person's row too (`read/audit_reach.py`)."""

from __future__ import annotations

import json

from conftest import CliRunner
from governance_support import CLAUDE, CODEX


def _id(run_cli: CliRunner, *args: str, environ: dict[str, str] | None = None) -> str:
    done = run_cli("--json", "remember", *args, environ=environ)
    assert done.code == 0, done.err
    return str(done.json()["id"])


def _named(run_cli: CliRunner, target: str, environ: dict[str, str] | None) -> str:
    done = run_cli("--json", "audit", "log", "--target", target, environ=environ)
    assert done.code == 0, done.err
    return json.dumps(done.json()["items"])


def test_another_partitions_disputed_note_is_not_named(run_cli: CliRunner) -> None:
    codex = _id(run_cli, "The request timeout is 60s", environ=CODEX)
    person = _id(run_cli, "The request timeout is 30s")
    assert run_cli("show", codex, environ=CLAUDE).code != 0  # "no memory" to Claude
    # The person's log and Codex's own name the note the write disputed...
    assert codex in _named(run_cli, person, None)
    assert codex in _named(run_cli, person, CODEX)
    # ...Claude's does not, nor its state, though it reads the person's row.
    said = _named(run_cli, person, CLAUDE)
    assert person in said and codex not in said
    assert run_cli("--json", "audit", "verify").json()["ok"] is True
