"""A memory whose match lies in a question it asks ranks below one that says
the same words: in a conversation, "How long do you hold the plank pose?"
holds the question's words, and a statement about it holds the answer
(`ranking`'s `asking`, the share of a memory's relevance in its questions)."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.read import ranking
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline

QUESTION = "how long does Caroline hold the plank pose"
# Longer (bm25 favours the other) and written first (the newer wins a tie).
SAYS = "Caroline: these days I hold the plank pose for two full minutes after my morning run"
ASKS = "Melanie: Caroline, how long do you hold the plank pose?"
# A memory that asks a question of words the question does not hold.
ASKS_ELSE = "Caroline: I hold the plank pose every day. Do you want to join me on Sunday?"


def _stored(store: Store, identity: Identity, *texts: str) -> list[str]:
    ids = []
    for text in texts:
        memory = make_memory(identity.project, text)
        pipeline.store_memory(store, memory, PERSON)
        ids.append(memory.id)
    return ids


def test_the_memory_that_says_it_ranks_above_the_one_that_asks_it(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    says, asks = _stored(store, identity, SAYS, ASKS)
    hits = recall(store, identity, QUESTION)
    assert [h.memory.id for h in hits[:2]] == [says, asks]
    assert hits[0].parts["asking"] == 0.0
    assert hits[1].parts["asking"] == pytest.approx(-ranking.WEIGHTS["asking"])
    # Without the part, the shorter, newer question ranks first.
    monkeypatch.setitem(ranking.WEIGHTS, "asking", 0.0)
    assert [h.memory.id for h in recall(store, identity, QUESTION)[:2]] == [asks, says]


def test_only_the_relevance_of_its_questions_counts(store: Store, identity: Identity) -> None:
    (memory,) = _stored(store, identity, ASKS_ELSE)
    (hit,) = recall(store, identity, QUESTION)
    assert hit.memory.id == memory and hit.parts["asking"] == 0.0


# The reply to ASKS: it answers in words of its own.
REPLY = "Caroline: two full minutes, usually after my morning run"


def test_the_reply_to_a_question_is_weighed_by_what_was_asked(
    store: Store, identity: Identity
) -> None:
    asks, reply = _stored(store, identity, ASKS, REPLY)
    hits = {h.memory.id: h for h in recall(store, identity, QUESTION)}
    # ASKS holds the best relevance, all of it in its question.
    assert hits[reply].parts["answered"] == pytest.approx(ranking.WEIGHTS["answered"])
    assert hits[asks].parts["answered"] == 0.0


def test_a_reply_to_a_question_of_other_words_is_not(store: Store, identity: Identity) -> None:
    _, reply = _stored(store, identity, ASKS_ELSE, REPLY)
    hits = {h.memory.id: h for h in recall(store, identity, QUESTION)}
    # The reply is a candidate (it names Caroline), and gains nothing.
    assert hits[reply].parts["answered"] == 0.0
