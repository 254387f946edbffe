"""An import's "N waiting for review" counts the rows the review queue lists: a
row the file gives as superseded is written retired and waits for no one."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CliRunner

OLD = "mem_20260101_000000_aaaaaaaaaaa1"
NEW = "mem_20260102_000000_aaaaaaaaaaa2"


def test_the_pending_count_leaves_out_rows_written_retired(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    rows = [
        {"id": OLD, "summary": "Releases are cut on Tuesdays", "ring": "heartwood",
         "superseded_by": NEW},
        {"id": NEW, "summary": "Releases are cut on Thursdays", "ring": "heartwood",
         "supersedes": [OLD]},
        {"summary": "Never deploy on the last day of a quarter", "ring": "heartwood"},
    ]  # fmt: skip
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = run_cli("--json", "import", str(path))
    assert done.code == 0, done.err
    queued = run_cli("--json", "review", "list")
    waiting = {item["id"] for item in queued.json()["items"]}
    assert NEW in waiting and OLD not in waiting
    assert (done.json()["imported"], done.json()["pending"]) == (3, len(waiting)) == (3, 2)


def test_a_line_that_names_no_scope_is_the_projects(run_cli: CliRunner, tmp_path: Path) -> None:
    """As `remember` without --scope: the project's, not "global" (the
    original's default, which reads as the person's user store everywhere else)."""
    path = tmp_path / "plain.jsonl"
    line = {"summary": "We use Postgres 16 in production", "event_type": "decision"}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = run_cli("--json", "import", str(path))
    assert done.code == 0, done.err
    [memory_id] = [item["id"] for item in done.json()["items"]]
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    assert shown["scope"] == "project"
    assert "global" not in str(shown.get("review_reason"))
