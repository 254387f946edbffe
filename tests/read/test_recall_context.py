"""Memories written beside a match: context, and the reply after a question."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.read import ranking
from tree_ring.read.recall import REPLY_MATCH, recall
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
    assert [h.memory.id for h in hits] == [asked.id, answer.id]
    assert hits[1].query == REPLY_MATCH
    assert hits[1].parts["context"] == pytest.approx(ranking.WEIGHTS["context"])


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
