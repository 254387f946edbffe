"""The brief says when the project stores more than it shows, so an agent
knows a recall may find what the eight lines leave out; never when it shows
them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CliRunner
from helpers import cli_runner

from tree_ring.api.project import Project
from tree_ring.harness import guidance
from tree_ring.read import brief


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def _header(root: Path, home: dict[str, str]) -> str:
    with Project.open(str(root), home) as here:
        return here.brief().text.splitlines()[0]


def _store(run_cli: CliRunner, home: dict[str, str], count: int, *args: str) -> None:
    for i in range(count):
        done = run_cli("remember", f"Build step {i} runs the {i}th lint pass", *args, environ=home)
        assert done.code == 0, done.err


@pytest.mark.parametrize(("stored", "more"), [(1, False), (8, False), (9, True), (30, True)])
def test_the_header_says_more_are_stored_only_when_they_are(
    project_root: Path, run_cli: CliRunner, home: dict[str, str], stored: int, more: bool
) -> None:
    _store(run_cli, home, stored)
    header = _header(project_root, home)
    assert header.endswith(brief.MORE) is more
    shown = min(stored, brief.MAX_LINES)
    assert f": {shown} recalled memor" in header


def test_the_persons_own_lines_take_room_and_the_header_says_so(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    """Eight project rows and two of the person's: the brief shows six of the
    project's, and says more are stored."""
    _store(run_cli, home, 8)
    _store(run_cli, home, 2, "--scope", "global")
    header = _header(project_root, home)
    assert ": 8 recalled memories" in header and header.endswith(brief.MORE)


def test_hidden_rows_are_not_counted_as_more(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    """Eight visible rows and a sensitive one the brief never shows."""
    _store(run_cli, home, 8)
    done = run_cli("remember", "The on-call phone is in the safe", "--sensitivity", "private")
    assert done.code == 0, done.err
    assert not _header(project_root, home).endswith(brief.MORE)


def test_an_empty_brief_says_when_other_partitions_hold_memories(
    project_root: Path, run_cli: CliRunner
) -> None:
    """A Codex session's brief, where only Claude Code's own partition holds
    notes: nothing to show, and a word that they exist and how they are shared."""
    from governance_support import CLAUDE, CODEX

    empty = run_cli("brief", environ=CODEX)
    assert empty.code == 0 and brief.ELSEWHERE.strip() not in empty.out
    for text in ("The billing tests need the docker socket", "Lint runs before the unit tests"):
        assert run_cli("remember", text, environ=CLAUDE).code == 0
    codex = run_cli("brief", environ=CODEX)
    assert codex.code == 0
    assert codex.out.startswith("Tree Ring memory for project ")
    assert "no memories to recall for this session yet." + brief.ELSEWHERE in codex.out
    assert "billing tests" not in codex.out
    # Claude Code's own session sees its notes, and no such word.
    claude = run_cli("brief", environ=CLAUDE)
    assert "billing tests" in claude.out and brief.ELSEWHERE.strip() not in claude.out


@pytest.mark.parametrize("where", ["project", "another agent's"])
def test_an_empty_brief_counts_no_row_the_person_forgot(
    project_root: Path, run_cli: CliRunner, home: dict[str, str], where: str
) -> None:
    """Rows every read hides (their words forgotten in the person's user
    store) are no memories elsewhere: a project row the session reads, or
    another agent's notes, all of them hidden, and 40 of them (more than the
    brief reads to say so) ahead of one that is not."""
    from governance_support import CLAUDE, CODEX

    writer = CLAUDE if where == "another agent's" else {}
    forgotten = "The billing tests need the docker socket"
    for n in range(40 if where == "another agent's" else 1):
        text = forgotten if n == 0 else f"{forgotten} on runner {n}"
        assert run_cli("remember", text, environ={**home, **writer}).code == 0
    # Forgotten from another project: the copies agents wrote here stay, hidden.
    other = project_root.parent / "other"
    other.mkdir()
    guidance.init_project(other)
    there = cli_runner(other)
    gone = there("--json", "remember", forgotten, "--scope", "global", environ=home).json()["id"]
    forgot = there("forget", gone, "--user", "--mode", "delete", "--reason", "no", environ=home)
    assert forgot.code == 0, forgot.err
    assert run_cli("--json", "list", environ=home).json()["items"] == []
    with Project.open(str(project_root), home) as here:
        stored = here.store.db.scalar("SELECT count(*) FROM memories")
    assert stored == (40 if where == "another agent's" else 1)
    codex = run_cli("brief", environ={**home, **CODEX})
    assert "no memories to recall for this session yet." in codex.out
    assert brief.ELSEWHERE.strip() not in codex.out
    if where == "another agent's":
        # One note of theirs the person did not forget: now there is something elsewhere.
        kept = run_cli("remember", "Lint runs before the unit tests", environ={**home, **CLAUDE})
        assert kept.code == 0
        assert brief.ELSEWHERE in run_cli("brief", environ={**home, **CODEX}).out
