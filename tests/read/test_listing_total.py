"""A listing page's total: every row the clause matches, whether the page is full or not."""

from __future__ import annotations

import pytest
from helpers import make_memory

from tree_ring.model.identity import Identity
from tree_ring.read import listing
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.store.live import View


@pytest.fixture
def seeded(store: Store, project_id: str) -> set[str]:
    """12 live rows, 3 of them evidence, among rows no listing of now counts."""
    live = [make_memory(project_id, f"note {i}") for i in range(9)]
    live += [make_memory(project_id, f"evidence {i}", source_type="evidence") for i in range(3)]
    hidden = [make_memory(project_id, f"gone {i}", trust="rejected") for i in range(20)]
    hidden += [make_memory("another-project", f"elsewhere {i}") for i in range(20)]
    with store.write() as db:
        rows.insert_many(db, [*live, *hidden])
    return {m.id for m in live}


@pytest.mark.parametrize(
    ("limit", "offset", "shown"),
    [(5, 0, 5), (12, 0, 12), (50, 0, 12), (5, 10, 2), (5, 12, 0), (5, 40, 0)],
)
def test_the_total_is_every_matching_row(
    store: Store, project_id: str, seeded: set[str], limit: int, offset: int, shown: int
) -> None:
    page = listing.list_page(
        store, Identity(project_id), View(), whole_project=True, limit=limit, offset=offset
    )
    assert (len(page.memories), page.total) == (shown, 12)
    assert {m.id for m in page.memories} <= seeded


def test_source_type_narrows_the_page_and_its_total(
    store: Store, project_id: str, seeded: set[str]
) -> None:
    page = listing.list_page(
        store, Identity(project_id), View(), whole_project=True, limit=2, source_type="evidence"
    )
    assert (len(page.memories), page.total) == (2, 3)
    whole = listing.list_page(
        store, Identity(project_id), View(), whole_project=True, limit=10, source_type="evidence"
    )
    assert {m.summary for m in whole.memories} == {f"evidence {i}" for i in range(3)}
    assert whole.total == 3
