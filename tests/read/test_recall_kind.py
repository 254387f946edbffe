"""A question's kind: a memory that bears what it asks for (a time, a
number, a reason, a place) ranks above one that holds the same words but
not that."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.read import ranking
from tree_ring.read.query import KINDS
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline


@pytest.mark.parametrize(
    ("question", "answers", "other"),
    [
        (
            "when did the cache move",
            "The cache moved to Redis from the old cluster last March, after a review",
            "The cache moved to Redis",
        ),
        (
            "how many cache replicas",
            "The cache runs three replicas on the shared hosts of the platform team",
            "The cache runs replicas",
        ),
        (
            "why did the cache move",
            "The cache moved off Memcached because its eviction was unpredictable under load",
            "The cache moved off Memcached",
        ),
        (
            "where do cache snapshots go",
            "Cache snapshots go to Glacier every night, compressed and encrypted first",
            "Cache snapshots go out",
        ),
    ],
)
def test_the_memory_bearing_what_is_asked_ranks_first(
    store: Store, identity: Identity, question: str, answers: str, other: str
) -> None:
    # The answer is longer (bm25 favours the other) and written first (the
    # newer one wins a tie): only its kind puts it first.
    first = make_memory(identity.project, answers)
    second = make_memory(identity.project, other)
    for memory in (first, second):
        pipeline.store_memory(store, memory, PERSON)
    hits = recall(store, identity, question)
    assert [h.memory.id for h in hits] == [first.id, second.id]
    kind = next(k for k, (cues, _) in KINDS.items() if question.startswith(cues))
    assert hits[0].parts["kind"] == pytest.approx(
        ranking.WEIGHTS["kind"] * ranking.KIND_SCALE.get(kind, 1.0)
    )
    assert hits[1].parts["kind"] == 0.0
