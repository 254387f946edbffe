"""Trust states, the review queue, and agents that cannot mint authority."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner, make_memory
from governance_support import (
    CLAUDE,
    CODEX,
    TOKEN_VAR,
    audit_rows,
    brief_ids,
    checked_detail,
    enable,
    live_ids,
    policy_rows,
    query,
    recall_ids,
    remember,
    show,
    write,
)

from tree_ring.model.actor import Actor
from tree_ring.model.errors import Denied
from tree_ring.model.identity import Identity, Origin
from tree_ring.read import brief
from tree_ring.review import queue as review
from tree_ring.store.db import Store
from tree_ring.write import pipeline, verbs

# An agent's write goes to its own partition unless it names a scope; these
# name the project scope so a person's reads (brief, recall) could see them.
SHARED_HEARTWOOD = ("--ring", "heartwood", "--scope", "project")

# -- what lands pending ------------------------------------------------------


def test_a_persons_own_remember_is_accepted(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "Deploys go through the staging cluster", "--ring", "heartwood")
    row = show(run_cli, memory_id)
    assert (row["trust"], row["origin"], row["origin_session"]) == ("accepted", "person", None)
    assert memory_id in brief_ids(run_cli)


def test_agent_heartwood_lands_pending_with_origin_and_session(
    run_cli: CliRunner, project_root: Path
) -> None:
    data = write(
        run_cli, "remember", "Always vendor the SDK", "--ring", "heartwood", environ=CLAUDE
    )
    assert data["trust"] == "pending"
    assert "heartwood written by claude-code" in data["review_reason"]
    row = show(run_cli, data["id"])
    assert (row["origin"], row["origin_session"]) == ("claude-code", "s1")
    assert row["review"]["needs_review"] is True
    created = [r for r in audit_rows(project_root, "create") if r["target"] == data["id"]]
    assert [(r["origin"], r["session"], r["actor"]) for r in created] == [
        ("claude-code", "s1", "claude-code")
    ]
    assert json.loads(created[0]["detail"])["trust"] == "pending"


def test_agent_evidence_promoted_lands_pending(run_cli: CliRunner, project_root: Path) -> None:
    data = write(
        run_cli,
        "evidence",
        "Snapshot invalidation fixed stale chat state",
        "--outcome",
        "promoted",
        "--evidence-ref",
        "evals/run-42",
        environ=CODEX,
    )
    row = show(run_cli, data["id"])
    assert (row["ring"], row["trust"]) == ("heartwood", "pending")
    assert (row["origin"], row["origin_session"]) == ("codex", "cx-7")
    entry = next(r for r in audit_rows(project_root, "create") if r["target"] == data["id"])
    assert (entry["origin"], entry["session"]) == ("codex", "cx-7")


def test_agent_project_rule_lands_pending_but_its_own_notes_do_not(run_cli: CliRunner) -> None:
    rule = write(
        run_cli,
        "remember",
        "Use pnpm, never npm",
        "--scope",
        "project",
        "--event-type",
        "decision",
        environ=CLAUDE,
    )
    note = write(run_cli, "remember", "The flaky test is test_sync", environ=CLAUDE)
    assert rule["trust"] == "pending"
    assert "written by claude-code into the shared project scope" in rule["review_reason"]
    assert note["trust"] == "accepted"
    assert show(run_cli, note["id"])["scope"] == "agent"


def test_imported_rules_wait_for_review(run_cli: CliRunner, tmp_path: Path) -> None:
    line = {"summary": "Release on Tuesdays only", "event_type": "decision", "scope": "project"}
    path = tmp_path / "rules.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = write(run_cli, "import", str(path))
    assert done["pending"] == 1
    assert (
        show(run_cli, next(i["id"] for i in done["items"] if i["result"] == "imported"))["trust"]
        == "pending"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--ring", "heartwood"), "with ring"),
        (("--scope", "project"), "agent scope only"),
        (("--scope", "global"), "agent scope only"),
        (("--event-type", "rule"), "capture takes event types"),
    ],
)
def test_capture_can_never_write_heartwood_or_shared_scope(
    run_cli: CliRunner, project_root: Path, project_id: str, change: tuple[str, str], message: str
) -> None:
    argv = ["capture", "Never skip the migration check", "--event-type", "lesson"]
    argv += ["--project", project_id, "--agent-profile", "claude-code", "--workflow-id", "s1"]
    argv += [
        "--session-id",
        "s1",
        "--operation-id",
        "auto-0123456789ab-1",
        "--source-ref",
        "transcript:1",
    ]
    argv += list(change)
    if change[0] == "--event-type":
        argv.remove("lesson")
        argv.remove("--event-type")
    result = run_cli(*argv, environ=CLAUDE)
    assert result.code == 2
    assert message in result.err
    assert query(project_root, "SELECT count(*) FROM memories")[0][0] == 0


def test_no_capture_pair_is_heartwood() -> None:
    assert "heartwood" not in verbs.CAPTURE_PAIRS.values()


def test_a_coordinator_capability_lets_agent_heartwood_be_accepted(run_cli: CliRunner) -> None:
    token = enable(run_cli)
    data = write(
        run_cli,
        "remember",
        "The schema is the source of truth for the API",
        "--ring",
        "heartwood",
        environ={**CLAUDE, TOKEN_VAR: token},
    )
    assert data["trust"] == "accepted"


def test_an_agent_named_coordinator_is_not_the_coordinator(run_cli: CliRunner) -> None:
    # An agent's profile is its harness's: naming another is refused, nothing stored.
    named = ("remember", "Ship without review", "--ring", "heartwood")
    refused = run_cli(*named, "--agent-profile", "coordinator", environ=CLAUDE)
    assert refused.code == 2 and "harness" in refused.err
    assert run_cli("--json", "list", "--include-unreviewed").json()["items"] == []
    assert write(run_cli, *named, environ=CLAUDE)["trust"] == "pending"


def test_a_token_in_open_mode_is_no_capability(run_cli: CliRunner) -> None:
    data = write(
        run_cli,
        "remember",
        "Trust me",
        "--ring",
        "heartwood",
        environ={**CLAUDE, TOKEN_VAR: "trc_" + "0" * 64},
    )
    assert data["trust"] == "pending"


# -- the queue ----------------------------------------------------------------


def test_pending_rows_never_reach_the_brief_until_approved(
    store: Store, project_id: str, identity: Identity
) -> None:
    agent = Actor("claude-code", Origin("claude-code", "s1"))
    with store.write() as conn:
        accepted = pipeline.insert_prepared(conn, make_memory(project_id, "Accepted fact"), PERSON)
        pending = pipeline.insert_prepared(
            conn, make_memory(project_id, "Agent heartwood", ring="heartwood"), agent
        )
    assert pending.trust == "pending"
    assert set(brief.build_brief(store, identity).ids) == {accepted.id}
    review.approve(store, pending.id, actor=PERSON)
    assert set(brief.build_brief(store, identity).ids) == {accepted.id, pending.id}


def test_review_list_is_oldest_first_and_says_why(run_cli: CliRunner) -> None:
    first = remember(run_cli, "Pin the toolchain", "--ring", "heartwood", environ=CLAUDE)
    second = remember(
        run_cli, "Prefer small PRs", "--scope", "project", "--event-type", "rule", environ=CODEX
    )
    remember(run_cli, "A person's own note")
    listed = run_cli("--json", "review", "list").json()
    assert [w["id"] for w in listed["items"]] == [first, second]
    assert listed["total"] == 2
    assert "heartwood written by claude-code" in listed["items"][0]["review_reason"]
    assert "written by codex into the shared project scope" in listed["items"][1]["review_reason"]
    text = run_cli("review", "list").out
    assert "review queue: 2 waiting" in text
    assert f"{first}  [PENDING]" in text and "why: heartwood written by claude-code" in text
    # All shown: no paging line. One of two: the line says how to see the rest.
    assert "(--limit shows more)" not in text
    paged = run_cli("review", "list", "--limit", "1").out
    assert "showing 1 of 2 waiting (--limit shows more)" in paged
    assert f"{first}  [PENDING]" in paged and f"{second}  [PENDING]" not in paged


def test_recall_shows_pending_only_when_asked_and_labels_it(run_cli: CliRunner) -> None:
    memory_id = remember(
        run_cli, "Rotate the signing keys monthly", *SHARED_HEARTWOOD, environ=CLAUDE
    )
    assert memory_id not in recall_ids(run_cli, "signing keys")
    found = run_cli("--json", "recall", "signing keys", "--include-unreviewed").json()["items"]
    assert [(r["id"], r["label"]) for r in found] == [(memory_id, "PENDING")]


def test_approve_records_reviewer_time_and_audit(run_cli: CliRunner, project_root: Path) -> None:
    memory_id = remember(run_cli, "Use the monorepo layout", *SHARED_HEARTWOOD, environ=CLAUDE)
    done = write(run_cli, "review", "approve", memory_id, "--reason", "matches the ADR")
    assert (done["decision"], done["trust"], done["reviewed_by"]) == (
        "approve",
        "accepted",
        "person",
    )
    row = show(run_cli, memory_id)
    assert row["trust"] == "accepted"
    assert row["review"]["reviewed_by"] == "person"
    assert row["review"]["review_reason"] == "matches the ADR"
    assert row["review"]["reviewed_at"] == done["reviewed_at"]
    entry = [r for r in audit_rows(project_root, "review") if r["target"] == memory_id]
    assert len(entry) == 1
    detail = checked_detail(project_root, entry[0])
    assert detail == {
        "decision": "approve",
        "from": "pending",
        "to": "accepted",
        "reason": "matches the ADR",
    }
    assert entry[0]["origin"] == "person"
    assert memory_id in brief_ids(run_cli)
    again = run_cli("review", "approve", memory_id)
    assert again.code == 1 and "already accepted" in again.err


def test_an_approved_replacement_of_shared_memory_is_shared_where_it_was(
    run_cli: CliRunner,
) -> None:
    """An agent corrects a project memory in a note of its own partition; the
    person's approval retires the project memory, so the correction takes its
    scope: every harness's sessions read it, as they read what it replaced."""
    old = remember(run_cli, "Login tests need a fresh Redis server")
    fixed = remember(
        run_cli, "Login tests use fakeredis; no Redis server is needed",
        "--event-type", "correction", "--supersedes", old, environ=CLAUDE,
    )  # fmt: skip
    assert show(run_cli, fixed)["scope"] == "agent"
    done = run_cli("review", "approve", fixed, "--reason", "fakeredis is in conftest")
    assert done.code == 0, done.err
    assert f"it supersedes {old} and takes its project scope" in done.out
    row = show(run_cli, fixed)
    assert (row["scope"], row["trust"]) == ("project", "accepted")
    assert brief_ids(run_cli) == {fixed}
    found = run_cli("--json", "recall", "redis", environ=CODEX).json()["items"]
    assert {r["id"] for r in found} == {fixed}
    # Approving a batch says it too, before (dry run) and after.
    older = remember(run_cli, "Staging resets every Sunday night")
    newer = remember(
        run_cli, "Staging resets every Saturday night", "--supersedes", older, environ=CLAUDE
    )
    said = f"  {newer}; it takes the project scope of what it replaces"
    dry = run_cli("review", "approve", "--all", "--scope", "agent", "--dry-run")
    assert said in dry.out.splitlines() and show(run_cli, newer)["scope"] == "agent"
    done = run_cli("--json", "review", "approve", "--all", "--scope", "agent")
    assert [d["shared"] for d in done.json()["items"]] == ["project"]
    assert show(run_cli, newer)["scope"] == "project"
    # A replacement of the agent's own note stays in its partition.
    mine = remember(run_cli, "Cache warmup runs nightly", environ=CLAUDE)
    again = remember(
        run_cli, "Cache warmup runs hourly", "--supersedes", mine, "--scope", "session",
        environ=CLAUDE,
    )  # fmt: skip
    assert show(run_cli, again)["scope"] == "session"


