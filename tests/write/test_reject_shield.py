"""Only a person's memory that holds now keeps a rejected claim writable.

A person's memory that ended (its validity closed in the past) or expired
says the claim held then: rejecting an agent's proposal of the same words
tombstones them, so the agent can neither note the claim again nor propose
it again. A person's live memory of the words still keeps them writable.
"""

from __future__ import annotations

import json
from pathlib import Path

from governance_support import CLAUDE, remember, write
from helpers import CliRunner

TEXT = "Releases are cut from the develop branch"
TOMBSTONED = "its content is tombstoned and will not be stored again"
HELD = "an accepted memory holds the same text, so it stays writable"


def reject_proposal(run_cli: CliRunner) -> str:
    """An agent proposes TEXT to the project and a person rejects it: the outcome line."""
    proposed = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)["id"]
    done = run_cli("review", "reject", proposed, "--reason", "not any more")
    assert done.code == 0, done.err
    [line] = done.out.splitlines()
    return line.split("; ", 1)[1]


def agent_may_write(run_cli: CliRunner, *args: str) -> bool:
    done = run_cli("remember", TEXT, *args, environ=CLAUDE)
    assert done.code == 0 or "rejected in review" in done.err, done.err
    return done.code == 0


def test_an_ended_memory_of_a_person_shields_nothing(run_cli: CliRunner) -> None:
    remember(run_cli, TEXT, "--valid-from", "2020-01-01", "--valid-to", "2024-01-01")
    assert reject_proposal(run_cli) == TOMBSTONED
    assert not agent_may_write(run_cli)
    assert not agent_may_write(run_cli, "--scope", "project")


def test_an_expired_memory_of_a_person_shields_nothing(
    run_cli: CliRunner, project_root: Path
) -> None:
    # Imported already expired: a write refuses an expiry in the past.
    lines = project_root / "expired.jsonl"
    row = {"summary": TEXT, "event_type": "note", "expires_at": "2020-01-01T00:00:00Z"}
    lines.write_text(json.dumps(row) + "\n")
    imported = run_cli("import", str(lines))
    assert imported.code == 0, imported.err
    assert reject_proposal(run_cli) == TOMBSTONED
    assert not agent_may_write(run_cli)
    assert not agent_may_write(run_cli, "--scope", "project")


def test_a_memory_whose_validity_has_not_begun_shields_nothing(run_cli: CliRunner) -> None:
    remember(run_cli, TEXT, "--valid-from", "2999-01-01")
    assert reject_proposal(run_cli) == TOMBSTONED
    assert not agent_may_write(run_cli)


def test_a_live_memory_of_a_person_keeps_the_claim_writable(run_cli: CliRunner) -> None:
    remember(run_cli, TEXT, "--valid-from", "2020-01-01")
    assert reject_proposal(run_cli) == HELD
    assert agent_may_write(run_cli)
