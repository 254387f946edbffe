"""Memories written beside a match: context, and the reply after a question."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.read import ranking
from tree_ring.read.beside import ANSWERED_AFTER, CONTEXT_REACH, NEIGHBOUR_MATCH, REPLY_MATCH
from tree_ring.read.recall import recall
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def _store_in_order(store: Store, *memories: Memory) -> None:
    with store.write() as conn:
        for memory in memories:
            pipeline.insert_prepared(conn, memory, PERSON)


def _asked_and_answered(project: str | None, **answer_fields: object) -> tuple[Memory, Memory]:
    asked = make_memory(project, "Which message broker did the team pick for the queue?")
    answer = make_memory(project, "RabbitMQ, since it runs on one box", **answer_fields)
    return asked, answer


def test_the_reply_to_a_matching_question_is_recalled(store: Store, identity: Identity) -> None:
    asked, answer = _asked_and_answered(identity.project)
    _store_in_order(store, asked, answer)
    hits = recall(store, identity, "message broker for the queue")
    # The reply answers what was asked: it ranks first (`ranking`'s `answered`).
    assert [h.memory.id for h in hits] == [answer.id, asked.id]
    assert hits[0].query == REPLY_MATCH
    assert hits[0].parts["context"] == pytest.approx(ranking.WEIGHTS["context"])
    assert hits[0].parts["answered"] == pytest.approx(ranking.WEIGHTS["answered"])


def test_a_statement_brings_no_reply(store: Store, identity: Identity) -> None:
    said = make_memory(identity.project, "The team picked a message broker for the queue")
    after = make_memory(identity.project, "RabbitMQ, since it runs on one box")
    _store_in_order(store, said, after)
    hits = recall(store, identity, "message broker for the queue")
    assert [h.memory.id for h in hits] == [said.id]


@pytest.mark.parametrize(
    ("project", "fields"),
    [
        ("another-project", {}),
        (None, {"sensitivity": "sensitive"}),
        (None, {"trust": "pending"}),
    ],
)
def test_an_invisible_reply_stays_invisible(
    store: Store, identity: Identity, project: str | None, fields: dict[str, object]
) -> None:
    asked, answer = _asked_and_answered(identity.project)
    answer = make_memory(project or identity.project, answer.summary, **fields)
    _store_in_order(store, asked, answer)
    hits = recall(store, identity, "message broker for the queue")
    assert [h.memory.id for h in hits] == [asked.id]


# A conversation: a statement, a question about it, its answer. The answer
# holds one of the question's words (the speaker's name) and nothing else of it.
PICNIC = (
    "Maria: last weekend I had a picnic with my friends from church",
    "John: sounds lovely! What did you all get up to there?",
    "Maria: charades and a scavenger hunt, we laughed a lot",
)
PICNIC_QUESTION = "What games did Maria play at the church picnic?"
# More memories holding the speaker's name than recall's ladder reads past
# the statement (`rungs.OR_BUDGET`): the answer is found only beside it.
DISTRACTORS = 1_000


def _at(start: datetime, seconds: float) -> str:
    return (start + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _conversation(
    store: Store, home: str, turns: tuple[str, ...], gap: float, **answer_fields: object
) -> list[Memory]:
    """`DISTRACTORS` newer memories holding the speaker's name, each an hour from the
    others, written after `turns` (each `gap` seconds after the one before)."""
    start = datetime.now(UTC) - timedelta(days=2)
    written = [
        make_memory(home, text, created_at=_at(start, i * gap)) for i, text in enumerate(turns[:-1])
    ]
    written.append(
        make_memory(
            str(answer_fields.pop("project", home)),
            turns[-1],
            created_at=_at(start, (len(turns) - 1) * gap),
            **answer_fields,
        )
    )
    later = [
        make_memory(
            home,
            f"Maria: walked the dog round block {n} this morning",
            created_at=_at(start, 86_400 + 3_600 * n),
        )
        for n in range(DISTRACTORS)
    ]
    _store_in_order(store, *written)
    with store.write() as db:  # the rows alone: the write path's checks are not under test
        rows.insert_many(db, later)
    return written


def test_the_answer_to_a_question_about_a_match_is_recalled(
    store: Store, identity: Identity
) -> None:
    """A thousand newer memories hold the speaker's name as the answer does;
    the answer, two after the statement that matches with the question
    between, is brought beside the statement and ranks next to it."""
    statement, _, answer = _conversation(store, identity.project, PICNIC, gap=1)
    hits = recall(store, identity, PICNIC_QUESTION, limit=3)
    assert [h.memory.id for h in hits][:2] == [statement.id, answer.id]
    assert hits[1].query == NEIGHBOUR_MATCH
    assert hits[1].parts["context"] == pytest.approx(
        ranking.WEIGHTS["context"] * ANSWERED_AFTER, rel=0.05
    )


def test_turns_written_apart_lend_no_context(store: Store, identity: Identity) -> None:
    """The same turns written an hour apart are not one conversation."""
    _, _, answer = _conversation(store, identity.project, PICNIC, gap=3_600)
    hits = recall(store, identity, PICNIC_QUESTION, limit=3)
    assert answer.id not in {h.memory.id for h in hits}


def test_without_the_question_between_the_answer_lends_less(
    store: Store, identity: Identity
) -> None:
    """A statement, then a remark that asks nothing, then a memory holding a
    question word: the last is no answer to the first; only what is just
    beside it lends it context."""
    turns = (PICNIC[0], "John: sounds lovely.", PICNIC[2])
    _, _, answer = _conversation(store, identity.project, turns, gap=1)
    hits = recall(store, identity, PICNIC_QUESTION, limit=10)
    got = {h.memory.id: h for h in hits}
    assert answer.id not in got or got[answer.id].parts["context"] < (
        ranking.WEIGHTS["context"] * ANSWERED_AFTER / 2
    )


def test_a_neighbour_beyond_reach_is_not_brought(store: Store, identity: Identity) -> None:
    """Three turns after the statement is past CONTEXT_REACH."""
    turns = (PICNIC[0], PICNIC[1], "John: and the weather?", PICNIC[2])
    assert CONTEXT_REACH == 2
    _, _, _, answer = _conversation(store, identity.project, turns, gap=1)
    hits = recall(store, identity, PICNIC_QUESTION, limit=3)
    assert answer.id not in {h.memory.id for h in hits}


@pytest.mark.parametrize(
    "fields",
    [{"project": "another-project"}, {"sensitivity": "sensitive"}, {"trust": "pending"}],
)
def test_an_invisible_neighbour_stays_invisible(
    store: Store, identity: Identity, fields: dict[str, object]
) -> None:
    _, _, answer = _conversation(store, identity.project, PICNIC, gap=1, **fields)
    hits = recall(store, identity, PICNIC_QUESTION, limit=20)
    assert answer.id not in {h.memory.id for h in hits}
    assert {h.memory.id for h in recall(store, identity, "charades scavenger", limit=20)} == set()


def test_a_neighbour_forgotten_elsewhere_stays_hidden(store: Store, identity: Identity) -> None:
    """Ids recall is told to hide (forgotten in the person's other store,
    `read/forgotten_here.py`) are not brought beside a match either."""
    statement, _, answer = _conversation(store, identity.project, PICNIC, gap=1)
    hits = recall(store, identity, PICNIC_QUESTION, limit=3, hidden={answer.id})
    assert hits[0].memory.id == statement.id
    assert answer.id not in {h.memory.id for h in hits}
    assert answer.id in {h.memory.id for h in recall(store, identity, PICNIC_QUESTION, limit=3)}
