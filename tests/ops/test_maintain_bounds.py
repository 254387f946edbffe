"""`maintain` at its edges: a row that expires at this very moment, and a
sweep that reads the store page by page."""

from __future__ import annotations

import pytest
from conftest import PERSON, make_memory

from tree_ring import guard
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.upkeep import maintain

NOW = "2026-06-01T00:00:00.000000Z"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def add(store: Store, project_id: str, summary: str, **fields: object) -> str:
    memory = make_memory(project_id, summary, created_at="2026-01-01T00:00:00.000000Z", **fields)
    with store.write() as db:
        rows.insert(db, memory)
    return memory.id


def test_expiry_is_inclusive_of_now(store: Store, project_id: str) -> None:
    now = add(store, project_id, "Expires now", retention="ephemeral", expires_at=NOW)
    add(store, project_id, "Expires a moment later", retention="ephemeral",
        expires_at="2026-06-01T00:00:00.000001Z")  # fmt: skip
    report = maintain.maintain(store, PERSON, apply_expired=True, now=NOW)
    assert [e.id for e in report.expired] == [now]
    assert report.deleted == [now]
    assert rows.find(store.db, now) is None
    assert report.memories == 2


def test_the_secret_sweep_reads_every_page(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as old_guard:
        old_guard.setattr(guard, "check_fields", lambda fields: "normal")
        ids = [
            add(store, project_id, f"Note {n}" + (f" token {TOKEN}" if n in (0, 4, 6) else ""))
            for n in range(7)
        ]
    monkeypatch.setattr(maintain, "PAGE", 2)
    hits = maintain.find_secrets(store)
    assert [(h.id, h.field) for h in hits] == [(ids[0], "summary"), (ids[4], "summary"),
                                               (ids[6], "summary")]  # fmt: skip
    report = maintain.maintain(store, PERSON, apply_secret_sweep=True, now=NOW)
    assert report.redacted == [ids[0], ids[4], ids[6]]
    assert maintain.find_secrets(store) == []
