"""What an export judges a damaged row by (`store/damage.py`): a time is one
an import takes, judged as the import judges it, and `live.by_time` splits a
view's clause without changing what it admits."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import now_iso, parse_time
from tree_ring.store import damage, listing, live
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.transfer.export import export_rows
from tree_ring.write import pipeline


def import_takes(value: object) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    try:
        parse_time(value)
    except UsageError:
        return False
    return True


@pytest.mark.parametrize(
    "value",
    [
        None,
        "2026-11-29T13:00:00.000000Z",
        "2024-02-29T00:00:00.000000Z",  # a leap day
        "2026-02-29T00:00:00.000000Z",  # none that year
        "2026-04-31T00:00:00.000000Z",
        "2026-13-01T00:00:00.000000Z",
        "2026-00-10T00:00:00.000000Z",
        "0000-01-01T00:00:00.000000Z",
        "2026-11-29T24:00:00.000000Z",
        "2026-11-29T13:60:00.000000Z",
        "2026-11-29T13:00:00Z",  # another form an import reads
        "2026-11-29 13:00",
        " 2026-11-29T13:00:00.000000Z",
        "2026-11-29X13:00:00",  # datetime reads it, an import does not
        "111111111111111",
        "yesterday",
        "never",
        "0",
        "",
        5,
        b"2026-11-29T13:00:00.000000Z",
    ],
)
def test_a_time_is_judged_as_an_import_judges_it(value: object) -> None:
    assert damage.is_time(value) is import_takes(value)


@pytest.mark.parametrize(
    "view",
    [
        View(),
        View(include_unreviewed=True, include_sensitive=True),
        View(include_superseded=True),
        View(include_superseded=True, include_unreviewed=True, include_sensitive=True),
        View(as_of="2099-01-01T00:00:00.000000Z"),
    ],
)
def test_split_by_time_the_view_admits_what_it_did(
    store: Store, project_id: str, view: View
) -> None:
    now = now_iso()
    kinds = [
        {},
        {"expires_at": "2099-01-01T00:00:00.000000Z"},
        {"valid_to": "2099-01-01T00:00:00.000000Z"},
        {"valid_from": "2099-01-01T00:00:00.000000Z"},
        {"trust": "pending"},
        {"sensitivity": "health"},
        {},
    ]
    for n, kind in enumerate(kinds):
        pipeline.store_memory(store, make_memory(project_id, f"Split fact {n}", **kind), PERSON)
    with store.write() as db:  # ends and retirements a write refuses to make past
        db.execute("UPDATE memories SET expires_at = ? WHERE summary = 'Split fact 1'", (now,))
        db.execute("UPDATE memories SET valid_to = ? WHERE summary = 'Split fact 2'", (now,))
        db.execute("UPDATE memories SET retired_at = ? WHERE summary = 'Split fact 0'", (now,))
    scope = live.visible(Identity(project_id), whole_project=True)
    untimed, timed, _ = live.by_time(view)
    split = live.Clause(
        f"{scope.sql} AND {live.sql(untimed)} AND {timed.sql}", {**scope.params, **timed.params}
    )
    whole = live.where(Identity(project_id), view, whole_project=True)
    admitted = [row["id"] for row in listing.in_order(store.db, whole)]
    assert 0 < len(admitted) < len(kinds)
    assert [row["id"] for row in listing.in_order(store.db, split)] == admitted


@pytest.mark.parametrize("value", ["never", "0"])
def test_an_export_of_the_past_names_a_damaged_row_too(
    store: Store, project_id: str, value: str
) -> None:
    """A view of the past is no list of tests to judge one time without:
    a row whose time is no time is named whenever the rest of it holds."""
    sound, bad = (make_memory(project_id, f"Past fact {n}") for n in range(2))
    for memory in (sound, bad):
        pipeline.store_memory(store, memory, PERSON)
    with store.write() as db:
        db.execute("UPDATE memories SET valid_to = ? WHERE id = ?", (value, bad.id))
    left_out: list[str] = []
    view = View(as_of="2099-01-01T00:00:00.000000Z")
    written = [row["id"] for row in export_rows(store, project_id, view, left_out=left_out)]
    assert (written, left_out) == ([sound.id], [bad.id])
