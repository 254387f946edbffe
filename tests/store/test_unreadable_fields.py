"""A memory whose list or number cannot be read, and a setting whose value
cannot be read (a store edited by hand): every read skips the row, a setting
reads as its default, and `doctor` names both; `--repair` resets a setting
and says plainly that it cannot mend a row."""

from __future__ import annotations

import io
import json
from contextlib import closing
from pathlib import Path

import pytest
from helpers import REPO, CliRunner
from reliability_support import raw

from tree_ring.hook import adapter
from tree_ring.store import damage


def hand_edit(root: Path, sql: str, params: tuple[object, ...] = ()) -> None:
    with closing(raw(root)) as conn:
        conn.execute(sql, params)


@pytest.fixture
def seeded(run_cli: CliRunner) -> list[str]:
    ids: list[str] = []
    for n in range(4):
        result = run_cli("--json", "remember", f"Seed fact {n}: deploys freeze on Fridays")
        assert result.code == 0, result.err
        ids.append(result.json()["id"])
    return ids


def check(run_cli: CliRunner, name: str, *args: str) -> dict[str, object]:
    result = run_cli("--json", "doctor", *args)
    assert result.code == 1 and result.err == "", result.err
    [found] = [c for c in result.json()["items"] if c["name"] == name]
    return found


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("tags", "not json"),
        ("supersedes", "[1, 2]"),
        ("links", '[{"type": "supports"}]'),
        ("salience", "abc"),
        ("confidence", None),
    ],
)
def test_reads_skip_the_row_and_doctor_names_it(
    run_cli: CliRunner, seeded: list[str], project_root: Path, column: str, value: object
) -> None:
    bad = seeded[1]
    if value is None:  # NOT NULL: a blob stands in for a value that is no number
        hand_edit(project_root, f"UPDATE memories SET {column} = x'00' WHERE id = ?", (bad,))
    else:
        hand_edit(project_root, f"UPDATE memories SET {column} = ? WHERE id = ?", (value, bad))
    rest = set(seeded) - {bad}
    for verb in (("list",), ("recall", "deploys Fridays")):
        result = run_cli("--json", *verb)
        assert result.code == 0 and result.err == "", result.err
        assert {item["id"] for item in result.json()["items"]} == rest
    for verb in (("brief",), ("status",), ("export",), ("consolidate",)):
        result = run_cli(*verb)
        assert result.code in (0, 1) and "Traceback" not in result.err, result.err
        assert len(result.err.splitlines()) <= 1
    found = check(run_cli, "fields")
    assert not found["ok"] and not found["repairable"]
    assert f"{bad} ({column})" in str(found["detail"])
    repaired = check(run_cli, "fields", "--repair")
    assert "cannot mend a row" in str(repaired["detail"])


@pytest.mark.parametrize("column", damage.TIMES)
def test_doctor_names_a_time_no_reader_can_use(
    run_cli: CliRunner, seeded: list[str], project_root: Path, column: str
) -> None:
    """Compared as text, 'yesterday' comes after every time: a row created or
    valid from then is live for no read, and one that expires or ends then
    never does; doctor names it as it names an unreadable salience."""
    bad = seeded[2]
    hand_edit(project_root, f"UPDATE memories SET {column} = 'yesterday' WHERE id = ?", (bad,))
    if column in ("created_at", "valid_from"):
        listed = run_cli("--json", "list").json()["items"]
        assert {item["id"] for item in listed} == set(seeded) - {bad}
    found = check(run_cli, "fields")
    assert not found["ok"] and not found["repairable"]
    assert str(found["detail"]).startswith(
        f"1 memory(ies) hold a value no reader can use and every read skips or misreads them: "
        f"{bad} ({column}); "
    )


