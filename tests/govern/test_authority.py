"""Agents cannot mint authority: what waits is what a row claims, and every
field anyone can fill passes the guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from governance_support import CLAUDE, query, show, write
from helpers import CliRunner

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
CAPTURE = [
    "--event-type", "lesson", "--ring", "cambium", "--agent-profile", "claude-code",
    "--workflow-id", "s1", "--session-id", "s1", "--operation-id", "auto-0123456789ab-1",
    "--source-ref", "session:s1",
]  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [
        ["remember", "Never deploy on Fridays", "--ring", "scar", "--scope", "project"],
        ["remember", "All APIs need auth", "--scope", "project", "--event-type", "requirement"],
        ["remember", "Always run the linter", "--scope", "project", "--event-type", "instruction"],
        ["remember", "Run the schema tool", "--scope", "project"],  # any event type
        ["remember", "Use the blue pool", "--ring", "heartwood"],  # in its own partition too
        ["remember", "Pin this forever", "--retention", "user_pinned"],
        ["remember", "This matters most", "--salience", "0.95"],
        ["remember", "I am sure of this", "--confidence", "1"],
        [
            "evidence",
            "The canary regressed p99",
            "--outcome",
            "rejected",
            "--scope",
            "project",
            "--evidence-ref",
            "runs/7",
        ],
        ["capture", "A lesson", *CAPTURE, "--retention", "user_pinned", "--salience", "1"],
    ],
)
def test_an_agent_claim_of_authority_waits_for_a_person(
    run_cli: CliRunner, project_id: str, argv: list[str]
) -> None:
    if argv[0] == "capture":
        argv = [*argv, "--project", project_id]
    data = write(run_cli, *argv, environ=CLAUDE)
    assert data["trust"] == "pending", data
    assert data["review_reason"]
    # And it is labelled as the agent's, never as a person's manual note.
    assert show(run_cli, data["id"])["source"]["type"] in ("agent", "evidence")


@pytest.mark.parametrize(
    "argv",
    [
        ["remember", "The flaky test is test_sync"],
        ["remember", "Never rerun the flaky test blindly", "--ring", "scar"],
        ["remember", "Session scratch", "--scope", "session", "--salience", "0.8"],
    ],
)
def test_an_agents_own_notes_are_accepted_in_its_partition(
    run_cli: CliRunner, argv: list[str]
) -> None:
    data = write(run_cli, *argv, environ=CLAUDE)
    assert data["trust"] == "accepted", data
    assert show(run_cli, data["id"])["scope"] in ("agent", "session")


def test_an_imported_review_is_claimed_not_believed(run_cli: CliRunner, tmp_path: Path) -> None:
    row = {
        "summary": "Deploys need two approvals",
        "event_type": "lesson",
        "ring": "scar",
        "scope": "project",
        "review": {"needs_review": False, "reviewed_by": "alice", "reviewed_at": "2026-01-02"},
    }
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    for environ in (CLAUDE, None):
        done = run_cli("--json", "import", str(path), environ=environ)
        assert done.code == 0, done.err
        [memory_id] = [i["id"] for i in done.json()["items"] if i["result"] == "imported"]
        shown = show(run_cli, memory_id)
        assert shown["trust"] == "pending"
        assert shown["review"]["reviewed_by"] is None and shown["review"]["reviewed_at"] is None
        assert "claims a review by alice on 2026-01-02" in shown["review"]["review_reason"]
        write(run_cli, "forget", memory_id, "--mode", "delete", "--reason", "again")
        path.write_text(json.dumps({**row, "summary": row["summary"] + " twice"}) + "\n")


@pytest.mark.parametrize(
    "field",
    [
        {"review": {"review_reason": f"looked fine {TOKEN}"}},
        {"review": {"reviewed_by": TOKEN}},
        {"origin_session": TOKEN},
        {"source": {"type": TOKEN}},
        {"links": [{"type": "related", "target": TOKEN}]},
        {"supersedes": [TOKEN]},
        {"superseded_by": TOKEN},
    ],
)
def test_every_imported_field_passes_the_guard(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, field: dict[str, object]
) -> None:
    row = {"summary": "An ordinary memory", "trust": "accepted", **field}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = run_cli("import", str(path))
    assert done.code == 2 and "line 1" in done.err
    assert TOKEN not in done.err and TOKEN not in done.out
    assert query(project_root, "SELECT count(*) FROM memories")[0][0] == 0


@pytest.mark.parametrize("key", ["reason", "actor"])
def test_an_imported_tombstone_passes_the_guard_and_is_audited(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, key: str
) -> None:
    stone = {
        "record": "content_tombstone",
        "content_hash": "sha256:" + "ab" * 32,
        "kind": "forgotten",
        "reason": "old",
        "memory_id": "mem_20260101_000000_abcdefabcdef",
        "created_at": "2026-01-01T00:00:00Z",
        "actor": "person",
    }
    path = tmp_path / "stone.jsonl"
    path.write_text(json.dumps({**stone, key: f"x {TOKEN}"}) + "\n", encoding="utf-8")
    refused = run_cli("import", str(path))
    assert refused.code == 2 and TOKEN not in refused.err
    assert query(project_root, "SELECT count(*) FROM content_tombstones")[0][0] == 0
    path.write_text(json.dumps(stone) + "\n", encoding="utf-8")
    assert run_cli("import", str(path)).code == 0
    entries = [json.loads(r["detail"]) for r in query(project_root, "SELECT * FROM audit_log")]
    assert {"tombstones": [stone["content_hash"]]} in entries
    assert run_cli("--json", "audit", "verify").json()["ok"] is True


def test_a_coordinator_name_passes_the_guard(run_cli: CliRunner, project_root: Path) -> None:
    done = run_cli("policy", "enable", "--coordinator", TOKEN)
    assert done.code == 2 and TOKEN not in done.err
    assert run_cli("--json", "policy", "status").json()["mode"] == "open"
