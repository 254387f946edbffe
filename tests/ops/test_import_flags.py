"""`import --skip-invalid`, rows of other projects, and the import's batch id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON
from helpers import CliRunner

from tree_ring.model import project
from tree_ring.model.errors import Conflict, UsageError
from tree_ring.model.record import content_hash
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer


def _memory(summary: str, **fields: Any) -> str:
    return json.dumps({"summary": summary, "event_type": "note", **fields})


GOOD = [f"Deploy step {n} runs the migrations first" for n in range(3)]


def _mixed() -> list[str]:
    """Lines 2, 4 and 6 are bad in three ways: JSON, a control character, a field."""
    return [
        _memory(GOOD[0]),
        "{not json",
        _memory(GOOD[1]),
        _memory("A control \x07 character"),
        _memory(GOOD[2]),
        _memory("Bad ring", ring="elsewhere"),
    ]


def test_without_skip_invalid_the_first_bad_line_refuses_everything(
    store: Store, project_id: str
) -> None:
    with pytest.raises(UsageError, match="line 2: not valid JSON"):
        transfer.import_lines(store, _mixed(), project=project_id, actor=PERSON)
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


def test_skip_invalid_imports_the_rest_and_names_each_skipped_line(
    store: Store, project_id: str
) -> None:
    report = transfer.import_lines(
        store, _mixed(), project=project_id, actor=PERSON, skip_invalid=True
    )
    assert [number for number, _ in report.skipped] == [2, 4, 6]
    reasons = dict(report.skipped)
    assert "not valid JSON" in reasons[2]
    assert "control" in reasons[4]
    assert "ring" in reasons[6]
    summaries = {row[0] for row in store.conn.execute("SELECT summary FROM memories")}
    assert summaries == set(GOOD)


def test_skip_invalid_leaves_out_a_line_refused_while_writing(
    store: Store, project_id: str
) -> None:
    """A forgotten content is refused by the write, after parsing: that line
    alone is left out, the rest of its batch is written."""
    stone = {
        "record": "content_tombstone",
        "content_hash": content_hash("The old deploy key lives in the vault", ""),
        "kind": "forgotten",
        "reason": "rotated",
        "memory_id": "mem_20260101_000000_abcdefabcdef",
        "created_at": "2026-01-01T00:00:00.000000Z",
    }
    lines = [
        _memory(GOOD[0]),
        _memory("The old deploy key lives in the vault"),
        _memory(GOOD[1]),
        json.dumps(stone),
    ]
    with pytest.raises(Conflict, match="line 2: this content was forgotten"):
        transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    report = transfer.import_lines(
        store, lines, project=project_id, actor=PERSON, skip_invalid=True, batch=10
    )
    assert [number for number, _ in report.skipped] == [2]
    summaries = {row[0] for row in store.conn.execute("SELECT summary FROM memories")}
    assert summaries == {GOOD[0], GOOD[1]}


def test_skip_invalid_on_a_dry_run_writes_nothing(store: Store, project_id: str) -> None:
    report = transfer.import_lines(
        store, _mixed(), project=project_id, actor=PERSON, dry_run=True, skip_invalid=True
    )
    assert [number for number, _ in report.skipped] == [2, 4, 6] and len(report.created) == 3
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


REUSED = "mem_20261201_000000_aaaaaaaaaaaa"


def _reusing() -> list[str]:
    """Line 2 reuses line 1's id with other content; line 3 is a row of its own."""
    return [
        _memory("The cache holds sessions for an hour", id=REUSED),
        _memory("Logs rotate daily", id=REUSED),
        _memory("Builds run on the arm runners", id="mem_20261201_000000_bbbbbbbbbbbb"),
    ]


@pytest.mark.parametrize("batch", [1, 10])
def test_skip_invalid_leaves_out_a_later_line_reusing_an_id(
    store: Store, project_id: str, batch: int
) -> None:
    said = (
        f"memory {REUSED} is on line 1 too, with other content; "
        "give one of them a new id or omit it"
    )
    with pytest.raises(UsageError) as refused:
        transfer.import_lines(store, _reusing(), project=project_id, actor=PERSON, batch=batch)
    assert str(refused.value) == f"line 2: {said}; nothing imported"
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    plan = transfer.import_lines(
        store, _reusing(), project=project_id, actor=PERSON, dry_run=True, skip_invalid=True
    )
    assert plan.skipped == [(2, said)] and len(plan.created) == 2
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    report = transfer.import_lines(
        store, _reusing(), project=project_id, actor=PERSON, batch=batch, skip_invalid=True
    )
    assert report.skipped == [(2, said)]
    stored = {tuple(row) for row in store.conn.execute("SELECT id, summary FROM memories")}
    assert stored == {
        (REUSED, "The cache holds sessions for an hour"),
        ("mem_20261201_000000_bbbbbbbbbbbb", "Builds run on the arm runners"),
    }


