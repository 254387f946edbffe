"""`audit --audit-type`: what needs a person, each finding with an id and a reason."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import PERSON, CliRunner, make_memory

from tree_ring.model.actor import Actor
from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Origin
from tree_ring.model.record import Memory, format_time
from tree_ring.review import findings
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.write import correct, pipeline

NOW = datetime.now(UTC)
PAST = format_time(NOW - timedelta(days=1))
OLD = format_time(NOW - timedelta(days=200))
SIXTY = format_time(NOW - timedelta(days=60))
AGENT = Actor("codex", Origin("codex", "c1"))


def add(store: Store, memory: Memory, actor: Actor = PERSON) -> str:
    with store.write() as conn:
        return pipeline.insert_prepared(conn, memory, actor).id


def aged(project_id: str, summary: str, when: str, **fields: Any) -> Memory:
    return make_memory(project_id, summary, created_at=when, valid_from=when, **fields)


def found(store: Store, project_id: str, kind: str, **options: Any) -> set[tuple[str, str]]:
    return {(f.type, f.id) for f in findings.report(store.db, project_id, kind, **options)}


@pytest.fixture
def seeded(store: Store, project_id: str) -> dict[str, str]:
    """One row for every finding, and near misses that must not be reported."""
    p = project_id
    ids = {
        "expired": add(store, aged(p, "Temporary freeze on deploys", OLD, expires_at=PAST)),
        "old_faint": add(store, aged(p, "Someone mentioned a wiki page", OLD, salience=0.2)),
        "old_important": add(store, aged(p, "Releases are signed", OLD, salience=0.9)),
        "old_pinned": add(
            store, aged(p, "Pinned faint note", OLD, salience=0.1, retention="user_pinned")
        ),
        "sixty_faint": add(store, aged(p, "A faint note from two months ago", SIXTY, salience=0.2)),
        "recent_faint": add(store, make_memory(p, "A faint note from today", salience=0.2)),
        "health": add(store, make_memory(p, "The user has a pollen allergy", sensitivity="health")),
        "unsure": add(store, make_memory(p, "Maybe the cron runs hourly", confidence=0.1)),
        "sure_enough": add(store, make_memory(p, "The cron runs nightly", confidence=0.3)),
        "chain_a": add(store, make_memory(p, "Build with make")),
        "chain_b": add(store, make_memory(p, "Build with ninja")),
        "chain_c": add(store, make_memory(p, "Build with bazel")),
        "timeout_30": add(store, make_memory(p, "The request timeout is 30s")),
        "timeout_60": add(store, make_memory(p, "The request timeout is 60s"), AGENT),
        "pending": add(store, make_memory(p, "Agent heartwood", ring="heartwood"), AGENT),
    }
    now = format_time(NOW)
    with store.write() as conn:
        for old, new in (("chain_a", "chain_b"), ("chain_b", "chain_c")):
            correct.supersede_in(conn, rows.get(conn, ids[old]), ids[new], "newer", PERSON, now)
        lost = pipeline.insert_prepared(conn, make_memory(p, "Orphaned successor"), PERSON)
        rows.update(conn, lost.id, superseded_by="mem_gone_1", retired_at=now)
        dangling = pipeline.insert_prepared(
            conn, make_memory(p, "Names a lost predecessor"), PERSON
        )
        rows.update(conn, dangling.id, supersedes=("mem_gone_2",))
        waiting = pipeline.insert_prepared(
            conn,
            make_memory(p, "Replacement heartwood", ring="heartwood", supersedes=(ids["chain_c"],)),
            AGENT,
        )
        gone = pipeline.insert_prepared(
            conn, make_memory(p, "Redacted secret-ish note", sensitivity="private"), PERSON
        )
        correct.forget_in(conn, rows.get(conn, gone.id), "redact", "not needed", PERSON, now)
    ids |= {"lost": lost.id, "dangling": dangling.id, "waiting": waiting.id}
    return ids


def test_stale(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    assert found(store, project_id, "stale") == {
        ("stale", seeded["expired"]),
        ("stale", seeded["old_faint"]),
    }
    assert found(store, project_id, "stale", stale_days=30) == {
        ("stale", seeded["expired"]),
        ("stale", seeded["old_faint"]),
        ("stale", seeded["sixty_faint"]),
    }
    reasons = {f.id: f.reason for f in findings.report(store.db, project_id, "stale")}
    assert "expired at" in reasons[seeded["expired"]]
    assert "over 90 days" in reasons[seeded["old_faint"]] and "0.20" in reasons[seeded["old_faint"]]


def test_sensitive(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    report = findings.report(store.db, project_id, "sensitive")
    assert {(f.type, f.id) for f in report} == {("sensitive", seeded["health"])}
    assert report[0].summary == "[health]" and "allergy" not in report[0].reason


def test_low_confidence(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    assert found(store, project_id, "low_confidence") == {("low_confidence", seeded["unsure"])}


def test_supersession(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    report = findings.report(store.db, project_id, "supersession")
    by_id = {f.id: f.reason for f in report}
    assert set(by_id) == {seeded["chain_c"], seeded["lost"], seeded["dangling"], seeded["waiting"]}
    chain = " <- ".join(seeded[k] for k in ("chain_c", "chain_b", "chain_a"))
    assert by_id[seeded["chain_c"]] == f"head of a chain of 2 supersessions: {chain}"
    assert "mem_gone_1, which is not in the store" in by_id[seeded["lost"]]
    assert "replaces mem_gone_2, which is not in the store" in by_id[seeded["dangling"]]
    assert (
        f"will replace {seeded['chain_c']} once approved (now pending)" in by_id[seeded["waiting"]]
    )


def test_contradictions(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    report = findings.report(store.db, project_id, "contradictions")
    pair = sorted((seeded["timeout_30"], seeded["timeout_60"]))
    assert [(f.type, f.id) for f in report] == [("contradictions", pair[0])]
    assert f"contradicts {pair[1]}" in report[0].reason


def test_review(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    report = findings.report(store.db, project_id, "review")
    assert [(f.id, f.reason.split(":")[0]) for f in report] == [
        (seeded["timeout_60"], "disputed"),
        (seeded["pending"], "pending"),
        (seeded["waiting"], "pending"),
    ]
    assert "contradicts live memory" in report[0].reason


def test_all_is_the_union(store: Store, project_id: str, seeded: dict[str, str]) -> None:
    union: set[tuple[str, str]] = set()
    for kind in findings.TYPES:
        union |= found(store, project_id, kind)
    assert found(store, project_id, "all") == union
    assert len(union) == 2 + 1 + 1 + 4 + 1 + 3


def test_unknown_type_and_bad_days_are_usage_errors(store: Store, project_id: str) -> None:
    with pytest.raises(UsageError):
        findings.report(store.db, project_id, "everything")
    with pytest.raises(UsageError):
        findings.report(store.db, project_id, "stale", stale_days=0)


def test_the_cli_reports_findings(run_cli: CliRunner) -> None:
    low = run_cli("--json", "remember", "Maybe the queue is FIFO", "--confidence", "0.1").json()[
        "id"
    ]
    data = run_cli("--json", "audit", "--audit-type", "all").json()
    assert data["counts"] == {"low_confidence": 1}
    assert data["items"] == [
        {
            "type": "low_confidence",
            "id": low,
            "reason": "confidence 0.10 is below 0.3: confirm it or forget it",
            "summary": "Maybe the queue is FIFO",
        }
    ]
    text = run_cli("audit", "--audit-type", "low_confidence").out
    assert text.startswith(f"low_confidence  {low}  confidence 0.10")
    assert run_cli("audit", "--audit-type", "stale").out.strip() == "nothing to report (stale)"
    assert run_cli("audit", "--audit-type", "bogus").code == 2
    # Without --audit-type, `audit` is still the log.
    assert "create" in run_cli("audit").out
