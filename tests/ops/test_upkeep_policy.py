"""Applied maintenance and repairs are protected actions in coordinated mode."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import CliRunner
from team_support import expire

from tree_ring.model import project


def enable(run_cli: CliRunner) -> str:
    result = run_cli("--json", "policy", "enable", "--coordinator", "lead")
    assert result.code == 0, result.err
    return result.json()["capability"]


def expire_one(run_cli: CliRunner, root: Path) -> str:
    memory_id = run_cli(
        "--json",
        "remember",
        "A flag for the staging rollout",
        "--expires-at",
        "2999-01-01",
        "--retention",
        "ephemeral",
    ).json()["id"]
    expire(root, memory_id)
    return memory_id


def count(root: Path) -> int:
    conn = sqlite3.connect(project.store_path(root))
    try:
        return conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    finally:
        conn.close()


def test_maintain_apply_needs_the_capability(run_cli: CliRunner, project_root: Path) -> None:
    expire_one(run_cli, project_root)
    token = enable(run_cli)
    denied = run_cli("maintain", "--apply-expired")
    assert denied.code != 0 and "denied" in denied.err
    assert count(project_root) == 1
    allowed = run_cli("maintain", "--apply-expired", environ={"TREE_RING_COORDINATOR_TOKEN": token})
    assert allowed.code == 0, allowed.err
    assert count(project_root) == 0
    decisions = run_cli("--json", "policy", "audit").json()["items"]
    maintain = [(d["action"], d["decision"]) for d in decisions if d["action"] == "maintain.apply"]
    assert maintain == [("maintain.apply", "deny"), ("maintain.apply", "allow")]


def test_report_only_maintenance_needs_nothing(run_cli: CliRunner, project_root: Path) -> None:
    expire_one(run_cli, project_root)
    enable(run_cli)
    assert run_cli("maintain").code == 0
    assert count(project_root) == 1


def test_doctor_repair_needs_the_capability(run_cli: CliRunner, project_root: Path) -> None:
    run_cli("remember", "A memory whose index entry goes missing")
    token = enable(run_cli)
    conn = sqlite3.connect(project.store_path(project_root))
    conn.execute("INSERT INTO memory_fts(memory_fts) VALUES ('delete-all')")
    conn.commit()
    conn.close()
    denied = run_cli("doctor", "--repair")
    assert denied.code != 0 and "denied" in denied.err
    repaired = run_cli("doctor", "--repair", environ={"TREE_RING_COORDINATOR_TOKEN": token})
    assert repaired.code == 0, repaired.out + repaired.err
    assert "memory" in run_cli("recall", "index entry").out
