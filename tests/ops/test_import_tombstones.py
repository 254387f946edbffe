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
from tree_ring.model.record import generated_id

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


CLAUDE = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
LIVE = "Run the linter before every commit on the main branch"


def _stones(root: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(project.store_path(root))
    try:
        sql = "SELECT memory_id, actor, created_at FROM content_tombstones ORDER BY memory_id"
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_an_agents_tombstone_for_a_live_memory_becomes_a_request(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    stored = run_cli("--json", "remember", LIVE).json()
    shown = run_cli("--json", "show", stored["id"]).json()["memory"]
    forged = STONE | {"content_hash": shown["content_hash"], "memory_id": stored["id"]}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(forged) + "\n")
    done = run_cli("--json", "import", str(path), environ=CLAUDE)
    assert done.code == 0, done.err
    [request] = done.json()["requested"]
    assert _stones(project_root) == []  # nothing tombstoned: the memory is not forgotten
    listed = run_cli("--json", "review", "list").json()["items"]
    assert [(r["id"], r["kind"], r["memory_id"]) for r in listed] == [
        (request, "forget_request", stored["id"])
    ]
    # A person's write is not refused (a copy: the same memory again is one).
    again = run_cli("--json", "remember", LIVE, "--tag", "copy")
    assert again.code == 0 and "forgotten" not in again.err, again.err
    assert run_cli("--json", "audit", "verify").json()["ok"] is True
    # A person approving the request forgets it; the copy the person wrote
    # since holds the same content, so that stays writable...
    assert run_cli("review", "approve", request, "--reason", "yes").code == 0
    assert run_cli("show", stored["id"]).code != 0
    assert _stones(project_root) == []
    # ...until it is forgotten too, and then the content is tombstoned.
    copy = again.json()["id"]
    assert run_cli("forget", copy, "--mode", "delete", "--reason", "no").code == 0
    assert {row[0] for row in _stones(project_root)} == {copy}


def test_an_agents_tombstone_for_an_unknown_id_is_kept_as_its_own_and_as_of_now(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(STONE) + "\n")
    done = run_cli("--json", "import", str(path), environ=CLAUDE)
    assert done.code == 0, done.err
    assert done.json()["requested"] == []
    [(memory_id, actor, created_at)] = _stones(project_root)
    # Under an id of the import's own: the file's names no memory the agent
    # may read, and may be a hidden one's (`transfer/reach.py`).
    assert actor == "claude-code"
    assert memory_id != STONE["memory_id"] and generated_id(memory_id)
    assert created_at > STONE["created_at"] and not created_at.startswith("2026-01-01")


def test_a_persons_tombstone_keeps_its_actor_and_date(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(STONE) + "\n")
    done = run_cli("--json", "import", str(path))
    assert done.code == 0 and done.json()["requested"] == [], done.err
    assert _stones(project_root) == [(STONE["memory_id"], "person", STONE["created_at"])]


def test_an_agents_tombstone_under_a_made_up_id_for_live_content_becomes_a_request(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    # Another id, the live memory's hash: the content is held here, so the line
    # asks to forget the memory that holds it, and keeps nothing out meanwhile.
    stored = run_cli("--json", "remember", LIVE).json()
    shown = run_cli("--json", "show", stored["id"]).json()["memory"]
    forged = STONE | {"content_hash": shown["content_hash"]}
    assert forged["memory_id"] != stored["id"]
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(forged) + "\n")
    done = run_cli("--json", "import", str(path), environ=CLAUDE)
    assert done.code == 0, done.err
    [request] = done.json()["requested"]
    assert _stones(project_root) == []
    listed = run_cli("--json", "review", "list").json()["items"]
    assert [(r["id"], r["memory_id"]) for r in listed] == [(request, stored["id"])]
    again = run_cli("--json", "remember", LIVE)
    assert again.code == 0 and "forgotten" not in again.err, again.err
