"""Recall and the dates a question names: a memory written then ranks first,
the memories written on a named day join the candidates whatever words they
hold, and hidden rows written that day never crowd out a visible one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import format_time
from tree_ring.read import ranking
from tree_ring.read.query import understand
from tree_ring.read.recall import DATED, DATED_MATCH, recall
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.write import correct, pipeline


def write(store: Store, identity: Identity, summary: str, day: str, **fields: object) -> str:
    at = f"{day}T10:00:00.000000Z"
    memory = make_memory(identity.project, summary, created_at=at, valid_from=at, **fields)
    return pipeline.store_memory(store, memory, PERSON).id


def test_the_date_words_are_not_searched() -> None:
    question = understand("what did we decide about the cache on 3 March 2025?")
    assert "march" not in question.words and "2025" not in question.words
    assert {"decide", "cache"} <= set(question.words)
    assert question.days == ("2025-03-03",)
    assert "march" not in question.names


@pytest.mark.parametrize(
    ("then", "other", "question", "dated"),
    [
        (
            ("We decided the cache keeps entries 5 minutes", "2025-03-03"),
            ("We decided the cache keeps entries 10 minutes", "2025-06-10"),
            "what did we decide about the cache?",
            "what did we decide about the cache on 3 March 2025?",
        ),
        (  # a month without a year: that month of any year
            ("The on-call rota moved to shifts of 2 people", "2019-06-12"),
            ("The on-call rota moved to shifts of 3 people", "2025-09-01"),
            "how did the on-call rota change?",
            "how did the on-call rota change in June?",
        ),
    ],
)
def test_a_memory_written_then_ranks_first(
    store: Store,
    identity: Identity,
    then: tuple[str, str],
    other: tuple[str, str],
    question: str,
    dated: str,
) -> None:
    # The other is newer, more salient and surer: only the date differs.
    first = write(store, identity, *then)
    second = write(store, identity, *other, salience=1.0, confidence=1.0)
    assert [h.memory.id for h in recall(store, identity, question)] == [second, first]
    hits = recall(store, identity, dated)
    assert [h.memory.id for h in hits] == [first, second]
    assert hits[0].parts["time"] == ranking.WEIGHTS["time"]
    assert hits[1].parts["time"] < ranking.WEIGHTS["time"] / 100


def test_a_memory_written_on_the_named_day_joins_whatever_its_words(
    store: Store, identity: Identity
) -> None:
    that_day = write(store, identity, "Switched the pool to twenty connections", "2025-03-03")
    others = {
        write(store, identity, f"We change the logo colour, round {n}", "2025-05-01")
        for n in range(3)
    }
    hits = recall(store, identity, "what did we change on 3 March 2025?", limit=10)
    assert {h.memory.id for h in hits} == others | {that_day}
    (dated,) = [h for h in hits if h.memory.id == that_day]
    assert dated.query == DATED_MATCH
    # Without the date it is no candidate: its words share none with the question.
    undated = recall(store, identity, "what did we change?", limit=10)
    assert {h.memory.id for h in undated} == others


def test_hidden_rows_written_that_day_never_crowd_out_a_visible_one(
    store: Store, identity: Identity
) -> None:
    """More than DATED rows written later the same day, of another project,
    forgotten, secret or unreviewed; the visible one, written first, is found."""
    visible = write(store, identity, "Switched the pool to twenty connections", "2025-03-03")
    late = "2025-03-03T18:00:00.000000Z"
    with store.write() as db:
        for n in range(DATED * 2):
            other = make_memory(
                "another-project", f"Pool note {n}", created_at=late, valid_from=late
            )
            pipeline.insert_prepared(db, other, PERSON)
        for n, fields in enumerate(({"sensitivity": "secret"}, {"trust": "pending"}) * DATED):
            hidden = make_memory(
                identity.project, f"Pool note {n}", created_at=late, valid_from=late, **fields
            )
            pipeline.insert_prepared(db, hidden, PERSON)
    forgotten = [write(store, identity, f"Pool remark {n}", "2025-03-03") for n in range(DATED)]
    for memory_id in forgotten:
        correct.forget(store, memory_id, mode="delete", reason="wrong", actor=PERSON)
    hits = recall(store, identity, "what did we change on 3 March 2025?", limit=10)
    assert {h.memory.id for h in hits} == {visible}


def days_ago(days: float) -> str:
    return format_time(datetime.now(UTC) - timedelta(days=days))


def write_at(store: Store, identity: Identity, summary: str, at: str, **fields: object) -> str:
    memory = make_memory(identity.project, summary, created_at=at, valid_from=at, **fields)
    return pipeline.store_memory(store, memory, PERSON).id


def test_yesterday_counts_back_from_today(store: Store, identity: Identity) -> None:
    yesterday = write_at(store, identity, "The deploy broke the payments page", days_ago(1))
    older = write_at(
        store,
        identity,
        "The deploy broke the search page",
        days_ago(9),
        salience=1.0,
        confidence=1.0,
    )
    quiet = write_at(store, identity, "Office plants are watered on Thursdays", days_ago(1))
    assert [h.memory.id for h in recall(store, identity, "what did the deploy break?")] == [
        older,
        yesterday,
    ]
    hits = recall(store, identity, "what did the deploy break yesterday?")
    assert [h.memory.id for h in hits][:2] == [yesterday, older]
    # Written yesterday, it joins though it shares no word with the question.
    assert {h.memory.id for h in hits} == {yesterday, older, quiet}


def test_a_recall_as_of_a_past_time_counts_back_from_it(store: Store, identity: Identity) -> None:
    # As of 29 days ago, "yesterday" is 30 days ago; the other note is surer.
    then = write_at(store, identity, "The cache keeps entries 5 minutes", days_ago(30))
    before = write_at(
        store,
        identity,
        "The cache keeps entries 10 minutes",
        days_ago(45),
        salience=1.0,
        confidence=1.0,
    )
    write_at(store, identity, "The cache keeps entries 15 minutes", days_ago(1))
    as_of = View(as_of=days_ago(29))
    undated = recall(store, identity, "what did the cache change to?", view=as_of)
    assert [h.memory.id for h in undated] == [before, then]
    hits = recall(store, identity, "what did the cache change to yesterday?", view=as_of)
    assert [h.memory.id for h in hits] == [then, before]


def test_the_days_a_question_names_bring_at_most_dated_memories(
    store: Store, identity: Identity
) -> None:
    days = ("2025-03-03", "2025-03-04", "2025-03-05")
    with store.write() as db:
        for day in days:
            for n in range(DATED):
                at = f"{day}T{n // 60:02d}:{n % 60:02d}:00.000000Z"
                note = make_memory(identity.project, f"Pool note {n}", created_at=at, valid_from=at)
                pipeline.insert_prepared(db, note, PERSON)
    question = "what changed on 3 March 2025, 4 March 2025 or 5 March 2025?"
    hits = recall(store, identity, question, limit=256)
    assert len([h for h in hits if h.query == DATED_MATCH]) == DATED
