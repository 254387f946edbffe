"""The original's quality format, every field of it: our own fixtures in that
format (tests/fixtures/original_quality), which pass or fail for their reasons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tree_ring.upkeep import quality
from tree_ring.upkeep import quality_writes as writes

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "original_quality"
PASS = sorted((HERE / "pass").glob("*.json"))
FAIL = sorted((HERE / "fail").glob("*.json"))


def _load(name: str) -> dict[str, Any]:
    path = next(p for p in (*PASS, *FAIL) if p.stem == name)
    return json.loads(path.read_text(encoding="utf-8"))


def _run(name: str, **changes: Any) -> quality.ScenarioReport:
    return quality.run_scenario(quality.parse({**_load(name), **changes}, name))


def test_the_fixtures_use_every_field_of_the_originals_format() -> None:
    used: set[str] = set()
    for path in (*PASS, *FAIL):
        used |= set(json.loads(path.read_text(encoding="utf-8")))
    assert {
        "write_candidates",
        "expected_write_decisions",
        "evidence_refs",
        "behavior_expectation",
        "workflow_prompt",
        "thresholds",
    } <= used
    categories = {quality.load(path).category for path in (*PASS, *FAIL)}
    assert {"behavior_proof", "spam_prevention", "evidence_preservation"} <= categories


@pytest.mark.parametrize("path", PASS, ids=[p.stem for p in PASS])
def test_a_passing_scenario_passes(path: Path) -> None:
    report = quality.run_scenario(quality.load(path))
    assert report.error is None and report.passed, report.to_dict()


def test_each_write_decision_is_what_the_write_path_did() -> None:
    report = _run("write-gates")
    actual = {d.memory_id: d.actual for d in report.decisions}
    assert actual == {
        "mem_oq_leaked_token": "reject",  # the guard
        "mem_oq_shared_hint": "require_user_confirmation",  # pending review
        "mem_oq_unbacked_eval": "require_evidence",  # the evidence verb's rule
        "mem_oq_own_note": "accept",  # an agent's own partition
    }
    assert "github-token" in next(d.outcome for d in report.decisions if d.actual == "reject")


def test_the_writer_is_who_the_scenario_says() -> None:
    """A person's note for the project is believed at once; an agent's waits."""
    report = _run("write-gates", writer="person")
    actual = {d.memory_id: d.actual for d in report.decisions}
    assert actual["mem_oq_shared_hint"] == "accept"
    assert not report.passed


def test_chatter_an_agent_writes_is_queued_not_refused() -> None:
    report = _run("chatter-queued")
    [decision] = report.decisions
    assert (decision.expected, decision.actual) == ("reject", "require_user_confirmation")
    assert decision.outcome.startswith("pending: heartwood written by agent")
    assert not report.passed and report.error is None


def test_an_evidence_ref_no_row_keeps_fails() -> None:
    report = _run("evidence-lost")
    assert report.evidence_missing == ("bench/webp-2026-05",)
    assert all(d.passed for d in report.decisions) and not report.passed
    kept = _run("evidence-lost", evidence_refs=["bench/avif-2026-05"])
    assert kept.evidence_missing == () and kept.passed


def test_a_behaviour_is_checked_by_its_recall_and_reported_as_declared() -> None:
    missed = _run("behaviour-not-recalled")
    assert missed.behavior is not None
    assert not missed.behavior.required_memory_recalled
    assert missed.behavior.decision_changed and missed.behavior.expected_decision_reached
    assert not missed.passed
    done = _run("behaviour-declared")
    assert done.behavior is not None and done.behavior.passed and done.passed
    said = done.to_dict()["behavior_expectation"]
    assert said["observed"].startswith("recall only")
    # A declaration that does not hold fails, though the memory is recalled.
    same = {**_load("behaviour-declared")["behavior_expectation"]}
    same["memory_informed_decision"] = same["baseline_decision"]
    unchanged = _run("behaviour-declared", behavior_expectation=same)
    assert unchanged.behavior is not None and unchanged.behavior.required_memory_recalled
    assert not unchanged.passed


def test_a_scenario_reads_as_the_project_its_rows_name() -> None:
    scenario = quality.parse(_load("write-gates"), "write-gates")
    assert scenario.identity.project == "Orchard_App"
    doc = _load("write-gates")
    doc["seed_memories"] = [{**doc["seed_memories"][0], "project": "Other_App"}]
    with pytest.raises(quality.ScenarioError, match="several projects"):
        quality.parse(doc, "write-gates")
    # A top-level project decides, and rows of another project stay theirs.
    elsewhere = _run("write-gates", project="Third_App")
    assert elsewhere.missed == ("mem_oq_resize_rule",)


def test_thresholds_relax_the_bar_they_name() -> None:
    doc = _load("behaviour-declared")
    doc["expected_recall"] = [*doc["expected_recall"], {"tag": "no-such-tag"}]
    strict = quality.run_scenario(quality.parse(doc, "t"))
    assert strict.missed == ("tag=no-such-tag",) and not strict.passed
    doc["thresholds"] = {**doc["thresholds"], "min_constraint_recall_rate": 0.5}
    assert quality.run_scenario(quality.parse(doc, "t")).passed


@pytest.mark.parametrize(
    ("name", "changes", "says"),
    [
        ("write-gates", {"expected_write_decisions": []}, "has no decision"),
        (
            "evidence-kept",
            {"expected_write_decisions": [{"memory_id": "mem_oq_backed_eval", "decision": "ok"}]},
            "decision: use one of",
        ),
        (
            "evidence-kept",
            {"expected_write_decisions": [{"memory_id": "mem_nope", "decision": "accept"}]},
            "not a write candidate's id",
        ),
        ("evidence-kept", {"evidence_refs": [" "]}, "evidence_refs"),
        ("evidence-kept", {"writer": "robot"}, "writer"),
        ("behaviour-declared", {"behavior_expectation": None}, "behavior_proof scenario needs"),
        (
            "behaviour-declared",
            {
                "behavior_expectation": {
                    "required_memory_id": "mem_nope",
                    "baseline_decision": "a",
                    "memory_informed_decision": "b",
                    "expected_decision": "b",
                }
            },
            "required_memory_id",
        ),
        ("evidence-kept", {"thresholds": {"min_constraint_recall_rate": 1}}, "observes nothing"),
        ("behaviour-declared", {"thresholds": {"min_x": 1}}, "thresholds.min_x"),
        ("behaviour-declared", {"workflow_prompt": " "}, "query"),
    ],
)
def test_a_broken_original_field_is_named(name: str, changes: dict[str, Any], says: str) -> None:
    with pytest.raises(quality.ScenarioError, match=says):
        quality.parse({**_load(name), **changes}, name)


def test_the_decisions_are_the_originals_four() -> None:
    assert set(writes.WRITE_DECISIONS) == {
        "accept",
        "reject",
        "require_evidence",
        "require_user_confirmation",
    }
