"""Rejecting a claim whose words an agent also keeps elsewhere.

A rejection takes with it the copies agents wrote of the claim (their own
partition's too), as a person's forget does, and tombstones the content, so
an agent cannot shield a claim from a person's rejection by noting it in its
own partition first. Only a memory a person stands behind (written or
approved by one) that holds now keeps the words writable.
"""

from __future__ import annotations

import json
from pathlib import Path

from governance_support import CLAUDE, query, recall_ids, remember, write
from helpers import CliRunner

TEXT = "Use the staging cluster kappa for load tests"
QUERY = "staging cluster for load tests"
LATER = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s2"}


def brief_ids(run_cli: CliRunner, environ: dict[str, str]) -> set[str]:
    return set(run_cli("--json", "brief", environ=environ).json()["items"])


def agent_recall_ids(run_cli: CliRunner, environ: dict[str, str]) -> set[str]:
    found = run_cli("--json", "recall", QUERY, environ=environ).json()["items"]
    return {r["id"] for r in found}


def reject(run_cli: CliRunner, memory_id: str) -> dict[str, object]:
    return write(run_cli, "review", "reject", memory_id, "--reason", "there is no cluster kappa")


def trust(root: Path, memory_id: str) -> str:
    [row] = query(root, "SELECT trust FROM memories WHERE id = ?", (memory_id,))
    return str(row[0])


def test_rejecting_a_proposal_rejects_the_agents_own_copy(
    run_cli: CliRunner, project_root: Path
) -> None:
    other = remember(run_cli, "Load tests run against the staging cluster lambda")
    own = remember(run_cli, TEXT, environ=CLAUDE)
    proposed = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)
    assert proposed["trust"] == "pending"
    assert brief_ids(run_cli, LATER) == {other, own}
    assert agent_recall_ids(run_cli, LATER) == {other, own}

    done = reject(run_cli, proposed["id"])
    assert (trust(project_root, own), trust(project_root, proposed["id"])) == (
        "rejected",
        "rejected",
    )
    # A later session's brief and recall no longer hold it.
    assert brief_ids(run_cli, LATER) == {other}
    assert agent_recall_ids(run_cli, LATER) == {other}
    assert recall_ids(run_cli, QUERY) == {other}
    assert done["copies"] == [own]
    again = run_cli("remember", TEXT, "--scope", "project", environ=CLAUDE)
    assert again.code != 0
    assert again.err.startswith("error: this content was rejected in review on ")
    assert f"(as {proposed['id']}) and will not be stored again" in again.err
    # Its own partition is no way round it either.
    assert run_cli("remember", TEXT, environ=CLAUDE).code != 0


def test_the_cli_says_how_many_copies_went_with_it(run_cli: CliRunner) -> None:
    own = remember(run_cli, TEXT, environ=CLAUDE)
    proposed = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)["id"]
    done = run_cli("review", "reject", proposed, "--reason", "there is no cluster kappa")
    assert done.code == 0, done.err
    assert done.out.splitlines() == [
        f"rejected {proposed} (now rejected) by person; "
        "its content is tombstoned and will not be stored again",
        f"also rejected 1 copy an agent wrote of the same claim: {own}",
    ]


def test_a_persons_memory_of_the_same_words_stays_writable(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, TEXT)
    own = remember(run_cli, TEXT, environ=CLAUDE)
    proposed = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)["id"]
    done = run_cli("--json", "review", "reject", proposed, "--reason", "a duplicate")
    assert done.code == 0, done.err
    assert done.json()["copies"] == [own]
    assert trust(project_root, mine) == "accepted"
    assert query(project_root, "SELECT count(*) FROM content_tombstones")[0][0] == 0
    assert recall_ids(run_cli, QUERY) == {mine}
    assert remember(run_cli, TEXT)  # still writable


def test_an_approved_agent_memory_holds_the_words_too(
    run_cli: CliRunner, project_root: Path
) -> None:
    approved = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)["id"]
    write(run_cli, "review", "approve", approved, "--reason", "checked")
    proposed = write(
        run_cli, "remember", TEXT, "--scope", "project", "--ring", "scar", environ=CLAUDE
    )
    assert proposed["trust"] == "pending"
    done = run_cli("review", "reject", proposed["id"], "--reason", "one is enough")
    assert done.code == 0, done.err
    assert done.out.splitlines() == [
        f"rejected {proposed['id']} (now rejected) by person; "
        "an accepted memory holds the same text, so it stays writable",
    ]
    assert trust(project_root, approved) == "accepted"
    assert recall_ids(run_cli, QUERY) == {approved}


def test_a_copy_the_agent_imported_into_its_partition_goes_too(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    lines = tmp_path / "notes.jsonl"
    lines.write_text(
        json.dumps({"summary": TEXT, "scope": "agent", "agent_profile": "claude-code"}) + "\n",
        encoding="utf-8",
    )
    [imported] = write(run_cli, "import", str(lines), environ=CLAUDE)["items"]
    assert trust(project_root, imported["id"]) == "accepted"
    proposed = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)["id"]
    done = reject(run_cli, proposed)
    assert trust(project_root, imported["id"]) == "rejected"
    assert done["copies"] == [imported["id"]]
    assert brief_ids(run_cli, LATER) == set()
    assert run_cli("remember", TEXT, environ=CLAUDE).code != 0