def test_reject_retires_and_tombstones_the_claim(run_cli: CliRunner, project_root: Path) -> None:
    memory_id = remember(
        run_cli, "Skip the integration tests", "--ring", "heartwood", environ=CLAUDE
    )
    done = write(run_cli, "review", "reject", memory_id, "--reason", "the tests catch real bugs")
    assert done["trust"] == "rejected"
    row = show(run_cli, memory_id)
    assert row["trust"] == "rejected" and row["retired_at"] == done["reviewed_at"]
    assert row["review"]["review_reason"] == "the tests catch real bugs"
    stone = query(project_root, "SELECT kind, reason, memory_id FROM content_tombstones")
    # Its claim keys and its whole-content hash, all kept with the reason.
    assert len(stone) >= 2
    assert {tuple(s) for s in stone} == {("rejected", "the tests catch real bugs", memory_id)}
    assert memory_id not in live_ids(run_cli, "--include-unreviewed")
    assert live_ids(run_cli, "--trust", "rejected") == {memory_id}
    assert run_cli("--json", "review", "list").json()["total"] == 0


def test_a_rejected_claim_cannot_come_back(
    run_cli: CliRunner, project_root: Path, project_id: str, tmp_path: Path
) -> None:
    claim = "Skip the integration tests"
    memory_id = remember(run_cli, claim, environ=CLAUDE)
    write(run_cli, "review", "reject", memory_id, "--reason", "they catch real bugs")
    # Not through remember, in any case or spacing, by a person or an agent.
    for text, environ in ((claim, None), ("skip  the INTEGRATION tests.", CLAUDE)):
        again = run_cli("remember", text, environ=environ)
        assert again.code == 1 and "rejected in review" in again.err
        assert f"audit --target {memory_id}" in again.err
        assert "they catch real bugs" not in again.err
    # Not through capture.
    argv = ["capture", claim, "--event-type", "lesson", "--project", project_id]
    argv += ["--agent-profile", "claude-code", "--workflow-id", "s1", "--session-id", "s1"]
    argv += ["--operation-id", "auto-0123456789ab-2", "--source-ref", "transcript:9"]
    captured = run_cli(*argv, environ=CLAUDE)
    assert captured.code == 1 and "rejected in review" in captured.err
    # Not through import, under a new id.
    path = tmp_path / "back.jsonl"
    path.write_text(json.dumps({"summary": claim, "event_type": "note"}) + "\n", encoding="utf-8")
    imported = run_cli("import", str(path))
    assert imported.code == 1 and "rejected in review" in imported.err
    count = query(project_root, "SELECT count(*) FROM memories")[0][0]
    assert count == 1


