"""Approving an agent's request to forget says what became of the content,
in the words a direct forget uses and from the same account (`Forgotten`):
tombstoned, or kept writable by an accepted memory that still holds it."""

from __future__ import annotations

from pathlib import Path

from governance_support import CLAUDE, CODEX, remember, write
from helpers import CliRunner

FACT = "The deploy window is Tuesday morning"


def test_approving_a_request_whose_content_nothing_else_holds_tombstones_it(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, FACT)
    asked = write(run_cli, "forget", mine, "--mode", "delete", "--reason", "moved", environ=CODEX)
    done = run_cli("review", "approve", asked["request"], "--reason", "fine")
    assert (done.code, done.err) == (0, "")
    assert done.out == (
        f"approved {asked['request']}: {mine} is forgotten (delete) by person; "
        "its content is tombstoned and will not be stored again\n"
    )
    again = run_cli("remember", FACT)
    assert again.code == 1 and "forgotten on" in again.err


def test_approving_a_request_a_persons_memory_holds_keeps_the_content_writable(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, FACT)
    copy = remember(run_cli, FACT, "--scope", "project", environ=CLAUDE)
    asked = write(run_cli, "forget", copy, "--mode", "delete", "--reason", "mine", environ=CLAUDE)
    done = run_cli("--json", "review", "approve", asked["request"], "--reason", "drop the copy")
    assert done.code == 0, done.err
    assert done.json()["tombstoned"] is False
    # A second request, decided in plain text.
    again = remember(run_cli, FACT, "--scope", "project", environ=CLAUDE)
    asked = write(run_cli, "forget", again, "--mode", "delete", "--reason", "mine", environ=CLAUDE)
    shown = run_cli("review", "approve", asked["request"], "--reason", "drop the copy")
    assert (shown.code, shown.err) == (0, "")
    assert shown.out == (
        f"approved {asked['request']}: {again} is forgotten (delete) by person; "
        "an accepted memory holds the same text, so it stays writable\n"
    )
    # As it says: the person's memory stays, and the text can be written.
    listed = {m["id"] for m in run_cli("--json", "list").json()["items"]}
    assert listed == {mine}
    assert run_cli("remember", FACT, "--event-type", "decision").code == 0


def test_the_queue_names_the_commands_that_decide_a_request(
    run_cli: CliRunner, project_root: Path
) -> None:
    import shlex

    mine = remember(run_cli, FACT)
    asked = write(run_cli, "forget", mine, "--mode", "delete", "--reason", "moved", environ=CODEX)
    listed = run_cli("review", "list").out.splitlines()
    [decide] = [line for line in listed if line.strip().startswith("decide:")]
    approve, reject = decide.split("`")[1], decide.split("`")[3]
    assert reject == f"tree-ring review reject {asked['request']} --reason WHY"
    done = run_cli(*shlex.split(approve)[1:])
    assert done.code == 0 and done.out.startswith(f"approved {asked['request']}: {mine}")