def test_cli_skips_a_line_reusing_an_id_as_any_other_bad_line(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    path = tmp_path / "reused.jsonl"
    path.write_text("".join(line + "\n" for line in _reusing()), encoding="utf-8")
    said = f"memory {REUSED} is on line 1 too, with other content"
    plan = run_cli("--json", "import", str(path), "--skip-invalid", "--dry-run")
    assert plan.code == 0, plan.err
    doc = json.loads(plan.out)
    assert (doc["dry_run"], doc["imported"], doc["skipped"]) == (True, 2, 1)
    (skipped,) = [i for i in doc["items"] if i["result"] == "skipped"]
    assert skipped["line"] == 2 and skipped["reason"].startswith(said)
    assert run_cli("--json", "list").json()["items"] == []
    done = run_cli("import", str(path), "--skip-invalid")
    assert done.code == 0, done.err
    assert done.err.splitlines() == [
        f"skipped line 2: {said}; give one of them a new id or omit it"
    ]
    assert "imported 2 memories" in done.out and "1 lines skipped" in done.out
    listed = run_cli("--json", "list").json()["items"]
    assert {(m["id"], m["summary"]) for m in listed} == {
        (REUSED, "The cache holds sessions for an hour"),
        ("mem_20261201_000000_bbbbbbbbbbbb", "Builds run on the arm runners"),
    }


def _several(project_id: str) -> list[str]:
    return [
        _memory("Alpha uses tabs", project="alpha"),
        _memory("Beta uses spaces", project="beta"),
        _memory("Beta pins python 3.12", project="beta"),
        _memory("Ours deploys on fridays", project=project_id),
    ]


def test_rows_of_several_projects_are_refused_naming_them_and_the_flags(
    store: Store, project_id: str
) -> None:
    with pytest.raises(UsageError) as raised:
        transfer.import_lines(store, _several(project_id), project=project_id, actor=PERSON)
    message = str(raised.value)
    assert "\n" not in message
    assert "alpha (1 rows)" in message and "beta (2 rows)" in message
    assert "--project-map" in message and "--all-projects" in message
    assert f"{project_id} (1 rows)" not in message  # this project's own rows are not foreign
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    # Taking one project is not enough: the other is still named.
    half = transfer.Projects.parse([f"alpha={project_id}"], project_id)
    with pytest.raises(UsageError, match=r"beta \(2 rows\)") as again:
        transfer.import_lines(
            store, _several(project_id), project=project_id, actor=PERSON, projects=half
        )
    assert "alpha (" not in str(again.value)


def test_mapped_or_all_projects_are_merged_and_reported(
    store: Store, project_id: str, tmp_path: Path
) -> None:
    both = transfer.Projects.parse([f"alpha={project_id}", f"beta={project_id}"], project_id)
    report = transfer.import_lines(
        store, _several(project_id), project=project_id, actor=PERSON, projects=both
    )
    assert report.merged == {"alpha": 1, "beta": 2} and len(report.created) == 4
    placed = {row[0] for row in store.conn.execute("SELECT DISTINCT project FROM memories")}
    assert placed == {project_id}


def test_all_projects_takes_every_project(store: Store, project_id: str) -> None:
    report = transfer.import_lines(
        store,
        _several(project_id),
        project=project_id,
        actor=PERSON,
        projects=transfer.Projects(take_all=True),
    )
    assert report.merged == {"alpha": 1, "beta": 2} and len(report.created) == 4


def test_skip_invalid_leaves_out_the_rows_of_projects_not_taken(
    store: Store, project_id: str
) -> None:
    half = transfer.Projects.parse([f"alpha={project_id}"], project_id)
    report = transfer.import_lines(
        store,
        _several(project_id),
        project=project_id,
        actor=PERSON,
        projects=half,
        skip_invalid=True,
    )
    assert [number for number, _ in report.skipped] == [2, 3]
    assert all("project beta" in reason for _, reason in report.skipped)
    summaries = {row[0] for row in store.conn.execute("SELECT summary FROM memories")}
    assert summaries == {"Alpha uses tabs", "Ours deploys on fridays"}


def test_a_file_of_one_other_project_is_a_migration(store: Store, project_id: str) -> None:
    lines = [_memory("Alpha uses tabs", project="alpha"), _memory("Alpha lints", project="alpha")]
    report = transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    assert len(report.created) == 2 and report.merged == {"alpha": 2}


@pytest.mark.parametrize("spec", ["alpha", "=x", "alpha=other-project"])
def test_a_project_map_names_this_project(spec: str, project_id: str) -> None:
    with pytest.raises(UsageError, match="--project-map"):
        transfer.Projects.parse([spec], project_id)


def test_imported_rows_and_audit_entries_carry_the_batch_id(store: Store, project_id: str) -> None:
    lines = [_memory(GOOD[0]), _memory(GOOD[1], origin_session="their-session")]
    report = transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    assert report.batch.startswith("import-")
    sessions = dict(store.conn.execute("SELECT summary, origin_session FROM memories"))
    assert sessions == {GOOD[0]: report.batch, GOOD[1]: "their-session"}
    targets = {
        row[0]
        for row in store.conn.execute(
            "SELECT target FROM audit_log WHERE action = 'import' AND session = ?",
            (report.batch,),
        )
    }
    assert set(report.created) <= targets
    other = transfer.import_lines(store, [_memory(GOOD[2])], project=project_id, actor=PERSON)
    assert other.batch != report.batch


def test_cli_reports_skipped_lines_capped_on_stderr_and_all_in_json(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    path = tmp_path / "in.jsonl"
    bad = ["{bad"] * 25
    path.write_text("\n".join([_memory(GOOD[0]), *bad]) + "\n", encoding="utf-8")
    plan = run_cli("--json", "import", str(path), "--skip-invalid", "--dry-run")
    assert plan.code == 0, plan.err
    doc = json.loads(plan.out)
    skipped = [i for i in doc["items"] if i["result"] == "skipped"]
    assert doc["skipped"] == 25 and [i["line"] for i in skipped] == list(range(2, 27))
    assert all(set(i) == {"line", "reason", "result"} for i in skipped)
    assert plan.err == ""
    done = run_cli("import", str(path), "--skip-invalid")
    assert done.code == 0, done.err
    err = done.err.splitlines()
    assert [line.split(":")[0] for line in err[:20]] == [f"skipped line {n}" for n in range(2, 22)]
    assert all("not valid JSON" in line for line in err[:20])
    assert err[20].startswith("... and 5 more skipped lines") and len(err) == 21
    assert "25 lines skipped" in done.out
    refused = run_cli("import", str(path))
    assert refused.code != 0 and "line 2" in refused.err


def test_cli_refuses_several_projects_in_one_line(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    own = project.load_project_id(project_root)
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(_several(own)) + "\n", encoding="utf-8")
    refused = run_cli("import", str(path))
    assert refused.code != 0
    assert refused.err.count("\n") == 1 and "alpha" in refused.err and "beta" in refused.err
    done = run_cli("import", str(path), "--all-projects")
    assert done.code == 0, done.err
    assert f"merged rows of other projects into {own}: alpha (1), beta (2)" in done.out


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("old", "--project-map takes OLD=NEW, e.g. --project-map old=here"),
        ("=here", "--project-map takes OLD=NEW, e.g. --project-map =here=here"),
        ("old=", "--project-map takes OLD=NEW, e.g. --project-map old==here"),
        ("old= ", "--project-map takes OLD=NEW"),
        ("old=there", "rows are imported into this project only; use --project-map old=here"),
    ],
)
def test_project_map_specs_are_checked(spec: str, says: str) -> None:
    with pytest.raises(UsageError) as caught:
        transfer.Projects.parse([spec], "here")
    assert says in str(caught.value)


