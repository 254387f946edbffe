"""A memory whose stored value was edited outside Tree Ring so that an import
would refuse it, or no read can use it: `export` writes every sound row, and
names each damaged one it leaves out in one line on stderr, with exit 1, so a
backup that lacks rows never passes for a whole one; the file it wrote
imports into a fresh project."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import jsonschema
import pytest
from helpers import REPO, CliRunner, cli_runner
from reliability_support import raw

from tree_ring.harness import guidance
from tree_ring.store import damage


def hand_edit(root: Path, sql: str, params: tuple[object, ...] = ()) -> None:
    with closing(raw(root)) as conn:
        conn.execute(sql, params)


def left_out_line(ids: list[str]) -> str:
    return (
        f"error: export left out {len(ids)} memory(ies) holding a value edited outside "
        f"Tree Ring that cannot be written as it is: {', '.join(sorted(ids))}; "
        "`tree-ring doctor` names each value and what mends it (put a value of its kind "
        "back, or forget the row), then export again\n"
    )


@pytest.fixture
def seeded(run_cli: CliRunner) -> list[str]:
    ids: list[str] = []
    for n in range(4):
        result = run_cli("--json", "remember", f"Seed fact {n}: nightly builds run at two")
        assert result.code == 0, result.err
        ids.append(result.json()["id"])
    return ids


@pytest.fixture
def fresh(tmp_path: Path) -> CliRunner:
    root = tmp_path / "fresh"
    root.mkdir()
    guidance.init_project(root)
    return cli_runner(root)


def listed(run: CliRunner) -> set[str]:
    result = run("--json", "list")
    assert result.code == 0, result.err
    return {item["id"] for item in result.json()["items"]}


def test_the_sound_rows_travel_and_the_damaged_are_named(
    run_cli: CliRunner, seeded: list[str], project_root: Path, fresh: CliRunner, tmp_path: Path
) -> None:
    """The report's case: 'never' passes the query's text comparison and was
    written as it stood; 'yesterday' failed it and was left out unsaid."""
    never, yesterday, *sound = seeded
    hand_edit(project_root, "UPDATE memories SET valid_to = 'never' WHERE id = ?", (never,))
    hand_edit(
        project_root, "UPDATE memories SET created_at = 'yesterday' WHERE id = ?", (yesterday,)
    )
    path = tmp_path / "backup.jsonl"
    result = run_cli("export", "--output", str(path))
    assert (result.code, result.out) == (1, f"wrote 2 lines to {path}\n")
    assert result.err == left_out_line([never, yesterday])
    imported = fresh("import", str(path), "--restore")
    assert imported.code == 0, imported.err
    assert listed(fresh) == set(sound)


def test_on_stdout_and_under_json_the_same(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    bad = seeded[0]
    hand_edit(project_root, "UPDATE memories SET valid_to = 'never' WHERE id = ?", (bad,))
    result = run_cli("export")
    assert result.code == 1 and result.err == left_out_line([bad])
    assert {json.loads(line)["id"] for line in result.out.splitlines()} == set(seeded[1:])
    result = run_cli("--json", "export")
    assert result.code == 1
    assert result.json()["left_out"] == [bad] and result.json()["total"] == 3
    schema = json.loads((REPO / "docs" / "cli-output.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(result.json(), schema)
    jsonschema.validate(json.loads(result.err), schema)
    error = json.loads(result.err)["error"]
    assert (error["code"], error["exit"]) == ("store_fault", 1)
    assert error["message"] == left_out_line([bad]).removeprefix("error: ").rstrip("\n")


@pytest.mark.parametrize("column", damage.TIMES)
@pytest.mark.parametrize("value", ["yesterday", "0", "2026-02-30T00:00:00.000000Z", ""])
def test_each_time_that_is_none_is_named(
    run_cli: CliRunner,
    seeded: list[str],
    project_root: Path,
    fresh: CliRunner,
    tmp_path: Path,
    column: str,
    value: str,
) -> None:
    """Whether the text sorts after every time ('yesterday'), before it ('0')
    or among times (no such day): the query lets the row through or keeps it
    out, and either way it is named, not written, and not lost in silence.
    A retired or redacted row is left out by any export, yet a time there
    that is no time may stand where none was: it is named too."""
    bad = seeded[1]
    hand_edit(project_root, f"UPDATE memories SET {column} = ? WHERE id = ?", (value, bad))
    path = tmp_path / "backup.jsonl"
    result = run_cli("--json", "export", "--include-superseded", "--output", str(path))
    assert result.code == 1 and result.json()["left_out"] == [bad], result.err
    assert fresh("import", str(path), "--restore").code == 0
    assert listed(fresh) == set(seeded) - {bad}
    assert run_cli("--json", "export").json()["left_out"] == [bad]


def test_a_row_the_view_leaves_out_anyway_is_not_named(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    """A pending row is not in a plain export, nor one that expired by a
    time that is one, whatever its other times hold."""
    pending, expired = seeded[2], seeded[3]
    hand_edit(
        project_root,
        "UPDATE memories SET trust = 'pending', created_at = 'yesterday' WHERE id = ?",
        (pending,),
    )
    hand_edit(
        project_root,
        "UPDATE memories SET expires_at = '2020-01-01T00:00:00.000000Z', valid_to = 'never' "
        "WHERE id = ?",
        (expired,),
    )
    result = run_cli("export")
    assert (result.code, result.err) == (0, "")
    result = run_cli("export", "--include-unreviewed")
    assert result.code == 1 and result.err == left_out_line([pending])


def test_a_row_every_read_skips_is_named(
    run_cli: CliRunner, seeded: list[str], project_root: Path, fresh: CliRunner, tmp_path: Path
) -> None:
    """A list that is not JSON and text that is not UTF-8 were left out of
    the file in silence, as every read skips them."""
    tags, text = seeded[0], seeded[3]
    hand_edit(project_root, "UPDATE memories SET tags = 'not json' WHERE id = ?", (tags,))
    hand_edit(
        project_root, "UPDATE memories SET summary = CAST(x'ff6f6f' AS TEXT) WHERE id = ?", (text,)
    )
    path = tmp_path / "backup.jsonl"
    result = run_cli("export", "--output", str(path))
    assert result.code == 1 and result.err == left_out_line([tags, text])
    assert fresh("import", str(path), "--restore").code == 0
    assert listed(fresh) == {seeded[1], seeded[2]}


def test_a_whole_store_exports_as_before(run_cli: CliRunner, seeded: list[str]) -> None:
    result = run_cli("--json", "export")
    assert (result.code, result.err) == (0, "")
    assert "left_out" not in result.json() and result.json()["total"] == 4


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("ring", "bark"),
        ("scope", "galaxy"),
        ("sensitivity", "spicy"),
        ("retention", "forever"),
        ("origin", "martian"),
        ("confidence", 5.0),
        ("salience", -3),
        ("summary", "   "),
    ],
)
def test_a_word_or_score_outside_its_column_is_named_by_export_and_doctor(
    run_cli: CliRunner,
    seeded: list[str],
    project_root: Path,
    fresh: CliRunner,
    tmp_path: Path,
    column: str,
    value: object,
) -> None:
    """A value an import refuses was written as it stood, and `import
    --restore` of the backup then refused the whole file: export leaves the
    row out and names it, doctor names its column, and the rest restores.
    (A sensitivity that is no sensitivity is hidden as a sensitive row is:
    an export that includes those names it.)"""
    edited, *sound = seeded
    hand_edit(project_root, f"UPDATE memories SET {column} = ? WHERE id = ?", (value, edited))
    path = tmp_path / "backup.jsonl"
    wider = ["--include-sensitive"] if column == "sensitivity" else []
    result = run_cli("export", "--output", str(path), *wider)
    assert result.code == 1 and result.err == left_out_line([edited])
    restored = fresh("import", str(path), "--restore")
    assert restored.code == 0, restored.err
    assert listed(fresh) == set(sound)
    doctor = {c["name"]: c for c in run_cli("--json", "doctor").json()["items"]}
    assert f"{edited} ({column})" in doctor["fields"]["detail"]
    assert not doctor["fields"]["ok"]
