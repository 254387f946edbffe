"""Where `audit --audit-type stale` draws its lines: exactly at the cutoff, the
salience floor and the expiry moment."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import make_memory

from tree_ring.review import findings
from tree_ring.store import rows
from tree_ring.store.db import Store

NOW = "2026-06-01T00:00:00.000000Z"
CUTOFF_90 = "2026-03-03T00:00:00.000000Z"  # NOW minus 90 days


def add(store: Store, project_id: str, **fields: Any) -> str:
    fields.setdefault("created_at", "2026-01-01T00:00:00.000000Z")
    memory = make_memory(project_id, f"Fact {len(fields)} {sorted(fields.items())}", **fields)
    with store.write() as db:
        rows.insert(db, memory)
    return memory.id


@pytest.mark.parametrize(
    ("fields", "is_stale"),
    [
        ({"updated_at": CUTOFF_90, "salience": 0.1}, False),  # at the cutoff: not yet
        ({"updated_at": "2026-03-02T23:59:59.999999Z", "salience": 0.1}, True),
        ({"updated_at": "2026-01-01T00:00:00.000000Z", "salience": 0.5}, False),  # not faint
        ({"updated_at": "2026-01-01T00:00:00.000000Z", "salience": 0.49}, True),
        ({"updated_at": "2026-01-01T00:00:00.000000Z", "salience": 0.1,
          "retention": "user_pinned"}, False),  # a person pinned it
        ({"updated_at": NOW, "expires_at": NOW}, True),  # expired this very moment
        ({"updated_at": NOW, "expires_at": "2026-06-01T00:00:00.000001Z"}, False),
        ({"updated_at": "2026-01-01T00:00:00.000000Z", "salience": 0.1,
          "retired_at": "2026-02-01T00:00:00.000000Z"}, False),  # no longer on record
    ],
)  # fmt: skip
def test_stale_at_its_bounds(
    store: Store, project_id: str, fields: dict[str, Any], is_stale: bool
) -> None:
    memory_id = add(store, project_id, **fields)
    found = findings.stale(store.db, project_id, NOW)
    assert {f.id for f in found} == ({memory_id} if is_stale else set())


def test_the_reason_says_which_line_was_crossed(store: Store, project_id: str) -> None:
    expired = add(store, project_id, updated_at=NOW, expires_at="2026-05-01T00:00:00.000000Z")
    faint = add(store, project_id, updated_at="2026-01-01T00:00:00.000000Z", salience=0.2)
    reasons = {f.id: f.reason for f in findings.stale(store.db, project_id, NOW)}
    assert reasons == {
        expired: "expired at 2026-05-01T00:00:00Z; `tree-ring maintain --apply` removes it",
        faint: "not updated since 2026-01-01 (over 90 days) and low salience 0.20",
    }
    shorter = findings.stale(store.db, project_id, NOW, stale_days=200)
    assert {f.id for f in shorter} == {expired}
