"""Relevance is each match's bm25 against the best match of its rung: the
best scores the whole relevance weight, every other match less."""

from __future__ import annotations

from conftest import CliRunner

from tree_ring.read import ranking

SUMMARIES = [
    "Deploy the cache nightly",
    "Deploy cache warmup before traffic shifts to the new region",
    "The cache deploy checklist lives in docs and names every deploy step",
    "Cache sizes and deploy windows for the staging and production clusters",
]


def test_the_best_match_takes_the_whole_relevance_weight(run_cli: CliRunner) -> None:
    for summary in SUMMARIES:
        assert run_cli("remember", summary).code == 0
    results = run_cli("--json", "recall", "deploy cache").json()["items"]
    parts = [result["score_parts"]["relevance"] for result in results]
    assert len(parts) == len(SUMMARIES)
    weight = ranking.WEIGHTS["relevance"]
    assert max(parts) == weight
    assert all(0 < part <= weight for part in parts)
    assert min(parts) < weight  # the matches differ: not all of them are the best
