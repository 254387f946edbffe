"""Migrating from the original: its rows' whitespace, what an import reports, how its rows read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import PERSON
from helpers import CliRunner

from tree_ring.read import labels
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer
from tree_ring.transfer import original

THEIRS = "Tree_Ring_Memory"


def _event(memory_id: str, summary: str, **fields: Any) -> str:
    """One line of the original's export: a memory in its envelope."""
    memory = {
        "id": memory_id,
        "created_at": "2026-07-09T00:00:00Z",
        "project": THEIRS,
        "scope": "project",
        "ring": "outer",
        "event_type": "lesson",
        "summary": summary,
        "source": {"type": "manual", "ref": "", "quote": ""},
        "tags": [],
        "review": {"needs_review": False},
        **fields,
    }
    return json.dumps({"type": original.EVENT, "memory": memory})


def _header(count: int) -> str:
    return json.dumps(
        {"type": original.HEADER, "schema_version": 1, "memory_count": count, "created_at": "x"}
    )


def test_the_originals_multi_line_fields_are_folded_and_counted(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    path = tmp_path / "original.jsonl"
    lines = [
        _header(3),
        _event("mem_fold_1", "Cache keys\nmust include the locale.", details="kept\nas is"),
        _event("mem_fold_2", "Plain summary", tags=["two\twords"]),
        _event("mem_fold_3", "Nothing to fold here"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli("--json", "import", str(path))
    assert done.code == 0, done.err
    doc = json.loads(done.out)
    assert doc["imported"] == 3 and doc["folded"] == 2
    with Store.open(project_root) as store:
        row = rows.get(store.db, "mem_fold_1")
        tags = rows.get(store.db, "mem_fold_2").tags
    assert row.summary == "Cache keys must include the locale."
    assert row.details == "kept\nas is"  # a multi-line field keeps its lines
    assert tags == ("two words",)
    again = tmp_path / "again.jsonl"
    again.write_text(_event("mem_fold_4", "Two\n\nlines") + "\n", encoding="utf-8")
    text = run_cli("import", str(again))
    assert text.code == 0, text.err
    assert "folded whitespace" in text.out and "of 1 of the original's rows" in text.out


def test_our_own_rows_are_not_folded(store: Store, project_id: str) -> None:
    """A row with Tree Ring's own fields is held to its rules: a newline in a
    summary refuses it, as before."""
    ours = json.dumps({"summary": "Two\nlines", "event_type": "note", "trust": "accepted"})
    report = transfer.import_lines(
        store, [ours], project=project_id, actor=PERSON, skip_invalid=True
    )
    assert report.created == [] and report.folded == 0 and len(report.skipped) == 1


def test_merged_counts_only_the_rows_imported(store: Store, project_id: str) -> None:
    lines = [
        _event("mem_merge_1", "First lesson of theirs"),
        _event("mem_merge_2", "Second lesson of theirs"),
        _event("mem_merge_3", "Bad ring", ring="bark"),
        _event("mem_merge_4", "Third lesson of theirs"),
    ]
    report = transfer.import_lines(
        store, lines, project=project_id, actor=PERSON, skip_invalid=True
    )
    assert len(report.created) == 3 and [n for n, _ in report.skipped] == [3]
    assert report.merged == {THEIRS: 3}


def test_merged_count_in_the_cli_is_what_was_imported(run_cli: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "original.jsonl"
    lines = [_event(f"mem_cli_{n}", f"Lesson number {n} of theirs") for n in range(3)]
    lines.insert(1, _event("mem_cli_bad", "Bad ring", ring="bark"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli("import", str(path), "--skip-invalid")
    assert done.code == 0, done.err
    assert "imported 3 memories" in done.out
    assert "merged rows of other projects into" in done.out
    assert f"{THEIRS} (3)" in done.out and f"{THEIRS} (4)" not in done.out


def test_an_imported_row_names_its_batch_whole(store: Store, project_id: str) -> None:
    report = transfer.import_lines(
        store, [_event("mem_label", "A lesson of theirs")], project=project_id, actor=PERSON
    )
    memory = rows.get(store.db, "mem_label")
    assert labels.row_label(memory) == f"import batch {report.batch} · project"
    assert "session import-" not in labels.row_label(memory)
