"""Moving a `Memory` in and out of the `memories` table."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from tree_ring.errors import NotFound
from tree_ring.record import Link, Memory

COLUMNS = (
    "id",
    "created_at",
    "updated_at",
    "project",
    "agent_profile",
    "workflow_id",
    "session_id",
    "operation_id",
    "scope",
    "ring",
    "event_type",
    "summary",
    "details",
    "source_type",
    "source_ref",
    "source_quote",
    "tags",
    "salience",
    "confidence",
    "sensitivity",
    "retention",
    "expires_at",
    "supersedes",
    "superseded_by",
    "links",
    "trust",
    "review_reason",
    "reviewed_at",
    "reviewed_by",
    "valid_from",
    "valid_to",
    "retired_at",
    "redacted_at",
    "origin",
    "origin_session",
    "content_hash",
)
_JSON_LISTS = ("tags", "supersedes")

INSERT = (
    f"INSERT INTO memories ({', '.join(COLUMNS)}) "
    f"VALUES ({', '.join(':' + column for column in COLUMNS)})"
)


def to_params(memory: Memory) -> dict[str, Any]:
    params: dict[str, Any] = {column: getattr(memory, column) for column in COLUMNS}
    for column in _JSON_LISTS:
        # Most rows have none; skipping the encoder matters at bulk-import scale.
        value = params[column]
        params[column] = json.dumps(list(value), ensure_ascii=False) if value else "[]"
    params["links"] = (
        json.dumps(
            [{"type": link.type, "target": link.target} for link in memory.links],
            ensure_ascii=False,
        )
        if memory.links
        else "[]"
    )
    return params


def from_row(row: sqlite3.Row) -> Memory:
    values: dict[str, Any] = {column: row[column] for column in COLUMNS}
    for column in _JSON_LISTS:
        values[column] = tuple(json.loads(values[column] or "[]"))
    values["links"] = tuple(
        Link(type=item["type"], target=item["target"])
        for item in json.loads(values["links"] or "[]")
    )
    return Memory(**values)


def insert(conn: sqlite3.Connection, memory: Memory) -> None:
    conn.execute(INSERT, to_params(memory))


def get(conn: sqlite3.Connection, memory_id: str) -> Memory:
    row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        raise NotFound(f"no memory {memory_id[:80]!r}; `tree-ring list` shows the ids")
    return from_row(row)


def find(conn: sqlite3.Connection, memory_id: str) -> Memory | None:
    row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return from_row(row) if row else None


def update(conn: sqlite3.Connection, memory_id: str, **changes: Any) -> None:
    """Set columns on one row; list and link columns take Python values."""
    params = dict(changes)
    for column in _JSON_LISTS:
        if column in params:
            params[column] = json.dumps(list(params[column]), ensure_ascii=False)
    if "links" in params:
        params["links"] = json.dumps(
            [{"type": link.type, "target": link.target} for link in params["links"]],
            ensure_ascii=False,
        )
    unknown = set(params) - set(COLUMNS)
    if unknown:
        raise ValueError(f"not memory columns: {sorted(unknown)}")
    assignments = ", ".join(f"{column} = :{column}" for column in params)
    conn.execute(f"UPDATE memories SET {assignments} WHERE id = :_id", {**params, "_id": memory_id})
