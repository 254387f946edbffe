"""An operation id is a key within (project, workflow, agent): the same id under
two workflows is two operations, two claims and two memories."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import CliRunner

from tree_ring.model import project

BASE = ("--operation-id", "op-1", "--agent-profile", "builder")
IN_WORKFLOW = ("--scope", "workflow")
MINE = ("--scope", "agent")


def claims(root: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(project.store_path(root))
    try:
        found = conn.execute("SELECT claim, memory_id FROM operation_claims ORDER BY claim")
        return found.fetchall()
    finally:
        conn.close()


def remember(run_cli: CliRunner, summary: str, *flags: str) -> dict[str, object]:
    result = run_cli("--json", "remember", summary, *BASE, *flags)
    assert result.code == 0, result.err
    data: dict[str, object] = result.json()
    return data


@pytest.mark.parametrize(
    "second",
    ["Deploys go through the staging cluster", "Rollbacks go through the staging cluster"],
    ids=["same payload", "different payload"],
)
def test_one_operation_id_under_two_workflows_is_two_claims(
    run_cli: CliRunner, project_root: Path, second: str
) -> None:
    # Each in its workflow's own scope: the same words in one place are one
    # memory whatever the operation (`pipeline.same_memory`).
    first = remember(
        run_cli, "Deploys go through the staging cluster", "--workflow-id", "wf-a", *IN_WORKFLOW
    )
    other = remember(run_cli, second, "--workflow-id", "wf-b", *IN_WORKFLOW)
    assert first["created"] is True and other["created"] is True
    assert first["id"] != other["id"]
    stored = claims(project_root)
    assert {memory_id for _, memory_id in stored} == {first["id"], other["id"]}
    assert len({claim for claim, _ in stored}) == 2
    # Within one workflow the key still holds: a retry returns the first id,
    # a different payload is refused.
    retry = remember(
        run_cli, "Deploys go through the staging cluster", "--workflow-id", "wf-a", *IN_WORKFLOW
    )
    assert (retry["id"], retry["created"]) == (first["id"], False)
    clash = run_cli("remember", "Something else", *BASE, "--workflow-id", "wf-a")
    assert clash.code != 0 and "op-1" in clash.err
    assert len(claims(project_root)) == 2


def test_one_operation_id_under_two_agents_is_two_claims(
    run_cli: CliRunner, project_root: Path
) -> None:
    first = run_cli("--json", "remember", "Cache the wheels", "--operation-id", "op-9",
                    "--agent-profile", "one", "--workflow-id", "wf", *MINE)  # fmt: skip
    other = run_cli("--json", "remember", "Cache the wheels", "--operation-id", "op-9",
                    "--agent-profile", "two", "--workflow-id", "wf", *MINE)  # fmt: skip
    assert first.code == 0 and other.code == 0, first.err + other.err
    assert first.json()["id"] != other.json()["id"]
    assert len({claim for claim, _ in claims(project_root)}) == 2
