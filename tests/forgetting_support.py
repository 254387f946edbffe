"""A claim remembered and forgotten by a person, and the rows a project lists:
what the tests of forgotten content coming back in other forms start from."""

from __future__ import annotations

from conftest import CliRunner


def forgotten(run_cli: CliRunner, claim: str) -> None:
    """`claim` remembered, then forgotten (deleted) by a person."""
    made = run_cli("--json", "remember", claim)
    assert made.code == 0, made.err
    done = run_cli("forget", made.json()["id"], "--mode", "delete", "--reason", "changed")
    assert done.code == 0, done.err


def listed(run_cli: CliRunner) -> int:
    """How many memories `list` counts."""
    return int(run_cli("--json", "list").json()["total"])
