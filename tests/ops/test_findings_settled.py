"""A contradiction a person settled: approving one of the two after both existed."""

from __future__ import annotations

import pytest
from conftest import make_memory

from tree_ring.store import findings

OLD = "2026-01-01T00:00:00.000000Z"
NEW = "2026-01-02T00:00:00.000000Z"


@pytest.mark.parametrize(
    ("trust", "reviewed_at", "settled"),
    [
        ("accepted", NEW, True),  # approved at the very moment the later one was written
        ("accepted", "2026-01-03T00:00:00.000000Z", True),
        ("accepted", "2026-01-01T12:00:00.000000Z", False),  # before the later one existed
        ("accepted", None, False),
        ("pending", "2026-01-03T00:00:00.000000Z", False),
    ],
)
def test_settled_needs_an_approval_after_both_existed(
    trust: str, reviewed_at: str | None, settled: bool
) -> None:
    older = make_memory("p", "the cache is redis", created_at=OLD)
    newer = make_memory("p", "the cache is memcached", created_at=NEW, trust="pending")
    reviewed = older.replace(trust=trust, reviewed_at=reviewed_at)
    assert findings.settled(reviewed, newer) is settled
    assert findings.settled(newer, reviewed) is settled
