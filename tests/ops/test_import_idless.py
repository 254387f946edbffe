"""A line without a memory id is known by its content: the same content as a
row that still stands in the same project, scope and partition is already
there, so importing the same file twice stores it once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, CliRunner

from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer

LINES: list[dict[str, Any]] = [
    {"summary": "Deploys go out on Tuesdays"},
    {"summary": "Use WAL for the store", "details": "readers never block the writer"},
    # The same words with other details, another scope, another agent's
    # partition: each a memory of its own.
    {"summary": "Use WAL for the store", "details": "checkpoints run at close"},
    {"summary": "Deploys go out on Tuesdays", "scope": "global"},
    {"summary": "Deploys go out on Tuesdays", "scope": "agent", "agent_profile": "codex"},
    {"summary": "Deploys go out on Tuesdays", "scope": "agent", "agent_profile": "claude-code"},
]


def memories(store: Store) -> set[tuple[str, ...]]:
    sql = "SELECT id, summary, details, scope, coalesce(agent_profile, '') FROM memories"
    return {tuple(row) for row in store.conn.execute(sql)}


def write(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_the_same_file_imported_twice_is_stored_once_and_said_to_be_there(
    run_cli: CliRunner, store: Store, tmp_path: Path
) -> None:
    path = write(tmp_path / "notes.jsonl", LINES)
    first = run_cli("--json", "import", path).json()
    assert (first["imported"], first["unchanged"]) == (6, 0)
    stored = memories(store)
    assert len(stored) == 6

    again = run_cli("--json", "import", path).json()
    assert (again["imported"], again["unchanged"]) == (0, 6)
    assert memories(store) == stored
    # Each line is reported as the row it is: the same ids, no others.
    assert {item["id"] for item in again["items"]} == {row[0] for row in stored}
    assert {item["result"] for item in again["items"]} == {"unchanged"}

    said = run_cli("import", path)
    assert said.code == 0, said.err
    said_text = "imported 0 memories (0 waiting for review), 6 already present, 0 tombstones\n"
    assert said.out == said_text
    assert memories(store) == stored


@pytest.mark.parametrize("batch", [1, 1000])
def test_a_line_repeated_in_one_file_is_stored_once(
    store: Store, project_id: str, batch: int
) -> None:
    line = json.dumps({"summary": "Feature flags default to off in staging"})
    report = transfer.import_lines(
        store, [line, line, line], project=project_id, actor=PERSON, batch=batch
    )
    [stored] = memories(store)
    assert report.created == [stored[0]]
    assert report.unchanged == [stored[0], stored[0]]


def test_a_line_with_an_id_is_known_by_its_id_and_an_idless_one_then_by_its_content(
    store: Store, project_id: str
) -> None:
    named = {"id": "mem_20260101_000000_0123456789ab", "summary": "Retries back off"}
    idless = {"summary": "Retries back off"}
    report = transfer.import_lines(
        store, [json.dumps(named), json.dumps(idless)], project=project_id, actor=PERSON
    )
    assert (report.created, report.unchanged) == ([named["id"]], [named["id"]])
    # A line that names a new id is another memory, as it always was.
    other = {**named, "id": "mem_20260101_000000_ba9876543210"}
    report = transfer.import_lines(store, [json.dumps(other)], project=project_id, actor=PERSON)
    assert (report.created, report.unchanged) == ([other["id"]], [])


@pytest.mark.parametrize(
    "gone",
    [
        "UPDATE memories SET expires_at = '2020-01-01T00:00:00.000000Z'",
        "UPDATE memories SET retired_at = '2020-01-01T00:00:00.000000Z'",
        "UPDATE memories SET trust = 'rejected'",
    ],
)
def test_a_row_that_no_longer_stands_does_not_hold_the_line_back(
    store: Store, project_id: str, gone: str
) -> None:
    line = json.dumps({"summary": "Builds run on the self-hosted runners"})
    first = transfer.import_lines(store, [line], project=project_id, actor=PERSON)
    with store.conn:
        store.conn.execute(gone)
    again = transfer.import_lines(store, [line], project=project_id, actor=PERSON)
    assert again.unchanged == []
    assert len(again.created) == 1
    assert {row[0] for row in memories(store)} == {*first.created, *again.created}


def test_a_dry_run_says_the_same(store: Store, project_id: str) -> None:
    lines = [json.dumps(line) for line in LINES]
    transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    stored = memories(store)
    plan = transfer.import_lines(store, lines, project=project_id, actor=PERSON, dry_run=True)
    assert (plan.created, sorted(plan.unchanged)) == ([], sorted(row[0] for row in stored))
    assert memories(store) == stored
