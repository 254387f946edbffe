"""The ranking formula, part by part, with the weights written out here.

0.30 relevance + 0.20 overlap + 0.15 salience + 0.10 confidence
+ 0.15 recency (exp(-age / 30 days)) + 0.05 authority + 0.10 kind
+ 0.10 subject + 0.30 context + 0.20 ring boost
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from tree_ring.read import ranking
from tree_ring.read.ranking import Candidate, score

BASE = Candidate(
    bm25=-2.0,
    matched_terms=1,
    query_terms=2,
    salience=0.5,
    confidence=0.5,
    age_days=0.0,
    source_type="manual",
    ring="cambium",
)


def candidate(**fields: Any) -> Candidate:
    return BASE.replace(**fields)


def test_every_part_of_one_score() -> None:
    found = score(
        candidate(age_days=30.0, meaning=0.5, unmatched=0.5, time=0.25, asking=0.5), -4.0, set()
    )
    assert found.parts == {
        "relevance": pytest.approx(0.30 * 0.5),
        "overlap": pytest.approx(0.20 * 0.5),
        "salience": pytest.approx(0.15 * 0.5),
        "confidence": pytest.approx(0.10 * 0.5),
        "recency": pytest.approx(0.15 * math.exp(-1.0), abs=1e-6),
        "authority": pytest.approx(0.05 * 0.8),
        "kind": 0.0,
        "subject": 0.0,
        "context": 0.0,
        "meaning": pytest.approx((0.10 + 1.40 * 0.5**3) * 0.5),
        "time": pytest.approx(0.50 * 0.25),
        "asking": pytest.approx(-0.15 * 0.5),
        "answered": 0.0,
        "ring_boost": 0.0,
    }
    assert found.total == pytest.approx(sum(found.parts.values()), abs=1e-6)


@pytest.mark.parametrize(
    ("fields", "best", "part", "value"),
    [
        ({"bm25": -4.0}, -4.0, "relevance", 0.30),  # the best candidate
        ({"bm25": -8.0}, -4.0, "relevance", 0.30),  # capped at 1
        ({"bm25": 1.0}, -4.0, "relevance", 0.0),  # floored at 0
        ({"bm25": -4.0}, 0.0, "relevance", 0.0),  # no usable best: no relevance
        ({"matched_terms": 2, "query_terms": 2}, -1.0, "overlap", 0.20),
        ({"meaning": 1.0}, -1.0, "meaning", 0.10),  # a candidate holds every word
        ({"meaning": 1.0, "unmatched": 1.0}, -1.0, "meaning", 1.50),  # none holds any
        ({"meaning": 1.0, "unmatched": 0.25}, -1.0, "meaning", 0.121875),  # the cube: a little
        ({"meaning": 1.0, "unmatched": 1.5}, -1.0, "meaning", 1.50),  # capped at 1
        ({"asking": 1.0}, -1.0, "asking", -0.15),  # all its relevance in its questions
        ({"asking": 2.0}, -1.0, "asking", -0.15),  # capped at 1
        ({"answered": 1.0}, -1.0, "answered", 0.25),  # the best relevance, asked just before
        ({"answered": 2.0}, -1.0, "answered", 0.25),  # capped at 1
        ({"meaning": 1.5, "unmatched": 1.0}, -1.0, "meaning", 1.50),  # capped at 1
        ({"meaning": -0.4, "unmatched": 1.0}, -1.0, "meaning", 0.0),  # floored at 0
        ({"time": 1.0}, -1.0, "time", 0.50),  # written within a date the question names
        ({"time": 2.0}, -1.0, "time", 0.50),  # capped at 1
        ({"time": -1.0}, -1.0, "time", 0.0),  # floored at 0
        ({"matched_terms": 3, "query_terms": 2}, -1.0, "overlap", 0.20),  # capped at 1
        ({"matched_terms": 0, "query_terms": 0}, -1.0, "overlap", 0.0),
        ({"salience": 1.0}, -1.0, "salience", 0.15),
        ({"confidence": 1.0}, -1.0, "confidence", 0.10),
        ({"age_days": 0.0}, -1.0, "recency", 0.15),
        ({"age_days": -5.0}, -1.0, "recency", 0.15),  # a clock skew is not fresher than now
        ({"source_type": "user"}, -1.0, "authority", 0.05),
        ({"source_type": "person"}, -1.0, "authority", 0.05),
        ({"source_type": "evidence"}, -1.0, "authority", 0.045),
        ({"source_type": "consolidation"}, -1.0, "authority", 0.03),
        ({"source_type": "agent"}, -1.0, "authority", 0.025),
        ({"source_type": "import"}, -1.0, "authority", 0.02),
        ({"source_type": "something"}, -1.0, "authority", 0.015),
        ({"kind_match": 1.0}, -1.0, "kind", 0.10),
        ({"subject": 1.0}, -1.0, "subject", 0.10),
        ({"context": 0.5}, -1.0, "context", 0.15),
        ({"context": 3.0}, -1.0, "context", 0.30),  # capped at 1
        ({"context": -1.0}, -1.0, "context", 0.0),  # floored at 0
    ],
)
def test_each_part_and_its_bounds(
    fields: dict[str, Any], best: float, part: str, value: float
) -> None:
    assert score(candidate(**fields), best, set()).parts[part] == pytest.approx(value)


def test_the_ring_boost_only_for_a_wanted_ring() -> None:
    scar = candidate(ring="scar")
    assert score(scar, -1.0, {"scar"}).parts["ring_boost"] == 0.20
    assert score(scar, -1.0, {"heartwood"}).parts["ring_boost"] == 0.0
    assert score(scar, -1.0, set()).parts["ring_boost"] == 0.0
    assert score(scar, -1.0, {"scar"}).total == pytest.approx(score(scar, -1.0, set()).total + 0.2)


def test_relative_orders() -> None:
    def total(**fields: Any) -> float:
        return score(candidate(**fields), -4.0, set()).total

    assert total(bm25=-4.0) > total(bm25=-2.0)
    assert total(matched_terms=2) > total(matched_terms=1)
    assert total(salience=0.9) > total(salience=0.5)
    assert total(confidence=0.9) > total(confidence=0.5)
    assert total(age_days=1.0) > total(age_days=10.0)
    assert total(source_type="user") > total(source_type="agent")
    assert total(kind_match=1.0) > total(kind_match=0.0)
    assert total(subject=1.0) > total(subject=0.0)
    assert total(context=0.5) > total(context=0.0)
    # A fresher duplicate beats a month-old one, all else equal.
    assert total(age_days=0.0) - total(age_days=30.0) == pytest.approx(0.15 * (1 - math.exp(-1)))


@pytest.mark.parametrize(
    ("words", "rings"),
    [
        (["deploy", "failure"], {"scar"}),
        (["decision", "cache"], {"heartwood"}),
        (["roadmap"], {"seed"}),
        (["latest", "eval"], {"cambium", "outer"}),
        (["deploy", "cache"], set()),
    ],
)
def test_intents(words: list[str], rings: set[str]) -> None:
    assert ranking.intents(words) == rings
