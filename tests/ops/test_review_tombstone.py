"""A pending memory cannot be approved into content that was forgotten meanwhile."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CliRunner
from governance_support import CLAUDE, query, remember, show, write

CLAIM = "Vendor the payment SDK under third_party"


def test_approving_content_forgotten_under_another_id_is_refused(
    run_cli: CliRunner, project_root: Path
) -> None:
    # An imported heartwood waits for review; meanwhile a person stores the
    # same claim under its own id and forgets it, which tombstones the claim.
    # (Not an agent's write: the forget would take that with it.)
    lines = project_root / "heartwood.jsonl"
    row = {"summary": CLAIM, "event_type": "decision", "ring": "heartwood", "scope": "project"}
    lines.write_text(json.dumps(row) + "\n")
    imported = run_cli("import", str(lines))
    assert imported.code == 0, imported.err
    [waiting] = [dict(r) for r in query(project_root, "SELECT id, trust FROM memories")]
    assert waiting["trust"] == "pending"
    twin = remember(run_cli, CLAIM, "--details", "Agreed in the platform review")
    assert twin != waiting["id"]
    forgot = run_cli("forget", twin, "--mode", "delete", "--reason", "we dropped the SDK")
    assert forgot.code == 0, forgot.err

    approved = run_cli("review", "approve", waiting["id"])

    assert approved.code != 0
    assert "forgotten" in approved.err and twin in approved.err
    # The stored reason is never echoed (it may be anyone's text); the error
    # points to where a person reads it.
    assert "we dropped the SDK" not in approved.err
    assert f"tree-ring audit --target {twin}" in approved.err
    assert len(approved.err.strip().splitlines()) == 1
    row = show(run_cli, waiting["id"])
    assert (row["trust"], row["review"]["reviewed_by"]) == ("pending", None)
    reviews = query(project_root, "SELECT target FROM audit_log WHERE action = 'review'")
    assert [r["target"] for r in reviews] == []


def test_approving_content_nobody_forgot_goes_through(run_cli: CliRunner) -> None:
    """The control: the same steps without the forget approve the row."""
    waiting = write(
        run_cli, "remember", CLAIM, "--ring", "heartwood", "--scope", "project", environ=CLAUDE
    )
    remember(run_cli, "Another statement entirely about the build cache")
    approved = run_cli("review", "approve", waiting["id"])
    assert approved.code == 0, approved.err
    assert show(run_cli, waiting["id"])["trust"] == "accepted"
