"""Literal first: a memory holding the question's own words outranks one
related to it only through related words, whatever else either scores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers import PERSON, CliRunner, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import format_time
from tree_ring.read import query
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def _store(store: Store, identity: Identity, summary: str, days_old: float, weight: float) -> str:
    at = format_time(datetime.now(UTC) - timedelta(days=days_old))
    memory = make_memory(
        identity.project,
        summary,
        created_at=at,
        valid_from=at,
        salience=weight,
        confidence=weight,
        source_type="user" if weight > 0.5 else "import",
    )
    return pipeline.store_memory(store, memory, PERSON).id


def test_the_question_word_outranks_a_related_one(store: Store, identity: Identity) -> None:
    # The related memory is newer, surer and more salient: only its words differ.
    literal = _store(store, identity, "The request timeout is 60s", 300, 0.1)
    related = _store(store, identity, "Cache warmup halves p95", 0, 1.0)
    hits = recall(store, identity, "timeout")
    assert [h.memory.id for h in hits] == [literal, related]
    assert [h.literal for h in hits] == [True, False]


@pytest.mark.parametrize(
    "question",
    ["zorbling", "zorbling frobnicator", "what zorbling do we use", "frobnicator of the zorbling"],
)
def test_any_related_only_memory_ranks_after_every_literal_one(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    # A made-up relation, so the rule is shown for any word, not one pair.
    monkeypatch.setattr(query, "related", lambda w: (("quuxer", 1.0),) if w == "zorbling" else ())
    related = {_store(store, identity, f"The quuxer rules, number {n}", 0, 1.0) for n in range(3)}
    literal = {_store(store, identity, "A zorbling note", 400, 0.0)}
    if "frobnicator" in question:
        literal.add(_store(store, identity, "Old frobnicator remark", 400, 0.0))
    hits = recall(store, identity, question)
    ranked = [h.memory.id for h in hits]
    assert set(ranked[: len(literal)]) == literal
    assert set(ranked[len(literal) :]) == related


def test_json_says_which_hits_are_literal(run_cli: CliRunner) -> None:
    run_cli("remember", "The request timeout is 60s")
    run_cli("remember", "Cache warmup halves p95")
    items = run_cli("--json", "recall", "timeout").json()["items"]
    assert [(i["summary"], i["literal"]) for i in items] == [
        ("The request timeout is 60s", True),
        ("Cache warmup halves p95", False),
    ]


def test_plain_output_says_which_hits_only_related_words_found(run_cli: CliRunner) -> None:
    """A hit below another of lower score says why: the question's words did not find it."""
    run_cli("remember", "The request timeout is 60s")
    run_cli("remember", "Cache warmup halves p95")
    lines = run_cli("recall", "timeout").out.splitlines()
    assert [line.endswith("; related words)") for line in lines] == [False, True]
    assert "Cache warmup halves p95" in lines[1]


def test_where_nothing_holds_the_words_related_and_near_rank_by_score(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Literal first has nothing to put first: what related words found ranks
    with the rest by its score, never below a hit it outscores."""
    monkeypatch.setattr(query, "related", lambda w: (("quuxer", 1.0),) if w == "zorbling" else ())
    related = _store(store, identity, "The quuxer rules the build", 0, 1.0)
    _store(store, identity, "Lunch is at noon on Fridays", 0, 0.1)
    hits = recall(store, identity, "zorbling")
    assert related in {h.memory.id for h in hits}
    assert all(h.literal for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