def test_dispute_keeps_the_row_on_record_but_not_believed(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "The cache TTL is one hour")
    done = write(run_cli, "review", "dispute", memory_id, "--reason", "the config says 10 minutes")
    assert done["trust"] == "disputed"
    assert memory_id not in live_ids(run_cli)
    assert memory_id in live_ids(run_cli, "--include-unreviewed")
    listed = run_cli("--json", "review", "list").json()["items"]
    assert [(w["id"], w["review_reason"]) for w in listed] == [
        (memory_id, "the config says 10 minutes")
    ]
    assert run_cli("review", "dispute", memory_id, "--reason", "again").code == 1


def test_reject_and_dispute_need_a_reason(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "Some claim", "--ring", "heartwood", environ=CLAUDE)
    for verb in ("reject", "dispute"):
        result = run_cli("review", verb, memory_id)
        assert result.code == 2 and "--reason" in result.err
    assert run_cli("review", "approve").code == 2


@pytest.mark.parametrize("verb", ["approve", "reject", "dispute"])
@pytest.mark.parametrize("environ", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_an_agent_cannot_take_a_review_decision(
    run_cli: CliRunner, project_root: Path, verb: str, environ: dict[str, str]
) -> None:
    memory_id = remember(run_cli, "Use the blue deploy lane", "--ring", "heartwood", environ=CLAUDE)
    result = run_cli("review", verb, memory_id, "--reason", "looks right to me", environ=environ)
    assert result.code == 1
    row = show(run_cli, memory_id)
    assert row["trust"] == "pending" and row["review"]["reviewed_by"] is None
    assert audit_rows(project_root, "review") == []
    denied = [r for r in policy_rows(project_root) if r["decision"] == "deny"]
    if environ is CODEX:
        # Claude Code's pending note is in its partition: to Codex it is no
        # memory, as `show` says, and nothing is decided (docs/THREAT-MODEL.md).
        assert result.err == run_cli("show", memory_id, environ=CODEX).err
        assert denied == []
        return
    assert "person's decision" in result.err
    assert [(r["action"], r["origin"]) for r in denied] == [
        ("review.promote" if verb == "approve" else f"review.{verb}", "claude-code")
    ]


def test_an_agent_with_the_capability_may_review(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "Use the blue deploy lane", "--ring", "heartwood", environ=CLAUDE)
    token = enable(run_cli)
    done = write(run_cli, "review", "approve", memory_id, environ={**CLAUDE, TOKEN_VAR: token})
    assert done["trust"] == "accepted"


def test_the_library_refuses_an_agent_reviewer(store: Store, project_id: str) -> None:
    agent = Actor("codex", Origin("codex", "c1"))
    with store.write() as conn:
        pending = pipeline.insert_prepared(
            conn, make_memory(project_id, "Agent rule", ring="heartwood"), agent
        )
    with pytest.raises(Denied):
        review.approve(store, pending.id, actor=agent)


# -- policy and status ----------------------------------------------------------


def test_review_policy_shows_and_changes_what_waits(run_cli: CliRunner, project_root: Path) -> None:
    shown = run_cli("--json", "review", "policy").json()["review_policy"]
    assert shown == {
        "agent_heartwood": True,
        "agent_replacements": True,
        "agent_shared": True,
        "agent_weight": True,
        "contradictions": True,
        "imported_authority": True,
        "share_captures": False,
    }
    changed = write(run_cli, "review", "policy", "--set", "agent_heartwood=false")
    assert changed["review_policy"]["agent_heartwood"] is False
    data = write(run_cli, "remember", "Vendor the SDK", "--ring", "heartwood", environ=CLAUDE)
    assert data["trust"] == "accepted"
    assert [json.loads(r["detail"]) for r in audit_rows(project_root, "review-policy")] == [
        {"set": {"agent_heartwood": False}}
    ]
    assert "agent_heartwood = false" in run_cli("review", "policy").out


@pytest.mark.parametrize("bad", ["agent_heartwood", "agent_heartwood=maybe", "nonsense=true"])
def test_review_policy_refuses_bad_settings(run_cli: CliRunner, bad: str) -> None:
    result = run_cli("review", "policy", "--set", bad)
    assert result.code == 2 and result.err.startswith("error: ")


def test_an_agent_cannot_change_the_review_policy(run_cli: CliRunner) -> None:
    result = run_cli("review", "policy", "--set", "agent_heartwood=false", environ=CLAUDE)
    assert result.code == 1 and "person's decision" in result.err
    assert run_cli("--json", "review", "policy").json()["review_policy"]["agent_heartwood"] is True


def test_status_shows_the_queue_as_review_list_does(run_cli: CliRunner) -> None:
    waiting = remember(run_cli, "Agent heartwood one", "--ring", "heartwood", environ=CLAUDE)
    rejected = remember(run_cli, "Agent heartwood two", "--ring", "heartwood", environ=CLAUDE)
    disputed = remember(run_cli, "A person's claim about ports")
    remember(run_cli, "Accepted note")
    write(run_cli, "review", "reject", rejected, "--reason", "wrong")
    write(run_cli, "review", "dispute", disputed, "--reason", "unsure")
    status = run_cli("--json", "status").json()
    assert status["review_queue"] == 2
    counted = status["memories"]
    assert (counted["live"], counted["pending"], counted["disputed"]) == (1, 1, 1)
    assert counted["retired_by_reason"] == {"rejected": 1} and counted["total"] == 4
    listed = run_cli("--json", "review", "list").json()
    assert {w["id"] for w in listed["items"]} == {waiting, disputed}
    assert "waiting for review: 1 pending, 1 disputed (`tree-ring review list`: 2)" in (
        run_cli("status").out
    )


def test_approving_heartwood_is_a_promotion_in_coordinated_mode(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = remember(run_cli, "Agent heartwood", "--ring", "heartwood", environ=CLAUDE)
    token = enable(run_cli)
    refused = run_cli("review", "approve", memory_id)
    assert refused.code == 1 and "review.promote needs the coordinator capability" in refused.err
    write(run_cli, "review", "approve", memory_id, environ={TOKEN_VAR: token})
    decisions = [(r["action"], r["decision"]) for r in policy_rows(project_root)]
    assert decisions[-2:] == [("review.promote", "deny"), ("review.promote", "allow")]
