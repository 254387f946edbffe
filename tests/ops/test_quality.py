"""The recall quality scenarios run in CI, and the harness itself can fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner

from tree_ring.read import ranking, recall
from tree_ring.store import fts, rows
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.upkeep import quality

FIXTURES = sorted(quality.DEFAULT_PATH.glob("*.json"))


def test_there_are_enough_scenarios() -> None:
    names = {path.stem for path in FIXTURES}
    assert len(names) >= 11
    categories = {quality.load(path).category for path in FIXTURES}
    assert {
        "constraint_recall",
        "spam_prevention",
        "stale_truth_suppression",
        "evidence_preservation",
        "failure_recall",
        "sensitivity",
    } <= categories


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_scenario(path: Path) -> None:
    report = quality.run_scenario(quality.load(path))
    assert report.missed == (), f"expected but not recalled; got {report.recalled}"
    assert report.forbidden_recalled == (), f"forbidden but recalled; got {report.recalled}"
    assert report.passed


def test_whole_run_rates() -> None:
    data = quality.run(quality.DEFAULT_PATH).to_dict()
    assert data["passed"] is True
    assert data["expected_recall_rate"] == 1.0
    assert data["forbidden_recall_rate"] == 0.0
    assert data["forbidden_total"] >= 10


# -- the harness can fail ------------------------------------------------------


def _load(name: str) -> quality.Scenario:
    return quality.load(quality.DEFAULT_PATH / f"{name}.json")


def test_a_view_that_shows_superseded_rows_is_caught() -> None:
    report = quality.run_scenario(_load("superseded-heartwood"), view=View(include_superseded=True))
    assert not report.passed
    assert report.forbidden_recalled == ("mem_q_cap_old",)


def test_a_view_that_shows_sensitive_and_unreviewed_rows_is_caught() -> None:
    wide = View(include_sensitive=True, include_unreviewed=True)
    sensitive = quality.run_scenario(_load("sensitive-memory-hidden"), view=wide)
    pending = quality.run_scenario(_load("pending-not-recalled"), view=wide)
    assert set(sensitive.forbidden_recalled) == {"mem_q_review_health", "mem_q_review_invoice"}
    assert set(pending.forbidden_recalled) == {"mem_q_squash_pending", "mem_q_rebase_disputed"}


def _bm25_only(store: Store, identity: Any, query: str, **kw: Any) -> list[recall.Hit]:
    """A plain FTS5 search with no liveness, scope or ranking: what recall must beat."""
    words = recall.terms(query)
    sql = (
        "SELECT m.* FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid "
        "WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts) LIMIT ?"
    )
    found = store.query(sql, (" OR ".join(fts.quote(w) for w in words), kw["limit"]))
    return [recall.Hit(rows.from_row(r), 0.0) for r in found]


def test_a_recall_without_liveness_or_ranking_is_caught() -> None:
    failed = {
        s.name
        for s in (
            quality.run_scenario(quality.load(path), recaller=_bm25_only) for path in FIXTURES
        )
        if not s.passed
    }
    assert {
        "expired-never-recalled",
        "other-project-isolated",
        "private-partitions",
        "scar-for-failure",
        "superseded-heartwood",
    } <= failed


def test_a_ranking_without_ring_intent_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranking, "RING_BOOST", 0.0)
    report = quality.run_scenario(_load("scar-for-failure"))
    assert report.missed == ("mem_q_release_scar",)


# -- broken scenarios ------------------------------------------------------------


def _scenario(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": "tiny",
        "category": "constraint_recall",
        "query": "lint rule",
        "seed_memories": [
            {
                "id": "mem_t_rule",
                "summary": "Lint rule: ruff check runs in CI.",
                "ring": "heartwood",
            }
        ],
        "expected_recall": [{"memory_id": "mem_t_rule", "reason": "the rule"}],
    }
    doc.update(overrides)
    return doc


def _write(tmp_path: Path, doc: Any, name: str = "s.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


def test_a_minimal_scenario_passes(tmp_path: Path) -> None:
    report = quality.run(_write(tmp_path, _scenario()))
    assert report.passed and report.expected_found == 1


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"category": "vibes"}, "category"),
        ({"query": " "}, "query"),
        ({"limit": 0}, "limit"),
        ({"colour": "red"}, "colour"),
        ({"seed_memories": {}}, "seed_memories"),
        ({"expected_recall": ["mem_nope"]}, "expected_recall[0].memory_id"),
        ({"expected_recall": [{"reason": "no selector"}]}, "expected_recall[0]"),
        ({"forbidden_recall": ["mem_t_rule"]}, "also expected"),
        (
            {"seed_memories": [{"id": "mem_t_rule", "summary": "x", "ring": "bark"}]},
            "seed_memories[0]: unknown ring",
        ),
        (
            {"seed_memories": [{"id": "mem_t_rule", "summary": "x", "salence": 0.5}]},
            "seed_memories[0].salence",
        ),
        (
            {"seed_memories": [{"id": "mem_t_rule", "summary": "x", "superseded_by": "mem_x"}]},
            "'mem_x', which is not a seed",
        ),
        (
            {"seed_memories": [{"id": "mem_t_rule", "summary": "x", "created_at": "yesterday"}]},
            "seed_memories[0]: created_at",
        ),
    ],
)
def test_a_broken_scenario_names_file_and_field(
    tmp_path: Path, overrides: dict[str, Any], field: str
) -> None:
    path = _write(tmp_path, _scenario(**overrides))
    with pytest.raises(quality.ScenarioError) as caught:
        quality.load(path)
    message = str(caught.value)
    assert str(path) in message and field in message
    assert "\n" not in message


def test_a_broken_scenario_in_a_directory_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, _scenario(), "a-good.json")
    _write(tmp_path, "{not json", "b-broken.json")
    report = quality.run(tmp_path)
    assert [s.passed for s in report.scenarios] == [True, False]
    broken = report.scenarios[1]
    assert broken.error is not None and "b-broken.json" in broken.error
    assert "not valid JSON" in broken.error
    assert not report.passed


def test_a_failing_scenario_is_reported_with_its_ids(tmp_path: Path) -> None:
    doc = _scenario(
        seed_memories=[
            {"id": "mem_t_rule", "summary": "Lint rule: ruff check runs in CI."},
            {"id": "mem_t_gone", "summary": "Lint rule: flake8.", "expires_at": "now+1d"},
        ],
        forbidden_recall=["mem_t_gone"],
    )
    report = quality.run(_write(tmp_path, doc))
    assert report.scenarios[0].forbidden_recalled == ("mem_t_gone",)
    assert report.to_dict()["forbidden_recall_rate"] == 1.0


# -- the CLI verb ----------------------------------------------------------------


def test_cli_quality_passes_on_the_fixtures(run_cli: CliRunner) -> None:
    result = run_cli("quality", root=False)
    assert result.code == 0, result.out + result.err
    assert "forbidden recall 0/" in result.out
    data = run_cli("quality", "--json", root=False).json()
    assert data["passed"] and data["forbidden_recall_rate"] == 0.0


def test_cli_quality_exits_1_on_a_failure(run_cli: CliRunner, tmp_path: Path) -> None:
    doc = _scenario(
        seed_memories=[
            {"id": "mem_t_rule", "summary": "Lint rule: ruff check runs in CI."},
            {"id": "mem_t_x", "summary": "Lint rule: flake8.", "trust": "pending"},
        ],
        expected_recall=["mem_t_x"],
    )
    path = _write(tmp_path, doc)
    result = run_cli("quality", str(path), root=False)
    assert result.code == 1
    assert "FAIL" in result.out and "missed: mem_t_x" in result.out
    broken = _write(tmp_path, {"name": "x"}, "broken.json")
    result = run_cli("quality", str(broken), "--json", root=False)
    assert result.code == 1
    assert "category" in result.json()["items"][0]["error"]
