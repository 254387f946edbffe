"""An imported content tombstone needs every field it is checked by; a line
without one is a one-line error naming the line, and nothing is imported."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import CliRunner

from tree_ring.model import project

STONE: dict[str, Any] = {
    "record": "content_tombstone",
    "content_hash": "sha256:" + "ab" * 32,
    "kind": "forgotten",
    "reason": "moved to the wiki",
    "memory_id": "mem_20260101_000000_abcdefabcdef",
    "created_at": "2026-01-01T00:00:00.000000Z",
    "actor": "person",
}
MEMORY = {
    "id": "mem_20260102_000000_0123456789ab",
    "summary": "The nightly job rotates the logs",
    "event_type": "note",
    "scope": "project",
}
REQUIRED = ("content_hash", "kind", "reason", "memory_id", "created_at")


def counts(root: Path) -> tuple[int, int]:
    conn = sqlite3.connect(project.store_path(root))
    try:
        memories = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        stones = conn.execute("SELECT count(*) FROM content_tombstones").fetchone()[0]
        return memories, stones
    finally:
        conn.close()


def import_file(run_cli: CliRunner, tmp_path: Path, *rows: dict[str, Any]) -> Any:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return run_cli("import", str(path))


def test_a_whole_tombstone_is_imported(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    result = import_file(run_cli, tmp_path, MEMORY, STONE)
    assert result.code == 0, result.err
    assert counts(project_root) == (1, 1)


@pytest.mark.parametrize("field", REQUIRED)
@pytest.mark.parametrize("how", ["missing", "empty", "not text"])
def test_a_tombstone_missing_a_field_imports_nothing(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, field: str, how: str
) -> None:
    stone = dict(STONE)
    if how == "missing":
        del stone[field]
    else:
        stone[field] = "" if how == "empty" else 7
    # A good memory and a good tombstone come first; neither may be written.
    other = dict(STONE, content_hash="sha256:" + "cd" * 32)
    result = import_file(run_cli, tmp_path, MEMORY, other, stone)
    assert result.code == 2
    message = result.err.strip()
    assert len(message.splitlines()) == 1
    assert message.startswith("error: line 3:")
    assert "content tombstone needs" in message and field in message
    assert message.endswith("nothing imported")
    assert counts(project_root) == (0, 0)
