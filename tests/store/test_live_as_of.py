"""As-of reads of retired rows: record time is `retired_at`, never `updated_at`.

A row stops being believed when it is retired; a later update (a review, a
tag, an import's own bookkeeping) does not move that moment, and an earlier
`updated_at` does not bring it forward. An imported superseded row that came
without a closed validity interval counts up to its retirement and never
after.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import PERSON, CliRunner, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.store import live, rows
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.transfer import jsonl as transfer

CREATED = "2026-01-01T00:00:00.000000Z"
EARLY_UPDATE = "2026-01-05T00:00:00.000000Z"
RETIRED = "2026-01-10T00:00:00.000000Z"
LATE_UPDATE = "2026-01-20T00:00:00.000000Z"
REPLACED = "2026-01-10T00:00:00.000000Z"

BEFORE_EARLY_UPDATE = "2026-01-03T00:00:00.000000Z"
BETWEEN_UPDATE_AND_RETIRED = "2026-01-07T00:00:00.000000Z"
BETWEEN_RETIRED_AND_UPDATE = "2026-01-15T00:00:00.000000Z"
AFTER_EVERYTHING = "2026-02-01T00:00:00.000000Z"


def ids_at(store: Store, identity: Identity, view: View) -> set[str]:
    clause = live.where(identity, view)
    found = store.query(f"SELECT m.id FROM memories m WHERE {clause.sql}", clause.params)
    return {row[0] for row in found}


def row(project_id: str, summary: str, **fields: Any) -> Memory:
    fields.setdefault("created_at", CREATED)
    fields.setdefault("valid_from", CREATED)
    return make_memory(project_id, summary, **fields)


@pytest.fixture
def retired(store: Store, project_id: str) -> dict[str, str]:
    """Retired rows whose updated_at is later, or earlier, than retired_at."""
    made = {
        # Retired (not superseded), then touched again later.
        "updated_after": row(
            project_id, "Builds run on the old runner", retired_at=RETIRED, updated_at=LATE_UPDATE
        ),
        # Retired, last updated before it was retired.
        "updated_before": row(
            project_id, "Caches live in Redis", retired_at=RETIRED, updated_at=EARLY_UPDATE
        ),
        # Superseded at RETIRED with its validity closed there, touched later.
        "superseded": row(
            project_id,
            "Deploys happen on Tuesdays",
            superseded_by="mem_20260110_000000_000000000000",
            retired_at=RETIRED,
            valid_to=REPLACED,
            updated_at=LATE_UPDATE,
        ),
        "current": row(project_id, "The store is SQLite", updated_at=LATE_UPDATE),
    }
    with store.write() as db:
        for memory in made.values():
            rows.insert(db, memory)
    return {name: memory.id for name, memory in made.items()}


@pytest.mark.parametrize(
    ("as_of", "expected"),
    [
        (BEFORE_EARLY_UPDATE, {"updated_after", "updated_before", "superseded", "current"}),
        (BETWEEN_UPDATE_AND_RETIRED, {"updated_after", "updated_before", "superseded", "current"}),
        (RETIRED, {"current"}),  # retired at that very moment: no longer believed
        (BETWEEN_RETIRED_AND_UPDATE, {"current"}),
        (AFTER_EVERYTHING, {"current"}),
    ],
)
def test_a_retired_row_counts_until_retired_at_whatever_updated_at_says(
    store: Store, identity: Identity, retired: dict[str, str], as_of: str, expected: set[str]
) -> None:
    found = ids_at(store, identity, View(as_of=as_of))
    assert found == {retired[name] for name in expected}


def test_a_superseded_row_is_still_believed_for_the_interval_it_held(
    store: Store, identity: Identity, retired: dict[str, str]
) -> None:
    # Asked today about a moment before the replacement, the old fact held.
    view = View(as_of=AFTER_EVERYTHING, valid_at=BETWEEN_UPDATE_AND_RETIRED)
    assert ids_at(store, identity, view) == {retired["superseded"], retired["current"]}
    view = View(as_of=AFTER_EVERYTHING, valid_at=BETWEEN_RETIRED_AND_UPDATE)
    assert ids_at(store, identity, view) == {retired["current"]}


def test_the_cli_agrees(run_cli: CliRunner, retired: dict[str, str]) -> None:
    def listed(as_of: str) -> set[str]:
        result = run_cli("--json", "list", "--as-of", as_of)
        assert result.code == 0, result.err
        return {m["id"] for m in result.json()["items"]}

    everything = {retired[n] for n in ("updated_after", "updated_before", "superseded", "current")}
    assert listed(BETWEEN_UPDATE_AND_RETIRED) == everything
    assert listed(BETWEEN_RETIRED_AND_UPDATE) == {retired["current"]}


# -- an imported superseded row without valid_to ------------------------------

OLD = "mem_20260901_100100_0123456789ab"
NEW = "mem_20260902_090000_ba9876543210"


def original_line(memory_id: str, summary: str, created: str, updated: str, **extra: Any) -> str:
    """A row as the original Tree Ring exports it: no trust, no validity, no retired_at."""
    data: dict[str, Any] = {
        "id": memory_id,
        "created_at": created,
        "updated_at": updated,
        "project": "tree-ring-memory",
        "agent_profile": None,
        "workflow_id": None,
        "session_id": None,
        "operation_id": None,
        "scope": "project",
        "ring": "cambium",
        "event_type": "note",
        "summary": summary,
        "details": "",
        "source": {"type": "manual", "ref": "", "quote": ""},
        "tags": [],
        "salience": 0.5,
        "confidence": 0.5,
        "sensitivity": "normal",
        "retention": "normal",
        "expires_at": None,
        "supersedes": [],
        "superseded_by": None,
        "links": [],
        "review": {"needs_review": False, "review_reason": None, "reviewed_at": None,
                   "reviewed_by": None},
    }  # fmt: skip
    data.update(extra)
    return json.dumps(data)


@pytest.fixture
def imported(store: Store, project_id: str) -> None:
    lines = [
        original_line(
            OLD,
            "Store memories in PostgreSQL",
            "2026-09-01T10:00:00.000000Z",
            "2026-09-02T09:00:00.000000Z",
            superseded_by=NEW,
        ),
        original_line(
            NEW,
            "Store memories in SQLite",
            "2026-09-02T09:00:00.000000Z",
            "2026-09-02T09:00:00.000000Z",
            supersedes=[OLD],
        ),
    ]
    report = transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    assert sorted(report.created) == sorted([OLD, NEW])


def test_an_imported_superseded_row_retires_at_its_update(store: Store, imported: None) -> None:
    old = rows.get(store.db, OLD)
    assert (old.superseded_by, old.valid_to, old.retired_at) == (
        NEW,
        None,
        "2026-09-02T09:00:00.000000Z",
    )


@pytest.mark.parametrize(
    ("as_of", "expected"),
    [
        ("2026-09-01T09:00:00.000000Z", set()),
        ("2026-09-01T12:00:00.000000Z", {OLD}),
        ("2026-09-02T08:59:59.000000Z", {OLD}),
        ("2026-09-02T09:00:00.000000Z", {NEW}),
        ("2026-09-10T00:00:00.000000Z", {NEW}),
    ],
)
def test_an_imported_superseded_row_without_valid_to_never_counts_after_retirement(
    store: Store, identity: Identity, imported: None, as_of: str, expected: set[str]
) -> None:
    assert ids_at(store, identity, View(as_of=as_of)) == expected
    # Not even when asked about a moment it held: its interval was never closed.
    back_then = View(as_of=as_of, valid_at="2026-09-01T12:00:00.000000Z")
    assert ids_at(store, identity, back_then) == expected - {NEW}
