"""A caller's sensitivity label and what the guard finds: the stronger wins.

The guard's order, strongest first: personal_identifier, health, financial,
legal, private (written out here, not read from the guard, so a reordered
guard shows up as a failing test).
"""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.write import pipeline

HEALTH = "Maria was diagnosed with celiac disease last spring"
IDENTIFIER = "Customer SSN on the refund ticket was 536-22-4187, scrub it from the logs"
FINANCIAL = "Refund went to card number 5425233430109903"
PLAIN = "The refund job runs nightly"


@pytest.mark.parametrize(
    ("label", "text", "stored"),
    [
        # The guard finds something stronger than the label: the guard wins.
        ("private", HEALTH, "health"),
        ("legal", FINANCIAL, "financial"),
        ("health", IDENTIFIER, "personal_identifier"),
        # The label is stronger than what the guard finds: the label wins.
        ("health", FINANCIAL, "health"),
        ("personal_identifier", HEALTH, "personal_identifier"),
        ("financial", HEALTH, "health"),
        # Either alone.
        ("normal", HEALTH, "health"),
        ("private", PLAIN, "private"),
        ("normal", PLAIN, "normal"),
        ("health", HEALTH, "health"),
    ],
)
def test_the_stronger_sensitivity_wins(
    store: Store, project_id: str, label: str, text: str, stored: str
) -> None:
    result = pipeline.store_memory(store, make_memory(project_id, text, sensitivity=label), PERSON)
    assert result.sensitivity == stored
    assert rows.get(store.db, result.id).sensitivity == stored
