"""An expiry a person or an agent sets must lie ahead: one already past is
refused by every verb that takes it, whichever client calls, and nothing is
written; an import keeps an export's past expiry as it is."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from helpers import PERSON, CliRunner

from tree_ring.api.project import Project
from tree_ring.model import project
from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Identity
from tree_ring.store.db import Store
from tree_ring.write import verbs

PAST_ERROR = re.compile(
    r"error: expires-at 2020-01-01T00:00:00Z is in the past "
    r"\(now \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); "
    r"give a later time, or leave the expiry out to keep the memory until it is forgotten\n"
)
CAPTURE = (
    "capture", "Never run migrations during deploys", "--event-type", "warning",
    "--ring", "scar", "--agent-profile", "claude-code", "--workflow-id", "s1",
    "--session-id", "s1", "--operation-id", "auto-0123456789ab-1", "--source-ref", "session:s1",
)  # fmt: skip


def count(root: Path) -> int:
    conn = sqlite3.connect(project.store_path(root))
    try:
        return conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize(
    "verb",
    [
        ("remember", "Staging is frozen"),
        ("remember", "Staging is frozen", "--scope", "global"),
        ("remember", "Staging is frozen", "--override-tombstone", "--reason", "back"),
        ("evidence", "Staging held", "--outcome", "observed", "--evidence-ref", "r1"),
        CAPTURE,
    ],
)
@pytest.mark.parametrize("expiry", ["2020-01-01", "2020-01-01T00:00:00Z", "2020-01-01T02:00+02:00"])
def test_an_expiry_in_the_past_is_refused_and_nothing_is_written(
    run_cli: CliRunner,
    project_root: Path,
    project_id: str,
    tmp_path: Path,
    verb: tuple[str, ...],
    expiry: str,
) -> None:
    argv = [*verb, "--expires-at", expiry]
    if verb is CAPTURE:
        argv += ["--project", project_id]
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    result = run_cli(*argv, environ=home)
    assert result.code == 2
    assert PAST_ERROR.fullmatch(result.err), result.err
    assert result.out == ""
    assert count(project_root) == 0
    assert not (tmp_path / "me").exists()  # no user store made for a global one either


def test_an_expiry_ahead_is_stored(run_cli: CliRunner) -> None:
    result = run_cli("--json", "remember", "Staging is frozen", "--expires-at", "2999-01-01")
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    assert shown["expires_at"] == "2999-01-01T00:00:00.000000Z"


@pytest.mark.parametrize(
    ("field", "flag", "value"),
    [
        ("expires_at", "expires-at", "2020-01-01T00:00:00Z"),
        ("valid_to", "valid-to", "2020-01-02T00:00:00Z"),
    ],
)
def test_every_client_gets_the_refusal_from_the_library(
    store: Store, project_root: Path, project_id: str, field: str, flag: str, value: str
) -> None:
    draft = verbs.Draft("Staging is frozen", **{field: value})
    refusal = rf"^{flag} {value} is in the past"
    with pytest.raises(UsageError, match=refusal):
        verbs.remember(store, draft, Identity(project_id), PERSON)
    with Project.open(str(project_root), {}) as front, pytest.raises(UsageError, match=refusal):
        front.remember(draft)
    assert count(project_root) == 0


@pytest.mark.parametrize(
    "ended",
    [
        {"expires_at": "2020-01-01T00:00:00.000000Z"},
        {"valid_from": "2020-01-01T00:00:00.000000Z", "valid_to": "2020-01-02T00:00:00.000000Z"},
    ],
)
def test_an_import_keeps_a_past_end(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, ended: dict[str, str]
) -> None:
    line = {
        "id": "mem_20200101_000000_0123456789ab",
        "summary": "Staging was frozen for the release",
        **ended,
    }
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = run_cli("--json", "import", str(path))
    assert result.code == 0, result.err
    assert result.json()["imported"] == 1
    shown = run_cli("--json", "show", line["id"]).json()["memory"]
    assert {key: shown[key] for key in ended} == ended
    assert run_cli("--json", "list").json()["items"] == []  # ended: no default read returns it


# The end of a validity window already past, with no start given, is refused
# the same way: the start would be now, after the end. With its start given it
# is a fact that held then, recorded late, which `recall --valid-at` finds.
PAST_VALID_TO = re.compile(
    r"error: valid-to 2020-01-02T00:00:00Z is in the past "
    r"\(now \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); "
    r"give --valid-from too for a fact that held in the past, a later time, or "
    r"leave valid-to out to keep the memory valid until it is superseded\n"
)
WINDOW = ("--valid-from", "2020-01-01T00:00:00Z", "--valid-to", "2020-01-02T00:00:00Z")
VERBS = [
    ("remember", "Staging is frozen"),
    ("remember", "Staging is frozen", "--scope", "global"),
    ("remember", "Staging is frozen", "--override-tombstone", "--reason", "back"),
    ("evidence", "Staging held", "--outcome", "observed", "--evidence-ref", "r1"),
    CAPTURE,
]


@pytest.mark.parametrize("verb", VERBS)
def test_a_validity_that_ended_with_no_start_is_refused_and_nothing_is_written(
    run_cli: CliRunner,
    project_root: Path,
    project_id: str,
    tmp_path: Path,
    verb: tuple[str, ...],
) -> None:
    argv = [*verb, *WINDOW[2:]]
    if verb is CAPTURE:
        argv += ["--project", project_id]
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    result = run_cli(*argv, environ=home)
    assert result.code == 2
    assert PAST_VALID_TO.fullmatch(result.err), result.err
    assert result.out == ""
    assert count(project_root) == 0
    assert not (tmp_path / "me").exists()


@pytest.mark.parametrize("verb", [verb for verb in VERBS if "--override-tombstone" not in verb])
def test_a_fact_that_held_in_the_past_is_stored_and_read_within_its_window(
    run_cli: CliRunner, project_id: str, tmp_path: Path, verb: tuple[str, ...]
) -> None:
    argv = ["--json", *verb, *WINDOW]
    if verb is CAPTURE:
        argv += ["--project", project_id]
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    result = run_cli(*argv, environ=home)
    assert result.code == 0, result.err
    stored = result.json()["id"]
    where = ["--user"] if "global" in verb else []
    shown = run_cli("--json", "show", stored, *where, environ=home).json()["memory"]
    assert (shown["valid_from"], shown["valid_to"]) == (
        "2020-01-01T00:00:00.000000Z",
        "2020-01-02T00:00:00.000000Z",
    )
    unreviewed = ["--include-unreviewed"] if verb[0] == "evidence" else []
    words = verb[1].split()[0]
    now = run_cli("--json", "recall", words, *unreviewed, environ=home).json()["items"]
    assert now == []
    then = run_cli(
        "--json", "recall", words, "--valid-at", "2020-01-01T12:00:00Z", *unreviewed,
        environ=home,
    ).json()["items"]  # fmt: skip
    assert {item["id"] for item in then} == {stored}


def test_a_past_window_that_closes_before_it_opens_is_refused_before_any_store_opens(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    result = run_cli(
        "remember", "Staging is frozen", "--scope", "global",
        "--valid-from", "2020-01-02", "--valid-to", "2020-01-01", environ=home,
    )  # fmt: skip
    assert (result.code, result.err) == (2, "error: valid-to must be later than valid-from\n")
    assert count(project_root) == 0
    assert not (tmp_path / "me").exists()


def test_a_person_is_told_where_a_past_fact_is_read(run_cli: CliRunner) -> None:
    result = run_cli("remember", "Staging ran Postgres 12", *WINDOW)
    assert result.code == 0, result.err
    assert result.out.splitlines()[1:] == [
        "it held until 2020-01-02T00:00:00Z: reads of now leave it out, and "
        "`recall --valid-at TIME` within its window finds it"
    ]


def test_a_validity_ending_ahead_is_stored(run_cli: CliRunner) -> None:
    result = run_cli(
        "--json", "remember", "Staging is frozen", "--valid-from", "2020-01-01",
        "--valid-to", "2999-01-01",
    )  # fmt: skip
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    assert (shown["valid_from"], shown["valid_to"]) == (
        "2020-01-01T00:00:00.000000Z",
        "2999-01-01T00:00:00.000000Z",
    )
    assert [m["id"] for m in run_cli("--json", "list").json()["items"]] == [result.json()["id"]]
