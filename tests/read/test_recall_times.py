"""Recall reads each candidate's time; a time that is not in the stored form
(a row edited by hand) is read as well as it can be, never a failure."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import seconds_of
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline


@pytest.mark.parametrize(
    ("stamp", "seconds"),
    [
        ("2026-01-01T00:00:00.000000Z", 1_767_225_600.0),
        ("2026-01-01T00:00:00Z", 1_767_225_600.0),
        ("2026-01-01T00:00:00", 1_767_225_600.0),  # no offset: taken as UTC
        ("2026-01-01T01:00:00+01:00", 1_767_225_600.0),
        ("not a time", None),
    ],
)
def test_a_candidates_time_is_read_in_any_iso_form(stamp: str, seconds: float | None) -> None:
    assert seconds_of(stamp) == seconds


def test_a_row_with_a_hand_edited_time_is_recalled(store: Store, identity: Identity) -> None:
    kept = make_memory(identity.project, "Vendored wheels live under third_party/wheels")
    other = make_memory(identity.project, "Vendored wheels are rebuilt by the nightly job")
    for memory in (kept, other):
        pipeline.store_memory(store, memory, PERSON)
    with store.write() as db:
        db.execute(
            "UPDATE memories SET created_at = '2025-06-01T08:00:00' WHERE id = ?", (kept.id,)
        )
    found = {hit.memory.id for hit in recall(store, identity, "vendored wheels")}
    assert found == {kept.id, other.id}
