"""`export --user` taken back: `import FILE --user` restores the user store,
its notes and its forgets, in a project or outside one; a project import of
such a file never takes the person's forgets into the project, whose team
ledger would share them with everyone."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import CliRunner
from governance_support import CLAUDE
from helpers import REPO, cli_runner

from tree_ring.store import user
from tree_ring.store.db import Store

NOTES = ("I prefer pytest -q for quick runs", "I like short commit subjects")
FORGOTTEN = "I write commit messages in the imperative mood"


@pytest.fixture
def exported(tmp_path: Path, project_root: Path) -> Path:
    """A user store's export on another machine: two notes and one forgotten."""
    home = {"TREE_RING_USER_HOME": str(tmp_path / "first-machine")}
    run = cli_runner(project_root)
    for text in NOTES:
        assert run("remember", text, "--scope", "global", environ=home).code == 0
    gone = run("--json", "remember", FORGOTTEN, "--scope", "global", environ=home).json()["id"]
    done = run("forget", gone, "--user", "--mode", "delete", "--reason", "no", environ=home)
    assert done.code == 0, done.err
    path = tmp_path / "mine.jsonl"
    assert run("export", "--user", "--output", str(path), environ=home).code == 0
    stones = [line for line in path.read_text().splitlines() if "content_tombstone" in line]
    assert stones and all(json.loads(line)["project"] == user.USER_PROJECT for line in stones)
    return path


def _second(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "second-machine")}


def _user_summaries(home: dict[str, str]) -> set[str]:
    opened = user.open_user(home)
    assert opened is not None
    with opened as store:
        return {row[0] for row in store.db.query("SELECT summary FROM memories")}


def _project_stones(root: Path) -> int:
    with Store.open(root) as store:
        return int(store.db.scalar("SELECT count(*) FROM content_tombstones"))


@pytest.mark.parametrize("global_to", ["user", "project"])
def test_a_project_import_leaves_the_persons_forgets_out_of_the_project(
    run_cli: CliRunner, project_root: Path, exported: Path, tmp_path: Path, global_to: str
) -> None:
    home = _second(tmp_path)
    before = _project_stones(project_root)
    done = run_cli(
        "--json", "import", str(exported), "--restore", "--global-to", global_to, environ=home
    )
    assert done.code == 0, done.err
    assert done.json()["personal_tombstones"] == 2
    assert done.json()["tombstones"] == 0
    assert _project_stones(project_root) == before
    said = run_cli("import", str(exported), "--dry-run", "--global-to", global_to, environ=home)
    assert "2 of the file's tombstones are your user store's forgets" in said.out
    if global_to == "user":
        # They go with the notes, to the user store, which binds the project too.
        assert _user_summaries(home) == set(NOTES)
        again = run_cli("remember", FORGOTTEN, environ=home)
        assert again.code != 0 and "was forgotten" in again.err


def test_import_user_restores_notes_and_forgets_outside_any_project(
    exported: Path, tmp_path: Path
) -> None:
    home = _second(tmp_path)
    outside = tmp_path / "nowhere"
    outside.mkdir()
    run = cli_runner(outside)
    done = run("--json", "import", str(exported), "--user", "--restore", environ=home, root=False)
    assert done.code == 0, done.err
    assert (done.json()["imported"], done.json()["tombstones"]) == (2, 2)
    schema = json.loads((REPO / "docs" / "cli-output.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(done.json())
    assert _user_summaries(home) == set(NOTES)
    again = run("remember", FORGOTTEN, "--scope", "global", environ=home, root=False)
    assert again.code != 0 and "was forgotten" in again.err
    # Restored as written: the person's notes, not claims waiting for review.
    listed = run("--json", "recall", "--user", "pytest", environ=home, root=False)
    assert listed.code == 0 and listed.json()["items"][0]["summary"] == NOTES[0]


def test_import_user_refuses_a_row_of_another_scope_and_creates_no_store(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    home = _second(tmp_path)
    path = tmp_path / "project.jsonl"
    rows = [{"summary": "A global note"}, {"summary": "A project rule", "scope": "project"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = run_cli("import", str(path), "--user", environ=home)
    assert done.code == 2
    assert done.err.count("\n") == 1 and "your user store holds global notes only" in done.err
    assert not user.exists(home)


@pytest.mark.parametrize("flag", [("--global-to", "user"), ("--all-projects",)])
def test_import_user_takes_no_project_flags(
    run_cli: CliRunner, exported: Path, tmp_path: Path, flag: tuple[str, ...]
) -> None:
    done = run_cli("import", str(exported), "--user", *flag, environ=_second(tmp_path))
    assert done.code == 2 and "--user imports into your user store only" in done.err
    assert not user.exists(_second(tmp_path))


def test_an_agent_may_not_import_into_the_user_store(
    run_cli: CliRunner, exported: Path, tmp_path: Path
) -> None:
    done = run_cli("import", str(exported), "--user", environ={**_second(tmp_path), **CLAUDE})
    assert done.code != 0 and "an agent cannot import into a person's user store" in done.err
    assert not user.exists(_second(tmp_path))


def test_import_user_in_a_project_holding_the_words_still_records_the_forgets(
    run_cli: CliRunner, project_root: Path, exported: Path, tmp_path: Path
) -> None:
    """The project holds the forgotten words as a memory of its own: the
    restore records the user store's forgets all the same (they hide that
    row in the person's reads, as `forget --user` would), whatever folder it
    is run from."""
    home = _second(tmp_path)
    assert run_cli("remember", FORGOTTEN, environ=home).code == 0
    done = run_cli("--json", "import", str(exported), "--user", "--restore", environ=home)
    assert done.code == 0, done.err
    assert done.json()["tombstones"] == 2 and done.json()["spared_notes"] == []
    again = run_cli("remember", FORGOTTEN, "--scope", "global", environ=home)
    assert again.code != 0 and "was forgotten" in again.err
    recalled = run_cli("--json", "recall", "imperative mood commit messages", environ=home)
    assert FORGOTTEN not in recalled.out


def test_import_user_reads_a_line_without_scope_as_the_persons(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    """A hand-written note names no scope, or null, or "": in the user store
    it is the person's own (global), in a project the project's."""
    home = _second(tmp_path)
    path = tmp_path / "notes.jsonl"
    rows = [{"summary": "I like short commits"}, {"summary": "I use vim", "scope": None},
            {"summary": "I test first", "scope": ""}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = run_cli("--json", "import", str(path), "--user", environ=home)
    assert done.code == 0 and done.json()["imported"] == 3, done.err
    assert _user_summaries(home) == {"I like short commits", "I use vim", "I test first"}
    into_project = run_cli("--json", "import", str(path), environ=home)
    assert into_project.code == 0, into_project.err
    ids = [item["id"] for item in into_project.json()["items"]]
    scopes = {run_cli("--json", "show", i).json()["memory"]["scope"] for i in ids}
    assert scopes == {"project"}
