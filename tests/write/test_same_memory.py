"""The same memory written again in one place is one memory (`pipeline.same_memory`).

A `remember` run twice, or a later stop's capture of a lesson an earlier one
saved, answers with the row already standing there: a second row would take
a second line of the brief, and forgetting either would take both. What
differs in ring, type, tags, writer or place is another memory."""

from __future__ import annotations

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, live_ids, write

TEXT = "Sessions expire after 30 minutes of inactivity"
SESSION = "11112222-3333-4444-8555-666677778888"


def test_remembering_the_same_note_again_answers_with_it(run_cli: CliRunner) -> None:
    first = write(run_cli, "remember", TEXT)
    again = write(run_cli, "remember", TEXT)
    assert (again["id"], again["created"]) == (first["id"], False)
    said = run_cli("remember", "sessions expire after 30 minutes of inactivity.")
    assert said.out.strip() == (
        f"already stored as {first['id']} (the same words, ring and type); nothing written"
    )
    assert live_ids(run_cli) == {first["id"]}
    assert run_cli("--json", "brief").json()["items"] == [first["id"]]


@pytest.mark.parametrize(
    "other",
    [
        ("--ring", "scar"),
        ("--event-type", "decision"),
        ("--tag", "auth"),
        ("--scope", "manual"),
    ],
    ids=["ring", "type", "tags", "place"],
)
def test_what_differs_is_another_memory(run_cli: CliRunner, other: tuple[str, ...]) -> None:
    first = write(run_cli, "remember", TEXT)["id"]
    second = write(run_cli, "remember", TEXT, *other)
    assert second["created"] is True and second["id"] != first
    assert live_ids(run_cli, "--scope", "manual") | live_ids(run_cli) >= {first, second["id"]}


def test_an_agents_proposal_of_a_persons_memory_is_still_its_own(run_cli: CliRunner) -> None:
    mine = write(run_cli, "remember", TEXT)["id"]
    proposal = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)
    assert proposal["created"] is True and proposal["id"] != mine
    assert proposal["trust"] == "pending"


def _capture(run_cli: CliRunner, operation: str) -> dict[str, object]:
    return write(
        run_cli, "capture", "The build cache lives in .cache/build",
        "--event-type", "lesson", "--ring", "cambium", "--agent-profile", "claude-code",
        "--session-id", SESSION, "--operation-id", operation,
        environ=CLAUDE | {"CLAUDE_CODE_SESSION_ID": SESSION},
    )  # fmt: skip


def test_a_later_stops_capture_of_the_same_lesson_is_the_same_memory(
    run_cli: CliRunner,
) -> None:
    first = _capture(run_cli, "auto-dddddddddd01-1")
    later = _capture(run_cli, "auto-dddddddddd02-1")
    assert (later["id"], later["created"]) == (first["id"], False)
    retry = _capture(run_cli, "auto-dddddddddd01-1")
    assert (retry["id"], retry["created"]) == (first["id"], False)
    listed = run_cli("--json", "list", "--scope", "agent").json()["items"]
    assert [m["id"] for m in listed] == [first["id"]]


def test_forgotten_words_are_refused_not_answered(run_cli: CliRunner) -> None:
    first = write(run_cli, "remember", TEXT)["id"]
    write(run_cli, "forget", first, "--mode", "delete", "--reason", "wrong")
    again = run_cli("remember", TEXT)
    assert again.code != 0 and "forgotten" in again.err


def test_a_fact_that_held_once_is_not_the_one_said_now(run_cli: CliRunner) -> None:
    window = ("--valid-from", "2020-01-01", "--valid-to", "2021-01-01")
    ended = write(run_cli, "remember", TEXT, *window)
    now = write(run_cli, "remember", TEXT)
    assert now["created"] is True and now["id"] != ended["id"]
    assert live_ids(run_cli) == {now["id"]}


def test_the_same_words_as_sensitive_are_another_memory(run_cli: CliRunner) -> None:
    first = write(run_cli, "remember", TEXT)["id"]
    private = write(run_cli, "remember", TEXT, "--sensitivity", "private")
    assert private["created"] is True and private["id"] != first
