"""Consolidation: periods, grouping, the summary memory, dry run, force, sensitivity."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from conftest import PERSON, CliRunner, make_memory
from tree_support import remember, sentence

from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import MAX_SUMMARY, Memory
from tree_ring.store import audit, live, rows
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.upkeep import consolidate
from tree_ring.write import pipeline

NOV_29 = "2026-11-29T10:00:00.000000Z"


def run(store: Store, project_id: str, **kw: object) -> consolidate.Report:
    period_type = str(kw.pop("period_type", "manual"))
    key = kw.pop("period_key", None)
    return consolidate.consolidate(
        store,
        project_id,
        period_type,
        None if key is None else str(key),
        actor=PERSON,
        **kw,  # type: ignore[arg-type]
    )


def summaries(store: Store, project_id: str) -> list[Memory]:
    found = store.conn.execute(
        "SELECT * FROM memories WHERE project = ? AND source_type = 'consolidation'"
        " ORDER BY created_at, id",
        (project_id,),
    )
    return [rows.from_row(r) for r in found]


def count(store: Store, table: str) -> int:
    return store.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


# ---------------------------------------------------------------- periods


@pytest.mark.parametrize(
    ("period_type", "key", "start", "end"),
    [
        ("daily", "2026-11-29", "2026-11-29", "2026-11-30"),
        ("weekly", "2026-W48", "2026-11-23", "2026-11-30"),
        ("weekly", "2026-W53", "2026-12-28", "2027-01-04"),
        ("monthly", "2026-12", "2026-12-01", "2027-01-01"),
        ("monthly", "2026-11", "2026-11-01", "2026-12-01"),
        ("monthly", "2026-01", "2026-01-01", "2026-02-01"),
        ("yearly", "2026", "2026-01-01", "2027-01-01"),
        ("daily", "2026-02-28", "2026-02-28", "2026-03-01"),
        ("weekly", "2026-W01", "2025-12-29", "2026-01-05"),
    ],
)
def test_period_keys_name_half_open_ranges(
    period_type: str, key: str, start: str, end: str
) -> None:
    p = consolidate.period(period_type, key)
    assert (p.start or "")[:10] == start and (p.end or "")[:10] == end


def test_period_keys_default_to_the_current_period() -> None:
    moment = datetime(2026, 11, 29, 13, 0, tzinfo=UTC)
    keys = [consolidate.period(t, None, moment).key for t in consolidate.PERIOD_TYPES]
    assert keys == ["2026-11-29", "2026-W48", "2026-11", "2026", "all"]
    manual = consolidate.period("manual")
    assert (manual.key, manual.start, manual.end) == ("all", None, None)


@pytest.mark.parametrize("key", ["all", "2026", " mine ", ""])
def test_a_manual_period_takes_no_key(key: str) -> None:
    # Any key would be a second identity for the one all-time period.
    with pytest.raises(UsageError, match="takes no key"):
        consolidate.period("manual", key)


@pytest.mark.parametrize(
    ("period_type", "key"),
    [
        ("daily", "2026-13-01"),
        ("daily", "2026-1-01"),
        ("weekly", "2026-48"),
        ("weekly", "26-W48"),
        ("weekly", "2026-W54"),
        ("monthly", "2026-1"),
        ("monthly", "26-01"),
        ("monthly", "2026-13"),
        ("yearly", "26"),
        ("yearly", "20266"),
        # Another script's digits, underscores, signs and other ISO forms name a
        # period a canonical key already names: refused, not a second identity.
        ("yearly", "\uff12\uff10\uff12\uff16"),
        ("yearly", "\u0662\u0660\u0662\u0666"),
        ("yearly", "2_02"),
        ("yearly", "+202"),
        ("yearly", ""),
        ("weekly", "2026-W1"),
        ("weekly", "2026-W4_8"),
        ("weekly", "\uff12\uff10\uff12\uff16-W48"),
        ("monthly", "2026-\uff11\uff11"),
        ("monthly", "2026-1_"),
        ("daily", "2026-W48-1"),
        ("daily", "2026-11-\uff12\uff19"),
        ("daily", "2026-11-2_"),
    ],
)
def test_bad_period_keys_are_refused(period_type: str, key: str) -> None:
    with pytest.raises(UsageError, match=f"not a {period_type} key"):
        consolidate.period(period_type, key)
    with pytest.raises(UsageError, match="unknown period type"):
        consolidate.period("hourly", key)


# --------------------------------------------------------------- grouping


def test_groups_by_scope_partition_ring_type_and_sensitivity(store: Store, project_id: str) -> None:
    p = project_id
    decisions = [remember(store, p, sentence(i), event_type="decision") for i in range(3)]
    lessons = [remember(store, p, sentence(i + 10), event_type="lesson") for i in range(2)]
    scars = [remember(store, p, sentence(i + 20), ring="scar") for i in range(2)]
    health = [remember(store, p, sentence(i + 30), sensitivity="health") for i in range(2)]
    mine = [
        remember(store, p, sentence(i + 40), scope="agent", agent_profile="codex") for i in range(2)
    ]
    theirs = [
        remember(store, p, sentence(i + 50), scope="agent", agent_profile="claude-code")
        for i in range(2)
    ]
    alone = remember(store, p, sentence(60), event_type="warning")
    report = run(store, p)
    sources = {frozenset(m.id for m in g.sources): g.status for g in report.groups}
    expected = [decisions, lessons, scars, health, mine, theirs]
    assert sources == {frozenset(ids): "create" for ids in expected} | {
        frozenset([alone]): "skipped"
    }
    assert report.candidates == 14
    assert len(summaries(store, p)) == 6


def test_partitions_are_never_merged_across_identities(store: Store, project_id: str) -> None:
    for agent in ("codex", "claude-code"):
        for i in range(2):
            remember(
                store,
                project_id,
                sentence(i + (0 if agent == "codex" else 10)),
                scope="agent",
                agent_profile=agent,
            )
    run(store, project_id)
    by_agent = {m.agent_profile: m for m in summaries(store, project_id)}
    assert set(by_agent) == {"codex", "claude-code"}
    assert all(m.scope == "agent" for m in by_agent.values())
    # Each summary is visible to its own identity only.
    for agent, other in (("codex", "claude-code"), ("claude-code", "codex")):
        clause = live.where(Identity(project_id, agent), View())
        visible = {
            r["id"]
            for r in store.conn.execute(
                f"SELECT m.id FROM memories m WHERE {clause.sql}", clause.params
            )
        }
        assert by_agent[agent].id in visible and by_agent[other].id not in visible


def test_the_summary_memory_is_linked_deterministic_and_written_by_tree_ring(
    store: Store, project_id: str
) -> None:
    ids = [
        remember(store, project_id, sentence(i), event_type="decision", salience=s, tags=("db",))
        for i, s in enumerate((0.5, 0.9, 0.7))
    ]
    report = run(store, project_id)
    [summary] = summaries(store, project_id)
    assert report.groups[0].written == summary.id
    assert (summary.event_type, summary.source_type, summary.origin) == (
        "summary",
        "consolidation",
        "tree-ring",
    )
    assert [(link.type, link.target) for link in summary.links] == [
        ("consolidates", ids[1]),
        ("consolidates", ids[2]),
        ("consolidates", ids[0]),
    ]
    assert summary.summary == (
        "Consolidated 3 decision memories (cambium ring, project scope, all time): "
        f"— {sentence(1)} — {sentence(2)} — {sentence(0)}"
    )
    # Exactly these tags, each once, in whatever order they are stored.
    assert sorted(summary.tags) == ["consolidation", "db"]
    assert summary.ring == "outer" and summary.trust == "accepted"
    assert summary.salience == 0.7 and summary.confidence == 0.5
    entry = audit.entries(store.db, target=summary.id)[0]
    assert (entry["origin"], entry["action"]) == ("tree-ring", "consolidate")
    # Sources stay as they were; the same group planned again gives the same text.
    assert all(rows.get(store.db, i).superseded_by is None for i in ids)
    again = run(store, project_id, dry_run=True, force=True)
    assert again.groups[0].summary is not None
    assert again.groups[0].summary.summary == summary.summary


def test_the_summary_stays_within_max_summary(store: Store, project_id: str) -> None:
    for i in range(4):
        remember(store, project_id, f"{sentence(i)} {'y' * 3_000}")
    run(store, project_id)
    [summary] = summaries(store, project_id)
    assert len(summary.summary) <= MAX_SUMMARY
    assert summary.summary.endswith("… and 2 more")
    assert len(summary.links) == 4  # every source is still linked


def test_candidates_are_live_worth_keeping_lasting_and_never_secret_or_summaries(
    store: Store, project_id: str
) -> None:
    p = project_id
    kept = [remember(store, p, sentence(0)), remember(store, p, sentence(1), salience=0.45)]
    remember(store, p, sentence(2), salience=0.2)  # too faint
    scar = remember(store, p, sentence(3), ring="scar", salience=0.1)  # scars always count
    pinned = remember(store, p, sentence(4), ring="scar", retention="user_pinned", salience=0.1)
    old = remember(store, p, sentence(5))
    newer = remember(store, p, sentence(6), supersedes=(old,))
    with store.write() as conn:
        rows.update(conn, old, superseded_by=newer, retired_at=NOV_29)
        rows.insert(conn, make_memory(p, sentence(7), sensitivity="secret"))
    # A summary is not rewritten when time passes: what ends is left out.
    remember(store, p, sentence(8), expires_at="2999-01-01T00:00:00.000000Z")
    remember(store, p, sentence(9), valid_to="2999-01-01T00:00:00.000000Z")
    report = run(store, p)
    groups = {frozenset(m.id for m in g.sources) for g in report.groups}
    assert groups == {frozenset([*kept, newer]), frozenset([scar, pinned])}
    first = summaries(store, p)
    assert run(store, p, force=True).candidates == 5  # summaries are never consolidated again
    # Forced over the same sources, the same words: nothing to replace them with.
    assert {m.id for m in summaries(store, p)} == {m.id for m in first}


def test_only_the_period_is_consolidated(store: Store, project_id: str) -> None:
    inside = [
        remember(store, project_id, sentence(i), created_at=f"2026-11-2{i}T10:00:00.000000Z")
        for i in (3, 9)
    ]
    remember(store, project_id, sentence(5), created_at="2026-11-30T00:00:00.000000Z")
    remember(store, project_id, sentence(6), created_at="2026-11-22T23:59:59.999999Z")
    report = run(store, project_id, period_type="weekly", period_key="2026-W48")
    [group] = report.groups
    assert {m.id for m in group.sources} == set(inside)
    [summary] = summaries(store, project_id)
    assert "weekly 2026-W48" in summary.summary and summary.ring == "inner"
    assert re.fullmatch(r"consolidation:weekly:2026-W48:[0-9a-f]{16}", summary.source_ref)


@pytest.mark.parametrize(
    ("period_type", "ring", "confidence", "expected"),
    [
        ("daily", "cambium", 0.5, "outer"),
        ("manual", "outer", 0.5, "outer"),
        ("monthly", "cambium", 0.5, "inner"),
        ("yearly", "scar", 0.5, "scar"),
        ("weekly", "seed", 0.5, "seed"),
        ("daily", "heartwood", 0.8, "heartwood"),
        ("daily", "heartwood", 0.7, "outer"),
    ],
)
def test_output_ring_follows_the_original(
    period_type: str, ring: str, confidence: float, expected: str
) -> None:
    sources = [make_memory("p", sentence(i), ring=ring, confidence=confidence) for i in range(2)]
    p = consolidate.period(period_type, None)
    assert consolidate.output_ring(p, ring, sources) == expected


# ------------------------------------------------------- dry run and force


def test_dry_run_shows_the_plan_and_writes_nothing(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    for i in range(2):
        remember(store, project_id, sentence(i), event_type="decision")
    before = (count(store, "memories"), count(store, "audit_log"))
    result = run_cli("consolidate", "--dry-run", "--json")
    assert result.code == 0, result.err
    plan = result.json()
    assert plan["dry_run"] and plan["consolidated"] == 0
    [group] = plan["items"]
    assert group["status"] == "create" and group["count"] == 2
    assert group["summary"].startswith("Consolidated 2 decision memories")
    assert (count(store, "memories"), count(store, "audit_log")) == before
    text = run_cli("consolidate", "--dry-run")
    assert "dry run: nothing was written" in text.out and "Consolidated 2" in text.out


def test_an_existing_summary_is_left_alone_without_force(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    for i in range(2):
        remember(store, project_id, sentence(i))
    first = [
        g["summary_id"] for g in run_cli("consolidate", "--json").json()["items"] if g["summary_id"]
    ]
    remember(store, project_id, sentence(2))
    again = run_cli("consolidate", "--json").json()
    [group] = again["items"]
    assert group["status"] == "exists" and group["existing"] == first
    assert again["consolidated"] == 0 and len(summaries(store, project_id)) == 1
    assert "exists" in run_cli("consolidate").out


def test_force_supersedes_the_earlier_summary(store: Store, project_id: str) -> None:
    for i in range(2):
        remember(store, project_id, sentence(i))
    [old] = [g.written for g in run(store, project_id).groups]
    remember(store, project_id, sentence(2))
    report = run(store, project_id, force=True)
    [group] = report.groups
    assert group.status == "supersede" and group.existing == [old]
    new = rows.get(store.db, group.written or "")
    assert rows.get(store.db, old or "").superseded_by == new.id
    assert old in new.supersedes and len(new.links) == 3


def test_forcing_the_same_summary_again_writes_none(store: Store, project_id: str) -> None:
    # An agent's forced summary of shared rows waits for review; forced again
    # over the same sources, it would queue the same words once more.
    from tree_ring.model.actor import Actor
    from tree_ring.model.identity import Origin

    agent = Actor("claude-code", Origin("claude-code", "sess-1"))
    for i in range(2):
        remember(store, project_id, sentence(i))
    run(store, project_id)
    remember(store, project_id, sentence(2))
    forced = [
        consolidate.consolidate(store, project_id, "manual", actor=agent, force=True).groups[0]
        for _ in range(3)
    ]
    assert [g.status for g in forced] == ["supersede", "exists", "exists"]
    assert forced[0].trust == "pending" and "same summary" in forced[1].reason
    waiting = [m.id for m in summaries(store, project_id) if m.trust == "pending"]
    assert waiting == [forced[0].written]


def test_a_forgotten_summary_is_not_written_again(store: Store, project_id: str) -> None:
    from tree_ring.write import correct

    for i in range(2):
        remember(store, project_id, sentence(i))
    [written] = [g.written for g in run(store, project_id).groups]
    correct.forget(store, written or "", mode="delete", reason="not useful", actor=PERSON)
    [group] = run(store, project_id).groups
    assert group.status == "skipped" and "forgotten" in group.reason


@pytest.mark.parametrize(
    "pieces",
    [
        ["Deploys freeze on Fridays", "after the release branch is cut"],
        ["Deploys freeze", "on Fridays after", "the release branch is cut"],
        ["Note: deploys freeze on Fridays", "after the release branch is cut (confirmed)"],
        # One word a piece: ten pieces, each too short to hold any claim.
        ["Deploys", "freeze", "on", "Fridays", "after", "the", "release", "branch", "is", "cut"],
        # More words around it than a write's check leaves off an end.
        ["We wrote down earlier that deploys freeze", "on Fridays after the release branch is cut"],
        ["DeploysFreezeOnFridays", "AfterTheReleaseBranchIsCut"],
    ],
)
def test_pieces_that_outlived_a_forget_are_not_summarised_back_together(
    store: Store, project_id: str, pieces: list[str]
) -> None:
    """Each piece is too short to be the claim, so the forget leaves it; the
    summary would list them one after another, which says the claim again."""
    from tree_ring.write import correct

    claim = remember(store, project_id, "Deploys freeze on Fridays after the release branch is cut")
    correct.forget(store, claim, mode="delete", reason="lifted", actor=PERSON)
    for piece in pieces:
        remember(store, project_id, piece)
    [group] = run(store, project_id).groups
    assert group.status == "skipped" and "say what was forgotten" in group.reason
    assert summaries(store, project_id) == []
    # Pieces of another claim (another group) are summarised as ever.
    for piece in ("Deploys freeze on Mondays", "after the release branch is cut"):
        remember(store, project_id, piece, event_type="lesson")
    found = {g.key.event_type: g for g in run(store, project_id).groups}
    assert found["note"].status == "skipped" and found["lesson"].status == "create"


# -------------------------------------------------------------- sensitivity


def test_a_sensitive_group_is_stored_sensitive_and_waits_for_review(
    store: Store, project_id: str, identity: Identity
) -> None:
    # Tagged, so that leaving the tags out is something the summary does.
    remember(store, project_id, sentence(0), sensitivity="health", tags=("oncall",))
    remember(store, project_id, sentence(1), sensitivity="financial", tags=("oncall",))
    run(store, project_id)
    [summary] = summaries(store, project_id)
    assert summary.sensitivity == "financial"  # the stronger of the two
    assert summary.trust == "pending" and "sensitive" in (summary.review_reason or "")
    assert list(summary.tags) == ["consolidation"]  # tags could say what it is about

    def shown(view: View) -> set[str]:
        clause = live.where(identity, view)
        found = store.conn.execute(f"SELECT m.id FROM memories m WHERE {clause.sql}", clause.params)
        return {r[0] for r in found}

    assert summary.id not in shown(View())
    assert summary.id in shown(View(include_sensitive=True, include_unreviewed=True))


def test_a_source_caught_by_todays_guard_skips_its_group(store: Store, project_id: str) -> None:
    with store.write() as conn:
        for i in range(2):
            secretish = f"{sentence(i)} token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r{i}"
            rows.insert(conn, make_memory(project_id, secretish))
    [group] = run(store, project_id).groups
    assert group.status == "skipped" and "secret" in group.reason
    assert summaries(store, project_id) == []


@pytest.mark.parametrize(
    ("period_type", "key", "example"),
    [
        ("daily", "9999-12-31", "2026-11-29"),
        ("weekly", "9999-W52", "2026-W48"),
        ("monthly", "9999-12", "2026-11"),
        ("yearly", "9999", "2026"),
    ],
)
def test_a_period_ending_past_the_last_date_is_out_of_range(
    run_cli: CliRunner, period_type: str, key: str, example: str
) -> None:
    result = run_cli("consolidate", "--period-type", period_type, "--period-key", key, "--dry-run")
    assert (result.code, result.out) == (2, "")
    assert result.err.strip() == (
        f"error: period key {key!r} is out of range: the day after the period is past "
        f"9999-12-31, the last date Tree Ring can store; name an earlier {period_type} "
        f"period, e.g. {example}"
    )


def test_the_last_periods_in_range_are_taken() -> None:
    last = {
        (kind, key): consolidate.period(kind, key).end
        for kind, key in (("daily", "9999-12-30"), ("weekly", "9999-W51"), ("monthly", "9999-11"))
    }
    assert last == {
        ("daily", "9999-12-30"): "9999-12-31T00:00:00.000000Z",
        ("weekly", "9999-W51"): "9999-12-27T00:00:00.000000Z",
        ("monthly", "9999-11"): "9999-12-01T00:00:00.000000Z",
    }


def test_cli_rejects_bad_periods(run_cli: CliRunner) -> None:
    bad = run_cli("consolidate", "--period-type", "daily", "--period-key", "yesterday")
    assert bad.code == 2 and "not a daily key" in bad.err
    assert run_cli("consolidate", "--period-type", "hourly").code == 2
    wide = run_cli(
        "consolidate", "--period-type", "yearly", "--period-key", "\uff12\uff10\uff12\uff16"
    )
    assert (wide.code, wide.out) == (2, "")
    assert (
        wide.err.strip()
        .splitlines()[-1]
        .endswith("is not a yearly key; write it as YYYY in ASCII digits, e.g. 2026")
    )
    manual = run_cli("consolidate", "--period-type", "manual", "--period-key", "2026")
    assert (manual.code, manual.out) == (2, "")
    assert manual.err.strip() == (
        "error: a manual period covers all time and takes no key; drop --period-key, "
        "or name a daily, weekly, monthly or yearly period"
    )


def test_consolidation_is_one_write_path_call_per_group(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = pipeline.insert_prepared

    def spy(*args: object, **kw: object) -> pipeline.WriteResult:
        calls.append(str(kw.get("action")))
        return real(*args, **kw)  # type: ignore[arg-type]

    for i in range(4):
        remember(store, project_id, sentence(i), event_type="decision" if i % 2 else "note")
    monkeypatch.setattr(pipeline, "insert_prepared", spy)
    run(store, project_id)
    assert calls == ["consolidate", "consolidate"]
