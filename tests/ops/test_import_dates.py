"""An import's rows are dated no later than the import, and an agent's by it.

The inbox lists what agents wrote since the person last looked by a row's
`created_at`. A row dated in the future would stand past every later write
for good (the inbox blind to every agent after it); a back-dated agent row
would never be listed. So no importer brings a row dated past the import (a
minute of two clocks' difference aside), and an agent's rows take the
import's own time; a person's rows, and a restore's, keep theirs. Nor is a
row retired past the import: until then a read of now would take it as
current.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE, CODEX, remember
from helpers import CliRunner

from tree_ring.model.errors import UsageError
from tree_ring.model.record import format_time, now_iso

FUTURE = "2099-01-01T00:00:00.000000Z"
PAST = "2020-01-01T00:00:00.000000Z"


def row(project_id: str, summary: str, **times: str) -> dict[str, Any]:
    return {
        "project": project_id,
        "scope": "agent",
        "agent_profile": "claude-code",
        "summary": summary,
        **times,
    }


def write_lines(tmp_path: Path, rows: list[dict[str, Any]]) -> str:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def inbox_ids(run_cli: CliRunner, *args: str) -> set[str]:
    done = run_cli("--json", "inbox", *args)
    assert done.code == 0, done.err
    return {item["id"] for item in done.json()["items"]}


def stored(run_cli: CliRunner) -> set[str]:
    done = run_cli("--json", "list", "--include-unreviewed")
    return {item["summary"] for item in done.json()["items"]}


@pytest.mark.parametrize("environ", [CLAUDE, {}], ids=["agent", "person"])
@pytest.mark.parametrize("key", ["created_at", "updated_at", "retired_at"])
def test_a_row_dated_in_the_future_refuses_the_import(
    run_cli: CliRunner, project_id: str, tmp_path: Path, environ: dict[str, str], key: str
) -> None:
    lines = [
        row(project_id, "A note dated now about the formatter"),
        row(project_id, "Innocuous note: the formatter is black", **{key: FUTURE}),
    ]
    done = run_cli("import", write_lines(tmp_path, lines), environ=environ)
    assert (done.code, done.err) == (
        2,
        f"error: line 2: {key} {FUTURE} is later than now: a row cannot be dated after its "
        f"import; give the time it was written, or leave {key} out; nothing imported\n",
    )
    assert stored(run_cli) == set()


def test_a_minute_of_clock_difference_is_taken_as_written(
    run_cli: CliRunner, project_id: str, tmp_path: Path
) -> None:
    soon = format_time(datetime.now(UTC) + timedelta(seconds=30))
    line = row(project_id, "A note from a clock a little ahead", created_at=soon, updated_at=soon)
    done = run_cli("--json", "import", write_lines(tmp_path, [line]))
    assert done.code == 0, done.err
    [memory_id] = [item["id"] for item in done.json()["items"]]
    memory = run_cli("--json", "show", memory_id).json()["memory"]
    assert (memory["created_at"], memory["updated_at"]) == (soon, soon)


def test_a_future_dated_agent_import_cannot_blind_the_inbox(
    run_cli: CliRunner, project_id: str, tmp_path: Path
) -> None:
    line = row(project_id, "Innocuous note: the formatter is black", created_at=FUTURE,
               updated_at=FUTURE)  # fmt: skip
    assert run_cli("import", write_lines(tmp_path, [line]), environ=CLAUDE).code == 2
    inbox_ids(run_cli)
    later = {
        remember(run_cli, "Later note: always push with the hooks on", environ=CLAUDE),
        remember(run_cli, "Codex later note: keep the pre-commit hooks", environ=CODEX),
    }
    assert inbox_ids(run_cli, "--peek") == later


def test_an_agents_back_dated_import_is_dated_by_the_import_and_listed(
    run_cli: CliRunner, project_id: str, tmp_path: Path
) -> None:
    remember(run_cli, "Visible note about linters", environ=CLAUDE)
    inbox_ids(run_cli)  # the person looks: all seen
    before = now_iso()
    line = row(project_id, "Hidden note: the deploy script may skip the smoke tests",
               created_at=PAST, updated_at=PAST, valid_from=PAST)  # fmt: skip
    done = run_cli("--json", "import", write_lines(tmp_path, [line]), environ=CLAUDE)
    assert done.code == 0, done.err
    after = now_iso()
    [memory_id] = [item["id"] for item in done.json()["items"]]
    memory = run_cli("--json", "show", memory_id).json()["memory"]
    assert before <= memory["created_at"] == memory["updated_at"] <= after
    assert memory["valid_from"] == PAST  # when the fact holds, as the file says
    assert inbox_ids(run_cli, "--peek") == {memory_id}
    status = run_cli("--json", "status").json()
    assert status["inbox"] == 1


def test_a_persons_import_and_restore_keep_the_files_dates(
    run_cli: CliRunner, project_id: str, tmp_path: Path
) -> None:
    later = "2021-06-01T12:00:00.000000Z"
    lines = [
        {"project": project_id, "summary": "A person's note from an old machine",
         "created_at": PAST, "updated_at": later},
        {"project": project_id, "summary": "A restored note from the same export",
         "created_at": PAST, "updated_at": later, "trust": "accepted", "origin": "person"},
    ]  # fmt: skip
    path = write_lines(tmp_path, lines[:1])
    plain = run_cli("--json", "import", path)
    assert plain.code == 0, plain.err
    path = write_lines(tmp_path, lines[1:])
    restored = run_cli("--json", "import", path, "--restore")
    assert restored.code == 0, restored.err
    for done in (plain, restored):
        [memory_id] = [item["id"] for item in done.json()["items"]]
        memory = run_cli("--json", "show", memory_id).json()["memory"]
        assert (memory["created_at"], memory["updated_at"], memory["valid_from"]) == (
            PAST,
            later,
            PAST,
        )


def test_rows_that_name_no_time_are_taken_however_long_the_import_runs(
    project_id: str, tmp_path: Path
) -> None:
    # As if the import had begun an hour ago: rows parsed now, dated as they
    # are parsed, are past the bound read then, and are not in the future.
    from tree_ring.transfer import row_lines

    began = datetime.now(UTC) - timedelta(hours=1)
    reading = row_lines.Reading(
        project_id, "batch-1", into=project_id, now=format_time(began), latest=format_time(began)
    )
    lines = [json.dumps(row(project_id, f"Note {n} about the build cache")) for n in range(3)]
    assert [parsed.number for parsed in row_lines.parse(lines, reading)] == [1, 2, 3]
    late = json.dumps(row(project_id, "A note from the next century", created_at=FUTURE))
    with pytest.raises(UsageError, match="is later than now"):
        list(row_lines.parse([late], reading))
