"""What the project forgot stays out of the user store, and the reverse.

A project's brief reads the project's store and the person's user store
together, so a write into either answers to both stores' tombstones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE
from helpers import REPO, cli_runner
from mcp_support import claude

from tree_ring.harness import guidance
from tree_ring.store.db import Store

HOOK = REPO / "hooks" / "tree_ring_hook.py"

TEXT = "Deploy the payments service only from the release branch"
MINE = "Prefer short commit subjects in the imperative mood"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def _forget(run_cli: CliRunner, home: dict[str, str], text: str, *where: str) -> str:
    stored = run_cli("--json", "remember", text, *where, environ=home)
    assert stored.code == 0, stored.err
    memory_id = stored.json()["id"]
    user = ["--user"] if where else []
    done = run_cli("forget", memory_id, *user, "--mode", "delete", "--reason", "x", environ=home)
    assert done.code == 0, done.err
    return memory_id


def _refusal(memory_id: str) -> str:
    return f"(as {memory_id}) and will not be stored again"


def _user_rows(tmp_path: Path) -> list[str]:
    with Store.open_file(str(tmp_path / "me" / "user.sqlite")) as mine:
        return [row[0] for row in mine.db.query("SELECT summary FROM memories")]


def test_a_global_write_of_what_the_project_forgot_is_refused(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    run_cli(
        "remember", "A note of my own to make the user store", "--scope", "global", environ=home
    )
    forgotten = _forget(run_cli, home, TEXT)
    for environ in (home, home | CLAUDE):
        done = run_cli("remember", TEXT, "--scope", "global", environ=environ)
        assert done.code == 1 and _refusal(forgotten) in done.err, done.err
    assert _user_rows(tmp_path) == ["A note of my own to make the user store"]
    brief = run_cli("brief", environ=home)
    assert "payments" not in brief.out


def test_a_person_may_override_it_into_the_user_store_pending(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    forgotten = _forget(run_cli, home, TEXT)
    done = run_cli(
        "--json", "remember", TEXT, "--scope", "global", "--override-tombstone",
        "--reason", "it holds again", environ=home,
    )  # fmt: skip
    assert done.code == 0, done.err
    assert done.json()["trust"] == "pending"
    assert done.json()["review_reason"] == (
        f"written over the tombstone of {forgotten}: it holds again"
    )
    assert _user_rows(tmp_path) == [TEXT]


def test_a_project_write_of_what_the_user_store_forgot_is_refused(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    forgotten = _forget(run_cli, home, MINE, "--scope", "global")
    for verb in (
        ["remember", MINE],
        ["evidence", MINE, "--outcome", "observed", "--evidence-ref", "run-1"],
    ):
        for environ in (home, home | CLAUDE):
            done = run_cli(*verb, environ=environ)
            assert done.code == 1 and _refusal(forgotten) in done.err, (verb, done.err)
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"summary": MINE, "scope": "project"}) + "\n", encoding="utf-8")
    done = run_cli("import", str(lines), environ=home)
    assert done.code == 1 and _refusal(forgotten) in done.err, done.err
    with Store.open(project_root) as store:
        assert store.db.query("SELECT summary FROM memories") == []


def test_an_import_of_global_rows_answers_to_the_project(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    forgotten = _forget(run_cli, home, TEXT)
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"summary": TEXT, "scope": "global"}) + "\n", encoding="utf-8")
    done = run_cli("import", str(lines), "--global-to", "user", environ=home)
    assert done.code == 1 and _refusal(forgotten) in done.err, done.err


def test_what_neither_store_forgot_is_written_as_before(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    _forget(run_cli, home, TEXT)
    _forget(run_cli, home, MINE, "--scope", "global")
    assert run_cli("remember", "The staging database is reset nightly", environ=home).code == 0
    other = "Keep pull requests under four hundred lines"
    assert run_cli("remember", other, "--scope", "global", environ=home).code == 0
    assert _user_rows(tmp_path) == [other]


def _hook_context(root: Path, home: dict[str, str]) -> str:
    """SessionStart as the harness runs it: the launcher in its own process."""
    payload = {"hook_event_name": "SessionStart", "session_id": "sess-9", "cwd": str(root)}
    done = subprocess.run(
        [sys.executable, str(HOOK), "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**os.environ, **home},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
    context: str = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def test_a_global_note_from_another_project_stays_out_of_the_project_that_forgot_it(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    """Written in a project that forgot nothing, a global note holding what this
    project forgot is left out of this project's brief, recall, hook and MCP
    reads, and stays in the other project's."""
    forgotten = _forget(run_cli, home, TEXT)
    other = tmp_path / "other"
    other.mkdir()
    guidance.init_project(other)
    there = cli_runner(other)
    kept = "Keep pull requests under four hundred lines"
    noted = {}
    for text in (TEXT, f"Note: {TEXT}. Hotfixes too.", kept):
        done = there("--json", "remember", text, "--scope", "global", environ=home)
        assert done.code == 0, done.err
        noted[text] = done.json()["id"]
    hidden = {noted[TEXT], noted[f"Note: {TEXT}. Hotfixes too."]}

    def ids(run: CliRunner, *argv: str) -> set[str]:
        done = run("--json", *argv, environ=home)
        assert done.code == 0, done.err
        items = done.json()["items"]
        return {str(i["id"]) if isinstance(i, dict) else str(i) for i in items}

    assert ids(run_cli, "recall", "payments release branch pull requests") == {noted[kept]}
    assert ids(run_cli, "brief") == {noted[kept]}
    assert "payments" not in run_cli("brief", environ=home).out
    assert "payments" not in run_cli("recall", "payments", environ=home).out
    context = _hook_context(project_root, home)
    assert "payments" not in context and kept in context
    session = claude(project_root, **home)
    assert "payments" not in session.call("brief", {})["text"]
    found = session.call("recall", {"query": "payments release branch"})
    # The note kept may be found by meaning; the forgotten ones never are.
    assert {r["id"] for r in found["results"]} <= {noted[kept]}
    # The other project forgot nothing: it reads all three.
    every = {*hidden, noted[kept]}
    assert ids(there, "recall", "payments release branch pull requests") == every
    assert set(ids(there, "brief")) <= every and len(ids(there, "brief")) == 2
    assert TEXT in _hook_context(other, home)
    # Forgetting a user-store note by its id still asks for --user, as ever.
    refused = run_cli("forget", noted[TEXT], "--mode", "delete", "--reason", "x", environ=home)
    assert refused.code == 1 and f"no memory '{noted[TEXT]}'" in refused.err
    done = run_cli(
        "forget", noted[TEXT], "--user", "--mode", "delete", "--reason", "x", environ=home
    )
    assert done.code == 0, done.err
    left = ids(there, "recall", "payments release branch pull requests")
    assert left == every - {noted[TEXT]} and forgotten not in left


