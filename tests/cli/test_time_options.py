"""Every option that takes a time refuses an empty value and a run of digits.

An empty `--as-of` once read as "not given" and answered for now, and a run
of 1s of any length read as 1111-11-11T11:11:11.111111Z; both are usage
errors (exit 2, one line) for each verb that takes a time, and for the TUI
and the report.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CliRunner, Run

from tree_ring.cli.argparsing import build_parser
from tree_ring.tui import main as tui
from tree_ring.web import app as web

# Each verb that takes a time, what else its line needs, and the option.
EVIDENCE = ["a note", "--outcome", "observed", "--evidence-ref", "run-1"]
CAPTURED = ["a note", "--event-type", "lesson", "--ring", "cambium"]
TIME_OPTIONS = [
    *(("remember", ["a note"], flag) for flag in ("--expires-at", "--valid-from", "--valid-to")),
    *(("evidence", EVIDENCE, flag) for flag in ("--expires-at", "--valid-from", "--valid-to")),
    *(("capture", CAPTURED, flag) for flag in ("--expires-at", "--valid-from", "--valid-to")),
    ("recall", ["deploy"], "--as-of"),
    ("recall", ["deploy"], "--valid-at"),
    ("brief", [], "--as-of"),
    ("brief", [], "--valid-at"),
    ("list", [], "--since"),
    ("list", [], "--as-of"),
    ("list", [], "--valid-at"),
    ("inbox", [], "--since"),
    ("usage", [], "--since"),
    ("review approve", ["--all"], "--since"),
]
# The harness a capture needs (a person's is refused before its flags are read).
AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91-0000-4000-8000-000000000001"}


def _time_options(parser: argparse.ArgumentParser, verb: str) -> Iterator[tuple[str, str]]:
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            for name, sub in action.choices.items():
                yield from _time_options(sub, f"{verb} {name}".strip())
        elif action.metavar in ("TIME", "AGE"):
            yield verb, action.option_strings[0]


def test_the_table_names_every_time_option_the_cli_has() -> None:
    assert {(verb, flag) for verb, _, flag in TIME_OPTIONS} == set(
        _time_options(build_parser(), "")
    )


def _run(run_cli: CliRunner, verb: str, words: list[str], flag: str, value: str) -> Run:
    environ = AGENT if verb == "capture" else None
    result = run_cli(*verb.split(), *words, flag, value, environ=environ)
    assert result.code == 2 and result.out == "", result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    return result


@pytest.mark.parametrize("value", ["", "   "])
@pytest.mark.parametrize(("verb", "words", "flag"), TIME_OPTIONS)
def test_an_empty_time_is_a_usage_error(
    run_cli: CliRunner, verb: str, words: list[str], flag: str, value: str
) -> None:
    said = _run(run_cli, verb, words, flag, value).err
    assert (f"{flag} takes a count" if verb == "usage" else f"{flag} is empty; use e.g.") in said


@pytest.mark.parametrize("value", ["1" * 15, "1" * 30, "1" * 5000, "2026-11-29X13:00"])
@pytest.mark.parametrize(("verb", "words", "flag"), TIME_OPTIONS)
def test_a_run_of_digits_is_no_time(
    run_cli: CliRunner, verb: str, words: list[str], flag: str, value: str
) -> None:
    said = _run(run_cli, verb, words, flag, value).err
    assert "is not an ISO-8601 time" in said or f"{flag} takes a count" in said


@pytest.mark.parametrize("flag", ["--as-of", "--valid-at"])
def test_the_tui_refuses_an_empty_time_before_it_opens(
    flag: str,
    project_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert tui.main(["--root", str(project_root), flag, ""], {}) == 2
    err = capsys.readouterr().err
    assert err == f"error: {flag} is empty; use e.g. 2026-11-29T13:00:00Z, or leave {flag} out\n"


def test_the_report_refuses_an_empty_now(
    project_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "report.html"
    argv = ["report", "--root", str(project_root), "--html", str(target), "--now", ""]
    assert web.main(argv, {}) == 2
    assert "--now is empty; use e.g." in capsys.readouterr().err
    assert not target.exists()
