"""`transfer.import_lines` writes its lines in batches through the bulk path.

Lines that keep their trust (a person restoring Tree Ring's own export) go in
as a bulk write does; the rest pass governance. These tests hold the batched
import to what importing the same lines one at a time gives, and check that a
refusal found while writing still names its line and writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, make_memory
from helpers import json_lines
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability_support import counts, fts_consistent

from tree_ring.govern import coordinator
from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.errors import Conflict, Denied, UsageError
from tree_ring.model.record import canonical_json, sha256
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer
from tree_ring.transfer.lines import FileLines
from tree_ring.write import correct


def _row(project_id: str, summary: str, **fields: Any) -> dict[str, Any]:
    return {**make_memory(project_id, summary).to_dict(), **fields}


def _line(row: dict[str, Any], *, keep_trust: bool) -> str:
    row = dict(row)
    if not keep_trust:
        row.pop("trust", None)
    return json.dumps(row)


def _mixed_lines(project_id: str) -> list[str]:
    """Runs of trusted and governed lines, with states governance would not give."""
    lines: list[str] = []
    for n in range(24):
        keep = (n // 4) % 2 == 0
        fields: dict[str, Any] = {"tags": [f"tag{n}"]}
        if n % 5 == 0:
            fields["trust"] = "pending"
        if n % 7 == 0:
            fields["operation_id"] = f"op-{n}"
        summary = f"Deploys use blue green rollout number{n} for the payments service"
        lines.append(_line(_row(project_id, summary, **fields), keep_trust=keep))
    return lines


def _state(store: Store) -> set[tuple[Any, ...]]:
    return {
        tuple(row)
        for row in store.conn.execute(
            "SELECT id, trust, sensitivity, origin, review_reason, links, tags FROM memories"
        )
    }


def _other_store(tmp_path: Path, name: str) -> tuple[Store, str]:
    root = tmp_path / name
    root.mkdir()
    guidance.init_project(root)
    return Store.open(root), project.load_project_id(root)


def test_batched_import_equals_one_line_at_a_time(
    store: Store, project_id: str, tmp_path: Path
) -> None:
    lines = _mixed_lines(project_id)
    report = transfer.import_lines(store, lines, project=project_id, actor=PERSON)

    single, single_project = _other_store(tmp_path, "single")
    with single:
        assert single_project != project_id
        # The other store is another project: rows land in it under its id.
        lines_there = [line.replace(project_id, single_project) for line in lines]
        for line in lines_there:
            transfer.import_lines(single, [line], project=single_project, actor=PERSON)
        assert _state(single) == _state(store)
        assert counts(single.root)["audit_log"] == counts(store.root)["audit_log"]

    assert len(report.created) == 24 and report.unchanged == []
    # Trusted lines kept "pending"; governed lines with it were decided afresh.
    kept = {r[0] for r in store.conn.execute("SELECT id FROM memories WHERE trust = 'pending'")}
    assert {json.loads(lines[n])["id"] for n in (0, 10)} <= kept
    assert fts_consistent(store.conn)
    for n in range(24):
        found = store.conn.execute(
            "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (f"number{n}",)
        ).fetchone()[0]
        assert found == 1


def test_repeats_and_retries_are_unchanged(store: Store, project_id: str) -> None:
    first = _row(project_id, "The cache is warmed before traffic shifts", operation_id="op-1")
    second = _row(project_id, "Feature flags default to off in staging")
    retry = {**first, "id": make_memory(project_id, "x").id}  # same operation, new id
    lines = [json.dumps(first), json.dumps(second), json.dumps(first), json.dumps(retry)]
    report = transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    assert report.created == [first["id"], second["id"]]
    assert report.unchanged == [first["id"], first["id"]]

    again = transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    assert again.created == []
    assert sorted(again.unchanged) == sorted([first["id"], second["id"], first["id"], first["id"]])
    assert counts(store.root)["memories"] == 2


@pytest.mark.parametrize("keep_trust", [True, False])
def test_a_refusal_while_writing_names_its_line(
    store: Store, project_id: str, keep_trust: bool
) -> None:
    forgotten = make_memory(project_id, "Staging keys rotate every Friday")
    transfer.import_lines(
        store, [json.dumps(forgotten.to_dict())], project=project_id, actor=PERSON
    )
    correct.forget(store, forgotten.id, mode="delete", reason="wrong", actor=PERSON)
    rows = [_row(project_id, f"Imported fact number {n}") for n in range(6)]
    clash = {**rows[1], "summary": "The same id, different content"}
    back = {**forgotten.to_dict(), "id": make_memory(project_id, "y").id}
    before = counts(store.root)
    # One id on two lines of the file is the file's mistake (a usage error);
    # forgotten content is a conflict with the store.
    for bad, error, message in (
        (clash, UsageError, f"{rows[1]['id']} is on line 2 too"),
        (back, Conflict, "forgotten"),
    ):
        lines = [_line(row, keep_trust=keep_trust) for row in rows]
        lines.insert(4, _line(bad, keep_trust=keep_trust))
        with pytest.raises(error, match=rf"^line 5: .*{message}.*nothing imported"):
            transfer.import_lines(store, lines, project=project_id, actor=PERSON)
        assert counts(store.root) == before
    # Without the bad line the same file goes in whole: the refusal was the line's.
    good = [_line(row, keep_trust=keep_trust) for row in rows]
    report = transfer.import_lines(store, good, project=project_id, actor=PERSON)
    assert sorted(report.created) == sorted(row["id"] for row in rows)
    stored = {r[0] for r in store.conn.execute("SELECT id FROM memories")}
    assert stored == {row["id"] for row in rows}


# ------------------------------------------------------------------ streaming


def test_batches_of_one_transaction_write_all_or_nothing(store: Store, project_id: str) -> None:
    lines = [json.dumps(_row(project_id, f"Streamed fact number{n}")) for n in range(9)]
    before = counts(store.root)
    bad = [*lines[:7], '{"summary": "x", "ring": "oak"}', *lines[7:]]
    with pytest.raises(UsageError, match=r"^line 8: .*nothing imported"):
        transfer.import_lines(store, bad, project=project_id, actor=PERSON, batch=2)
    assert counts(store.root) == before  # three batches were written, then rolled back
    report = transfer.import_lines(store, iter(lines), project=project_id, actor=PERSON, batch=2)
    assert len(report.created) == 9 and report.lines == 9
    assert fts_consistent(store.conn)


def test_a_batch_sees_what_earlier_batches_wrote(store: Store, project_id: str) -> None:
    """Repeats, retries and contradictions across batches come out as in one batch."""
    first = _row(project_id, "The cache is warmed before traffic shifts", operation_id="op-1")
    retry = {**first, "id": make_memory(project_id, "x").id}
    flags = _row(project_id, "Feature flags default to off in staging")
    flipped = _row(project_id, "Feature flags default to on in staging")
    rows = [first, flags, first, retry, retry, flipped]
    lines = [_line(row, keep_trust=False) for row in rows]
    whole = transfer.import_lines(store, lines, project=project_id, actor=PERSON, batch=100)
    other, other_project = _other_store(store.root.parent, "batched")
    with other:
        moved = [line.replace(project_id, other_project) for line in lines]
        batched = transfer.import_lines(other, moved, project=other_project, actor=PERSON, batch=1)
        assert _state(other) == _state(store)
    # Unchanged: a repeat and a retry of the first line, and a repeat of the retry.
    for report in (whole, batched):
        assert report.created == whole.created and report.pending == 1
        assert sorted(report.unchanged) == sorted([first["id"], first["id"], retry["id"]])


def test_a_tombstone_late_in_the_file_refuses_an_earlier_line(
    store: Store, project_id: str
) -> None:
    forgotten = make_memory(project_id, "Staging keys rotate every Friday")
    stone = {
        "record": "content_tombstone",
        "content_hash": forgotten.content_hash,
        "kind": "forgotten",
        "reason": "wrong",
        "memory_id": forgotten.id,
        "created_at": forgotten.created_at,
    }
    lines = [json.dumps(_row(project_id, f"Fact {n}")) for n in range(4)]
    lines.insert(2, json.dumps(forgotten.to_dict()))
    lines.append(json.dumps(stone))
    before = counts(store.root)
    with pytest.raises(Conflict, match=r"^line 3: this content was forgotten"):
        transfer.import_lines(store, lines, project=project_id, actor=PERSON, batch=2)
    assert counts(store.root) == before


def test_a_denied_import_reads_every_line_and_records_the_ids(
    store: Store, project_id: str
) -> None:
    coordinator.enable(store, "lead", PERSON)
    rows = [_row(project_id, f"Fact {n}") for n in range(5)]
    lines = [json.dumps(row) for row in rows]
    with pytest.raises(UsageError, match=r"^line 6: "):
        transfer.import_lines(store, [*lines, "[]"], project=project_id, actor=PERSON, batch=2)
    with pytest.raises(Denied):
        transfer.import_lines(store, lines, project=project_id, actor=PERSON, batch=2)
    denied = store.conn.execute(
        "SELECT target_hash FROM policy_audit WHERE decision = 'deny'"
    ).fetchall()
    assert [r[0] for r in denied] == [sha256(canonical_json([row["id"] for row in rows]))]
    assert counts(store.root)["memories"] == 0


separators = st.text(alphabet="ab é\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", max_size=40)


@settings(max_examples=200, deadline=None)
@given(text=separators)
def test_file_lines_are_the_lines_of_the_whole_text(text: str, tmp_path_factory: Any) -> None:
    path = tmp_path_factory.mktemp("lines") / "in.jsonl"
    path.write_bytes(text.encode("utf-8"))
    expected = json_lines(path.read_bytes().decode("utf-8"))
    lines = FileLines(path, "in.jsonl")
    assert list(lines) == expected
    assert list(lines) == expected  # read again, from the start
    with path.open("rb") as handle:
        assert list(FileLines(handle, "-")) == expected


def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"summary": "fine"}\n\xff\xfe\n')
    with pytest.raises(UsageError, match=r"^bad\.jsonl is not valid UTF-8 text \(line 2\)"):
        list(FileLines(path, "bad.jsonl"))
