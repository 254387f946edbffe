"""A person's `remember --scope global` run outside any project writes to
their user store, and creates it: `--scope global` means the person, not a
project (docs/INBOX.md). A write of the user store's forgotten content is
refused there as in a project, and its hint names the log that says why
(`audit --user`). An agent's global write is a proposal made in the project
it works in, so outside one it is refused as before, and nothing is made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import CliRunner, cli_runner

from tree_ring.harness import guidance

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sess-outside-1"}


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """The CLI run in a folder of no project (no `.tree-ring/` here or above)."""
    folder = tmp_path / "nowhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    runner = cli_runner(folder)
    return lambda *args, environ=None, root=False: runner(*args, environ=environ, root=root)


def _json(run: CliRunner, *args: str, environ: dict[str, str]) -> Any:
    done = run("--json", *args, environ=environ)
    assert done.code == 0, done.err
    return json.loads(done.out)


def _ids(run: CliRunner, environ: dict[str, str]) -> set[str]:
    return {m["id"] for m in _json(run, "list", "--user", environ=environ)["items"]}


def test_a_persons_global_note_outside_any_project_goes_to_the_user_store(
    nowhere: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    store = tmp_path / "me" / "user.sqlite"
    assert not store.exists()
    first = _json(nowhere, "remember", "I prefer tabs", "--scope", "global", environ=home)
    assert first["project"] == "user" and store.exists()
    second = _json(
        nowhere, "evidence", "Tabs kept diffs small", "--scope", "global",
        "--outcome", "observed", "--evidence-ref", "review-12", environ=home,
    )  # fmt: skip
    assert _ids(nowhere, home) == {first["id"], second["id"]}
    # A project's brief shows them: the store is the one every project reads.
    project = tmp_path / "site"
    project.mkdir()
    guidance.init_project(project)
    brief = _json(cli_runner(project), "brief", environ=home)["items"]
    assert first["id"] in brief
    # A project memory still needs a project.
    plain = nowhere("remember", "The build uses make", environ=home)
    assert plain.code == 1 and "tree-ring init" in plain.err
    assert _ids(nowhere, home) == {first["id"], second["id"]}


def test_an_agents_global_write_outside_any_project_is_refused(
    nowhere: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    done = nowhere("remember", "Agents like tabs", "--scope", "global", environ={**home, **AGENT})
    assert done.code == 1 and "tree-ring init" in done.err and done.out == ""
    assert not (tmp_path / "me").exists()


def test_forgotten_there_stays_out_and_the_hint_names_the_user_stores_log(
    nowhere: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    note = _json(nowhere, "remember", "I prefer tabs", "--scope", "global", environ=home)["id"]
    gone = nowhere("forget", note, "--user", "--mode", "delete", "--reason", "spaces", environ=home)
    assert gone.code == 0, gone.err
    again = nowhere("remember", "I prefer tabs", "--scope", "global", environ=home)
    assert again.code == 1 and f"`tree-ring audit --target {note} --user`" in again.err
    assert _ids(nowhere, home) == set()
    # The hint's command works, outside a project as in one.
    log = _json(nowhere, "audit", "--target", note, "--user", environ=home)["items"]
    assert [e["action"] for e in log] == ["create", "forget"]
    # In a project, a project write of that content names the same log; one
    # the project forgot itself names the project's.
    project = tmp_path / "site"
    project.mkdir()
    guidance.init_project(project)
    run = cli_runner(project)
    refused = run("remember", "I prefer tabs", environ=home)
    assert refused.code == 1 and f"--target {note} --user`" in refused.err
    own = _json(run, "remember", "Deploys wait for QA", environ=home)["id"]
    assert run("forget", own, "--mode", "delete", "--reason", "x", environ=home).code == 0
    mine = run("remember", "Deploys wait for QA", environ=home)
    assert mine.code == 1 and f"--target {own}`" in mine.err


def test_recall_user_searches_your_notes_anywhere_and_leaves_out_what_a_project_forgot(
    nowhere: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    tabs = _json(nowhere, "remember", "I prefer tabs in Makefiles", "--scope", "global",
                 environ=home)["id"]  # fmt: skip
    done = nowhere("--json", "recall", "tabs", "--user", environ=home)
    assert done.code == 0 and done.err == ""
    assert [hit["id"] for hit in json.loads(done.out)["items"]] == [tabs]
    # A project that forgot a note's content: its reads of your notes leave it out.
    site = tmp_path / "site"
    site.mkdir()
    guidance.init_project(site)
    run = cli_runner(site)
    gone = _json(run, "remember", "Deploys wait for QA sign-off", environ=home)["id"]
    assert run("forget", gone, "--mode", "delete", "--reason", "x", environ=home).code == 0
    other = tmp_path / "other"
    other.mkdir()
    guidance.init_project(other)
    _json(cli_runner(other), "remember", "Deploys wait for QA sign-off", "--scope", "global",
          environ=home)  # fmt: skip
    everywhere = nowhere("--json", "recall", "deploys QA", "--user", environ=home)
    assert len(json.loads(everywhere.out)["items"]) == 1
    here = run("--json", "recall", "deploys QA", "--user", environ=home)
    assert here.code == 0 and json.loads(here.out)["items"] == []
    found = run("--json", "recall", "tabs", "--user", environ=home)
    assert [hit["id"] for hit in json.loads(found.out)["items"]] == [tabs]  # once, not twice


def test_status_and_the_inbox_say_what_waits_in_your_user_store(
    home: dict[str, str], tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    guidance.init_project(site)
    run = cli_runner(site)
    _json(run, "remember", "I prefer tabs in Makefiles", "--scope", "global", environ=home)
    assert "user store" not in run("inbox", "--peek", environ=home).out
    assert "in your user store" not in run("status", environ=home).out
    proposed = run("remember", "The user likes small commits", "--scope", "global",
                   environ={**home, **AGENT})  # fmt: skip
    assert proposed.code == 0 and "pending" in proposed.out
    said = "`review list --user`"
    assert f"in your user store: 1 ({said})" in run("status", environ=home).out
    inbox = run("inbox", "--peek", environ=home)
    assert "your user store: 1 waiting for you" in inbox.out and "review list --user" in inbox.out
    assert _json(run, "inbox", "--peek", environ=home)["user_store_waiting"] == 1