def test_doctor_names_a_time_datetime_reads_and_an_import_refuses(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    bad = seeded[1]
    hand_edit(
        project_root, "UPDATE memories SET valid_from = '2026-11-29X13:00:00' WHERE id = ?", (bad,)
    )
    assert f": {bad} (valid_from); " in str(check(run_cli, "fields")["detail"])


NAMED = "hold a value no reader can use and every read skips or misreads them"
EDITED = "the file was edited outside Tree Ring and `doctor --repair` cannot mend a row"
FORGET = "`tree-ring forget ID --mode delete --reason WHY`"


def test_doctor_advises_for_times_what_mends_them(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    """A row named for its times alone can be forgotten (every read skips
    none of it), or its time put back; either clears the check."""
    never, yesterday = seeded[0], seeded[1]
    hand_edit(project_root, "UPDATE memories SET valid_to = 'never' WHERE id = ?", (never,))
    hand_edit(
        project_root, "UPDATE memories SET created_at = 'yesterday' WHERE id = ?", (yesterday,)
    )
    assert check(run_cli, "fields")["detail"] == (
        f"2 memory(ies) {NAMED}: {never} (valid_to), {yesterday} (created_at); {EDITED}: "
        "put a time in each named column (as 2026-11-29T13:00:00.000000Z) the way it was "
        f"edited, forget the row ({FORGET}) or restore a backup"
    )
    forgot = run_cli("forget", never, "--mode", "delete", "--reason", "its end was damaged")
    assert forgot.code == 0, forgot.err
    hand_edit(
        project_root,
        "UPDATE memories SET created_at = '2026-11-29T13:00:00.000000Z' WHERE id = ?",
        (yesterday,),
    )
    [fields] = [c for c in run_cli("--json", "doctor").json()["items"] if c["name"] == "fields"]
    assert fields["ok"], fields["detail"]


def test_doctor_advises_forget_only_for_a_row_it_reaches(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    """A row holding a list no reader can use is skipped by the forget's read
    too: the advice offers forget for the row named for a time alone."""
    tags, never = seeded[0], seeded[1]
    hand_edit(project_root, "UPDATE memories SET tags = 'not json' WHERE id = ?", (tags,))
    hand_edit(project_root, "UPDATE memories SET valid_to = 'never' WHERE id = ?", (never,))
    assert check(run_cli, "fields")["detail"] == (
        f"2 memory(ies) {NAMED}: {tags} (tags), {never} (valid_to); {EDITED}: put a value of "
        "its kind in each named column (a time as 2026-11-29T13:00:00.000000Z) the way it "
        f"was edited, or restore a backup; {FORGET} also removes a row named for its times, "
        "words or scores alone"
    )
    assert run_cli("forget", tags, "--mode", "delete", "--reason", "damaged").code == 1
    assert run_cli("forget", never, "--mode", "delete", "--reason", "damaged").code == 0
    assert check(run_cli, "fields")["detail"] == (
        f"1 memory(ies) {NAMED}: {tags} (tags); {EDITED}: put a value of its kind in each "
        "named column (a time as 2026-11-29T13:00:00.000000Z) the way it was edited, "
        "or restore a backup"
    )


def test_doctor_names_each_unreadable_column_of_a_row_once(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    bad = seeded[0]
    hand_edit(
        project_root,
        "UPDATE memories SET salience = 'abc', created_at = '0', valid_to = 'never' WHERE id = ?",
        (bad,),
    )
    assert (
        f"1 memory(ies) hold a value no reader can use and every read skips or misreads them: "
        f"{bad} (salience, created_at, valid_to); " in str(check(run_cli, "fields")["detail"])
    )


def test_session_start_injects_the_rest(
    seeded: list[str], project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hand_edit(project_root, "UPDATE memories SET tags = 'not json' WHERE id = ?", (seeded[0],))
    data = json.loads((REPO / "tests/fixtures/hooks/claude-code-session-start.json").read_text())
    data["cwd"] = str(project_root)
    out = io.BytesIO()
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    code = adapter.main("claude-code", io.BytesIO(json.dumps(data).encode()), {}, out)
    assert code == 0 and err.getvalue() == ""
    assert "Seed fact 1" in json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("key", "value"),
    [("checkpoint", "not json"), ("checkpoint.interval", '"soon"'), ("review_policy", "[]")],
)
def test_a_bad_setting_reads_as_its_default_and_repair_resets_it(
    run_cli: CliRunner, seeded: list[str], project_root: Path, key: str, value: str
) -> None:
    hand_edit(project_root, "INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))
    for verb in (("status",), ("config", "list"), ("brief",)):
        result = run_cli(*verb)
        assert result.code == 0 and result.err == "", result.err
    found = check(run_cli, "settings")
    assert not found["ok"] and found["repairable"] and key in str(found["detail"])
    result = run_cli("--json", "doctor", "--repair")
    assert result.code == 0, result.out
    [fixed] = [c for c in result.json()["items"] if c["name"] == "settings"]
    assert fixed["ok"] and key in str(fixed["repaired"]) and "default" in str(fixed["repaired"])