def test_project_map_takes_the_named_projects_or_all() -> None:
    mapped = transfer.Projects.parse([" old = here", "other=here"], "here")
    assert mapped.mapping == {"old": "here", "other": "here"}
    assert mapped.takes("old") and mapped.takes("other") and not mapped.takes("third")
    assert transfer.Projects.parse([], "here", take_all=True).takes("third")
    assert not transfer.Projects.parse([], "here").takes("third")


@pytest.mark.parametrize("count", [5, 6, 7])
def test_the_refusal_names_five_projects_most_rows_first_and_counts_the_rest(
    store: Store, project_id: str, count: int
) -> None:
    names = [f"team-{chr(ord('a') + i)}" for i in range(count)]
    # team-a has the most rows, then b, ...: the order the message names them in.
    lines = [
        _memory(f"Row {n} of {name} about the deploy", project=name)
        for i, name in enumerate(names)
        for n in range(count - i)
    ]
    with pytest.raises(UsageError) as raised:
        transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    named = ", ".join(f"{name} ({count - i} rows)" for i, name in enumerate(names[:5]))
    more = f" and {count - 5} more" if count > 5 else ""
    assert str(raised.value).startswith(
        f"the file holds rows of other projects: {named}{more}; take them into this project "
        f"with --project-map team-a={project_id} (repeatable)"
    )


def test_a_line_nested_too_deeply_says_so_in_words(store: Store, project_id: str) -> None:
    deep = '{"summary": "d", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(UsageError) as caught:
        transfer.import_lines(store, [deep], project=project_id, actor=PERSON)
    said = "line 1: not valid JSON (nested too deeply to read); nothing imported"
    assert str(caught.value) == said
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
