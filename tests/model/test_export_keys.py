"""The top-level keys of an export row: the file format, written out literally."""

from __future__ import annotations

from tree_ring.model import record

WRITABLE = (
    "id", "created_at", "updated_at", "project", "agent_profile", "workflow_id", "session_id",
    "operation_id", "scope", "ring", "event_type", "summary", "details", "source", "tags",
    "salience", "confidence", "sensitivity", "retention", "expires_at", "supersedes",
    "superseded_by", "links", "review", "trust", "valid_from", "valid_to",
)  # fmt: skip
STORE_ONLY = ("retired_at", "redacted_at", "origin", "origin_session", "content_hash")


def test_an_export_row_has_these_keys_in_this_order() -> None:
    assert record.export_keys() == (*WRITABLE, *STORE_ONLY)


def test_a_write_may_carry_all_but_the_fields_only_the_store_sets() -> None:
    assert record.export_keys(writable=True) == WRITABLE