def test_a_row_hidden_by_the_user_stores_forget_contradicts_nothing(
    run_cli: CliRunner, home: dict[str, str]
) -> None:
    """A project row that every read hides, its words forgotten in the
    person's user store, is no live memory: an agent's note that changes
    its value is not held back by it, nor told its id; a row still read is."""
    text = "The report cache TTL is 15 minutes in preprod"
    kept = run_cli("--json", "remember", text, environ=home).json()["id"]
    _forget(run_cli, home, text, "--scope", "global")
    listed = {m["id"] for m in run_cli("--json", "list", environ=home).json()["items"]}
    assert kept not in listed
    shown = run_cli("--json", "remember", "The report cache size is 2 GB", environ=home)
    agent = home | CLAUDE
    changed = run_cli(
        "--json", "remember", "The report cache TTL is 20 minutes in preprod", environ=agent
    )
    assert changed.code == 0, changed.err
    data = changed.json()
    assert (data["trust"], data["contradicts"], data["review_reason"]) == ("accepted", [], None)
    control = run_cli("--json", "remember", "The report cache size is 4 GB", environ=agent).json()
    assert control["trust"] == "disputed" and control["contradicts"] == [shown.json()["id"]]
    mine = run_cli(
        "--json", "remember", "The report cache TTL is 30 minutes in preprod", environ=home
    )
    assert mine.json()["contradicts"] == [] and mine.json()["disputes"] == [data["id"]]
