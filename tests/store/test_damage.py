"""A stored time is judged as an import judges it (`store/damage.py`)."""

from __future__ import annotations

import pytest

from tree_ring.model.errors import UsageError
from tree_ring.model.record import parse_time
from tree_ring.store import damage


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
