"""Review decisions on rows whose neighbours moved while they waited."""

from __future__ import annotations

import pytest
from conftest import AGENT, PERSON, make_memory

from tree_ring.model.errors import Conflict
from tree_ring.review import queue as review
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.write import correct, pipeline


def remember(store: Store, project_id: str, summary: str, **fields: object) -> str:
    return pipeline.store_memory(store, make_memory(project_id, summary, **fields), PERSON).id


def waiting_replacement(store: Store, project_id: str, old: str) -> str:
    """An agent's replacement of a row it did not write: it waits for review."""
    memory = make_memory(project_id, "Builds use the new runner pool", supersedes=(old,))
    result = pipeline.store_memory(store, memory, AGENT)
    assert result.trust == "pending"
    return result.id


def test_approval_supersedes_what_the_row_was_waiting_to_replace(
    store: Store, project_id: str
) -> None:
    old = remember(store, project_id, "Builds use the old runner pool")
    new = waiting_replacement(store, project_id, old)
    decision = review.approve(store, new, actor=PERSON)
    assert decision.superseded == (old,)
    assert rows.get(store.db, old).superseded_by == new


@pytest.mark.parametrize("meanwhile", ["superseded", "redacted", "deleted"])
def test_approval_skips_a_target_that_left_meanwhile(
    store: Store, project_id: str, meanwhile: str
) -> None:
    old = remember(store, project_id, "Builds use the old runner pool")
    new = waiting_replacement(store, project_id, old)
    if meanwhile == "superseded":
        other = remember(store, project_id, "Builds use a hosted runner")
        correct.supersede(store, old, other, reason="hosted now", actor=PERSON)
    else:
        mode = "redact" if meanwhile == "redacted" else "delete"
        correct.forget(store, old, mode=mode, reason="wrong", actor=PERSON)
    decision = review.approve(store, new, actor=PERSON)
    assert (decision.trust, decision.superseded) == ("accepted", ())
    assert rows.get(store.db, new).trust == "accepted"


def test_a_rejected_row_cannot_be_approved_or_disputed(store: Store, project_id: str) -> None:
    new = waiting_replacement(store, project_id, remember(store, project_id, "Old runner pool"))
    review.reject(store, new, actor=PERSON, reason="the pool is not ready")
    for decide in (
        lambda: review.approve(store, new, actor=PERSON),
        lambda: review.dispute(store, new, actor=PERSON, reason="x"),
        lambda: review.reject(store, new, actor=PERSON, reason="again"),
    ):
        with pytest.raises(Conflict) as caught:
            decide()
        assert str(caught.value) == f"{new} was already rejected (the pool is not ready)"


def test_a_redacted_row_has_nothing_left_to_review(store: Store, project_id: str) -> None:
    new = waiting_replacement(store, project_id, remember(store, project_id, "Old runner pool"))
    correct.forget(store, new, mode="redact", reason="wrong", actor=PERSON)
    with pytest.raises(Conflict) as caught:
        review.approve(store, new, actor=PERSON)
    assert str(caught.value) == f"{new} was redacted; there is nothing left to review"


def test_a_disputed_row_cannot_be_disputed_again(store: Store, project_id: str) -> None:
    kept = remember(store, project_id, "Deploys go out on Tuesdays")
    review.dispute(store, kept, actor=PERSON, reason="we moved to Thursdays")
    assert rows.get(store.db, kept).trust == "disputed"
    with pytest.raises(Conflict) as caught:
        review.dispute(store, kept, actor=PERSON, reason="again")
    assert str(caught.value) == f"{kept} is already disputed (we moved to Thursdays)"


def test_a_superseded_row_has_nothing_to_dispute(store: Store, project_id: str) -> None:
    old = remember(store, project_id, "Deploys go out on Tuesdays")
    new = remember(store, project_id, "Deploys go out on Thursdays")
    correct.supersede(store, old, new, reason="moved", actor=PERSON)
    with pytest.raises(Conflict) as caught:
        review.dispute(store, old, actor=PERSON, reason="x")
    assert str(caught.value) == f"{old} is no longer current; there is nothing to dispute"
    assert rows.get(store.db, old).trust == "accepted"
