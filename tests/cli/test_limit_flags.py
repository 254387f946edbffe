"""Every verb that takes `--limit` (and `list --offset`) checks it the same
way, as the flag is read: a count below 1 (below 0 for an offset) or past
SQLite's integers is one usage line, never an empty result or exit 70."""

from __future__ import annotations

import pytest
from helpers import CliRunner

VERBS = [
    ("recall", "anything"),
    ("recall", "--tree", "anything"),
    ("list",),
    ("inbox",),
    ("audit",),
    ("audit", "log"),
    ("review", "list"),
    ("policy", "audit"),
]


def refused(run_cli: CliRunner, argv: list[str], said: str) -> None:
    result = run_cli(*argv)
    assert (result.code, result.out) == (2, ""), (result.code, result.out, result.err)
    assert result.err == f"error: {said}\n"


@pytest.mark.parametrize("verb", VERBS)
@pytest.mark.parametrize("value", ["0", "-3"])
def test_a_limit_below_one_is_refused_alike(
    run_cli: CliRunner, verb: tuple[str, ...], value: str
) -> None:
    said = f"--limit takes a count of 1 or more, not {value}"
    refused(run_cli, [*verb, "--limit", value], said)
    refused(run_cli, [*verb, f"--limit={value}"], said)


@pytest.mark.parametrize("verb", VERBS)
def test_a_limit_past_what_sqlite_holds_is_refused(
    run_cli: CliRunner, verb: tuple[str, ...]
) -> None:
    huge = "99999999999999999999"
    refused(
        run_cli,
        [*verb, "--limit", huge],
        "--limit takes at most 1,000,000,000,000,000, not 99,999,999,999,999,999,999",
    )


def test_an_offset_below_zero_or_past_sqlite_is_refused(run_cli: CliRunner) -> None:
    refused(run_cli, ["list", "--offset", "-5"], "--offset takes 0 or more, not -5")
    result = run_cli("list", "--offset", "99999999999999999999")
    assert result.code == 2 and result.err.startswith("error: --offset takes at most")


def test_a_limit_in_range_still_works(run_cli: CliRunner) -> None:
    assert run_cli("remember", "Limits still list things").code == 0
    result = run_cli("--json", "recall", "limits", "--limit", "1")
    assert result.code == 0 and result.json()["shown"] == 1
