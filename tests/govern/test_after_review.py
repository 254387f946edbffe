"""What an agent may still do to a row once a person has decided on it, and
what a person's decision may still reach: each rule here once survived a
planted one-line bug."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from governance_support import CLAUDE, query, remember, write
from helpers import CliRunner, make_memory

from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin
from tree_ring.write import correct


def row(root: Path, memory_id: str) -> dict[str, object]:
    (found,) = query(
        root, "SELECT trust, retired_at, reviewed_by FROM memories WHERE id = ?", (memory_id,)
    )
    return dict(found)


@pytest.fixture
def approved(run_cli: CliRunner, project_root: Path) -> str:
    """An agent's note in its own partition that waited (salience above 0.8),
    then a person approved: the only thing that sets it apart from one the
    agent may retire is the person's review."""
    memory_id = remember(
        run_cli, "Deploys go through the staging gate first.", "--salience", "0.9", environ=CLAUDE
    )
    assert row(project_root, memory_id)["trust"] == "pending"
    write(run_cli, "review", "approve", memory_id)
    assert row(project_root, memory_id)["reviewed_by"] == "person"
    return memory_id


def test_an_agent_cannot_supersede_its_own_row_once_a_person_approved_it(
    run_cli: CliRunner, project_root: Path, approved: str
) -> None:
    newer = remember(run_cli, "Deploys now go through the canary gate.", environ=CLAUDE)
    refused = run_cli("supersede", approved, newer, "--reason", "changed", environ=CLAUDE)
    assert refused.code != 0 and "person's decision" in refused.err
    assert row(project_root, approved)["retired_at"] is None
    # Before the person's review it could have: the same row, unreviewed.
    own = remember(run_cli, "Deploys wait for the nightly build.", environ=CLAUDE)
    write(run_cli, "supersede", own, newer, "--reason", "changed", environ=CLAUDE)
    assert row(project_root, own)["retired_at"] is not None


def test_an_agent_forgetting_its_own_approved_row_asks_a_person(
    run_cli: CliRunner, project_root: Path, approved: str
) -> None:
    asked = write(
        run_cli, "forget", approved, "--mode", "delete", "--reason", "old", environ=CLAUDE
    )
    assert asked["request"] is not None
    assert row(project_root, approved)["trust"] == "accepted"


def test_review_approve_refuses_a_retired_row(run_cli: CliRunner, project_root: Path) -> None:
    waiting = remember(
        run_cli, "Release notes come from on-call.", "--salience", "0.9", environ=CLAUDE
    )
    newer = remember(run_cli, "Release notes come from the captain.", environ=CLAUDE)
    write(run_cli, "supersede", waiting, newer, "--reason", "changed", environ=CLAUDE)
    before = row(project_root, waiting)
    assert before["trust"] == "pending" and before["retired_at"] is not None
    refused = run_cli("review", "approve", waiting)
    assert refused.code != 0 and "retired" in refused.err and refused.err.count("\n") == 1
    assert row(project_root, waiting) == before
    # --all passes it by: a retired row is not waiting for anyone.
    done = write(run_cli, "review", "approve", "--all")
    assert waiting not in {d["id"] for d in done["items"]}
    assert row(project_root, waiting) == before


def test_approve_all_with_a_scope_takes_exactly_that_scopes_pending_rows(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    lines = [
        {
            "summary": f"Rule {n} of the {scope} scope holds",
            "event_type": "decision",
            "scope": scope,
        }
        for scope in ("project", "tool")
        for n in range(3)
    ]
    path = tmp_path / "rules.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    write(run_cli, "import", str(path))
    sql = "SELECT id, scope FROM memories WHERE trust = 'pending'"
    pending = {r[0]: r[1] for r in query(project_root, sql)}
    project_rows = {i for i, scope in pending.items() if scope == "project"}
    tool_rows = {i for i, scope in pending.items() if scope == "tool"}
    assert len(project_rows) == len(tool_rows) == 3
    done = write(run_cli, "review", "approve", "--all", "--scope", "project")
    assert {d["id"] for d in done["items"]} == project_rows
    still = {r[0] for r in query(project_root, "SELECT id FROM memories WHERE trust = 'pending'")}
    assert still == tool_rows


@pytest.mark.parametrize(
    ("writer", "forgetter", "own"),
    [
        ("claude-code", "claude-code", True),
        ("claude-code:Explore:a1", "claude-code:Explore:a1", True),
        ("claude-code:Explore:a1", "claude-code", False),  # the parent, a subagent's partition
        ("claude-code:Explore:a1", "claude-code:Explore:a", False),  # a prefix of it
        ("claude-code", "claude-code:Explore:a1", False),  # a subagent, its parent's
        ("claude-code:Explore:a1", "claude-code:Plan:b2", False),  # a sibling's
    ],
)
def test_an_agent_forgets_directly_only_in_its_own_profiles_partition(
    project_id: str, writer: str, forgetter: str, own: bool
) -> None:
    memory = make_memory(project_id, "The cache sits in tmp.", scope="agent").replace(
        origin="claude-code", agent_profile=writer
    )
    actor = Actor(forgetter, Origin("claude-code", "s1"))
    assert correct.own_partition(memory, actor) is own
