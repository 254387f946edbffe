"""`remember --override-tombstone --reason`: a person brings forgotten content
back, as pending review, with an audit entry; nobody else can."""

from __future__ import annotations

import json
from pathlib import Path

from governance_support import CLAUDE, CODEX, audit_rows, query, remember, write
from helpers import CliRunner

CLAIM = "The staging cluster runs in eu-west-2"
SECRET = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def forget(run_cli: CliRunner, memory_id: str) -> None:
    done = run_cli("forget", memory_id, "--mode", "delete", "--reason", "moved regions")
    assert done.code == 0, done.err


def count(root: Path) -> int:
    return int(query(root, "SELECT count(*) FROM memories")[0][0])


def test_a_person_brings_forgotten_content_back_as_pending_then_approves(
    run_cli: CliRunner, project_root: Path
) -> None:
    old = remember(run_cli, CLAIM)
    forget(run_cli, old)
    stones = {r[0] for r in query(project_root, "SELECT content_hash FROM content_tombstones")}
    done = write(run_cli, "remember", CLAIM, "--override-tombstone", "--reason", "we moved back")
    assert done["created"] and done["trust"] == "pending"
    assert done["review_reason"].startswith(f"written over the tombstone of {old}")
    [entry] = audit_rows(project_root, "tombstone-override")
    detail = json.loads(entry["detail"])
    assert entry["target"] == done["id"] and entry["actor"] == "person"
    assert detail["reason"] == "we moved back" and detail["forgotten"] == [old]
    assert set(detail["overrides"]) <= stones and detail["overrides"]
    assert detail["kinds"] == ["forgotten"]
    # Not believed until reviewed; the tombstone still refuses anyone else.
    assert run_cli("--json", "list").json()["items"] == []
    again = run_cli("remember", CLAIM)
    assert again.code == 1 and "forgotten on" in again.err
    approved = write(run_cli, "review", "approve", done["id"])
    assert approved["trust"] == "accepted"
    assert {m["id"] for m in run_cli("--json", "list").json()["items"]} == {done["id"]}


def test_content_rejected_in_review_comes_back_the_same_way(run_cli: CliRunner) -> None:
    rejected = remember(run_cli, CLAIM, "--ring", "heartwood", environ=CODEX)
    write(run_cli, "review", "reject", rejected, "--reason", "not yet true")
    done = write(run_cli, "remember", CLAIM, "--override-tombstone", "--reason", "true now")
    assert done["trust"] == "pending"
    assert write(run_cli, "review", "approve", done["id"])["trust"] == "accepted"


def test_an_agent_may_not_override_a_tombstone(run_cli: CliRunner, project_root: Path) -> None:
    forget(run_cli, remember(run_cli, CLAIM))
    before = count(project_root)
    for environ in (CLAUDE, CODEX):
        refused = run_cli(
            "remember", CLAIM, "--override-tombstone", "--reason", "x", environ=environ
        )
        assert refused.code == 1 and refused.out == "" and refused.err.count("\n") == 1
        assert "person's decision" in refused.err
    assert count(project_root) == before
    assert audit_rows(project_root, "tombstone-override") == []


def test_an_override_needs_a_reason_the_guard_passes(
    run_cli: CliRunner, project_root: Path
) -> None:
    forget(run_cli, remember(run_cli, CLAIM))
    before = count(project_root)
    for reason in ((), ("--reason", "  "), ("--reason", f"the token is {SECRET}")):
        refused = run_cli("remember", CLAIM, "--override-tombstone", *reason)
        assert refused.code == 2 and refused.err.count("\n") == 1, refused.err
        assert SECRET not in refused.err
    assert count(project_root) == before
    # A reason without the flag is a mistake, not a quiet no-op.
    assert run_cli("remember", "Something new", "--reason", "why").code == 2


def test_without_the_flag_tombstoned_content_is_refused_as_before(
    run_cli: CliRunner, project_root: Path
) -> None:
    forget(run_cli, remember(run_cli, CLAIM))
    refused = run_cli("remember", CLAIM)
    assert refused.code == 1 and "forgotten on" in refused.err
    assert count(project_root) == 0


def test_overriding_what_was_never_forgotten_is_refused(
    run_cli: CliRunner, project_root: Path
) -> None:
    refused = run_cli("remember", CLAIM, "--override-tombstone", "--reason", "just in case")
    assert refused.code == 2 and "never forgotten" in refused.err
    assert count(project_root) == 0


def test_approval_lets_through_only_the_tombstones_the_person_overrode(
    run_cli: CliRunner, project_root: Path
) -> None:
    forget(run_cli, remember(run_cli, CLAIM))
    rule = "Ask the platform team before changing any region setting."
    done = write(
        run_cli, "remember", f"{CLAIM}. {rule}", "--override-tombstone", "--reason", "back"
    )
    # Its other sentence is forgotten too, after the override: nobody overrode that.
    forget(run_cli, remember(run_cli, rule))
    refused = run_cli("review", "approve", done["id"])
    assert refused.code == 1 and "forgotten on" in refused.err
