"""An expired note, deleted by `maintain --apply-expired`, is tombstoned as a
forget is (docs/RELIABILITY.md): the same words are refused, and the
refusal and maintain's report say how a person writes them again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import PERSON, CliRunner, make_memory
from governance_support import CLAUDE

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.write import pipeline

PAST = "2020-01-01T00:00:00.000000Z"
NOTE = "Temporary: the demo environment stays up until Friday"
AGAIN = "a person writes it again with `remember ... --override-tombstone --reason WHY`"


def test_an_expired_note_is_refused_with_the_way_back(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    old = pipeline.store_memory(
        store, make_memory(project_id, NOTE, retention="ephemeral", expires_at=PAST), PERSON
    ).id
    swept = run_cli("maintain", "--apply-expired")
    assert swept.code == 0, swept.err
    assert "deleted 1 expired memories" in swept.out
    tombstoned = "1 a person's, their content tombstoned (`remember --override-tombstone` writes"
    assert tombstoned in swept.out

    refused = run_cli("remember", NOTE)
    assert refused.code == 1
    assert "forgotten on" in refused.err and f"(as {old})" in refused.err
    assert AGAIN in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    # An agent is refused too: the way back is a person's.
    agent = run_cli("remember", NOTE, environ=CLAUDE)
    assert agent.code == 1 and f"(as {old})" in agent.err

    back = run_cli("--json", "remember", NOTE, "--override-tombstone", "--reason", "up again")
    assert back.code == 0, back.err
    new = json.loads(back.out)["id"]
    assert run_cli("review", "approve", new).code == 0
    found = json.loads(run_cli("--json", "recall", "demo environment").out)["items"]
    assert [i["id"] for i in found] == [new]


def test_a_rejection_names_no_way_back(run_cli: CliRunner) -> None:
    proposed = run_cli(
        "--json", "remember", "Deploys skip the canary on Fridays", "--scope", "project",
        environ=CLAUDE,
    )  # fmt: skip
    assert proposed.code == 0, proposed.err
    pid = json.loads(proposed.out)["id"]
    assert run_cli("review", "reject", pid, "--reason", "not ours").code == 0
    again = run_cli("remember", "Deploys skip the canary on Fridays", "--scope", "project",
                    environ=CLAUDE)  # fmt: skip
    assert again.code == 1
    assert "rejected in review" in again.err
    assert "--override-tombstone" not in again.err


def test_an_agents_expired_note_leaves_its_words_writable(
    run_cli: CliRunner, project_root: Path
) -> None:
    """An agent's note no person stands behind ends when its writer said:
    no tombstone, so the agent (or anyone) writes it again next week."""
    note = run_cli("--json", "remember", NOTE, "--expires-at", "2999-01-01T00:00:00Z",
                   environ=CLAUDE)  # fmt: skip
    assert note.code == 0, note.err
    with sqlite3.connect(project.store_path(project_root)) as conn:
        conn.execute("UPDATE memories SET expires_at = ? WHERE id = ?", (PAST, note.json()["id"]))
    swept = run_cli("maintain", "--apply-expired")
    assert swept.code == 0, swept.err
    assert "deleted 1 expired memories (reason: expired); 1 of them no person's" in swept.out
    assert "tombstoned" not in swept.out
    again = run_cli("--json", "remember", NOTE, environ=CLAUDE)
    assert again.code == 0, again.err
    assert again.json()["trust"] == "accepted"
