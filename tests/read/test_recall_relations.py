"""Related words in recall: the hand list and the derived relations, bounded
and weighted below the question's own words, phrases of the question too."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.read import lexicon, query, relations
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline

DERIVED = {
    "zorbling": (("quuxer", 0.9), ("blarf", 0.3), ("zorbling", 1.0)),
    "flux capacitor": (("time engine", 0.8),),
    "wide": tuple((f"kin{n:02d}", 1.0 - n / 100) for n in range(12)),
}


@pytest.fixture
def derived(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relations, "related", lambda term: DERIVED.get(term, ()))


@pytest.mark.usefixtures("derived")
def test_related_merges_the_sources_strongest_first_and_bounded() -> None:
    # The hand list first at its weight, then the derived relations by theirs;
    # a weak relation and the term itself are left out.
    assert query.related("zorbling") == (("quuxer", 0.9),)
    assert query.related("wide") == DERIVED["wide"][: query.MAX_KIN]
    hand = query.related("db")
    assert [w for w, _ in hand] == list(lexicon.related("db"))[: query.MAX_KIN]
    assert {weight for _, weight in hand} == {query.HAND_WEIGHT}
    assert query.related("nothing known") == ()


@pytest.mark.usefixtures("derived")
def test_a_phrase_of_the_question_brings_its_relations_to_its_words() -> None:
    question = query.understand("why did the flux capacitor fail")
    assert question.kin["flux"] == ("time engine",)
    assert question.kin["capacitor"] == ("time engine",)
    (flux,) = [c for c in question.concepts if c.word == "flux"]
    assert flux.stems == {"flux": 1.0, "time engin": pytest.approx(query.RELATED_WEIGHT * 0.8)}


@pytest.mark.usefixtures("derived")
def test_a_related_word_and_phrase_find_memories_below_literal_ones(
    store: Store, identity: Identity
) -> None:
    literal = pipeline.store_memory(
        store, make_memory(identity.project, "The zorbling is fine"), PERSON
    ).id
    related = pipeline.store_memory(
        store, make_memory(identity.project, "The quuxer broke twice"), PERSON
    ).id
    weak = pipeline.store_memory(store, make_memory(identity.project, "The blarf broke"), PERSON).id
    found = [h.memory.id for h in recall(store, identity, "zorbling")]
    assert found == [literal, related]
    assert weak not in found
    engine = pipeline.store_memory(
        store, make_memory(identity.project, "The time engine overheats"), PERSON
    ).id
    pipeline.store_memory(store, make_memory(identity.project, "Time to lunch"), PERSON)
    hits = recall(store, identity, "flux capacitor")
    assert [h.memory.id for h in hits] == [engine]
    assert hits[0].parts["relevance"] > 0


@pytest.mark.usefixtures("derived")
def test_a_word_with_many_relations_searches_at_most_max_kin(
    store: Store, identity: Identity
) -> None:
    for n in range(12):
        pipeline.store_memory(store, make_memory(identity.project, f"Note on kin{n:02d}"), PERSON)
    found = {h.memory.summary for h in recall(store, identity, "wide", limit=20)}
    assert found == {f"Note on kin{n:02d}" for n in range(query.MAX_KIN)}
