"""A refused command line never echoes a value: every parser error path.

Whatever follows a flag can be a token pasted in the wrong place. Each error
here is one line that names the command and where to read how, names an
option only when the word has an option's shape, and never shows a free
value, whether or not it looks like a secret.
"""

from __future__ import annotations

import pytest
from helpers import CliRunner, run_process

from tree_ring.mcp import server as mcp_server
from tree_ring.model import arguments
from tree_ring.tui import main as tui
from tree_ring.web import app as web

# The shape of a GitHub token, and a value no secret rule knows.
TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PLAIN = "quietly-unremarkable-words-not-a-secret-at-all-x9q"


def leaked(err: str, value: str) -> bool:
    # Any stretch of the value long enough to identify it.
    return any(value[i : i + 12] in err for i in range(len(value) - 11))


def one_line(err: str) -> bool:
    """One error line that says what to do: read the help, or write it so."""
    to_do = "--help` shows how" in err or "use e.g." in err
    return err.startswith("error: ") and err.count("\n") == 1 and to_do


PATHS = [
    # unrecognized arguments: a flag with its value, as one word, alone, bare
    (["remember", "x", "--bogus", "{v}"], "unrecognized arguments: --bogus and 1 more word"),
    (["remember", "x", "--bogus={v}"], "unrecognized arguments: --bogus=…"),
    (["remember", "x", "{v}"], "unrecognized arguments: 1 word (not shown)"),
    (["remember", "x", "--{v}"], "unrecognized arguments: 1 word (not shown)"),
    (["review", "list", "--set", "k={v}"], "unrecognized arguments: --set and 1 more word"),
    # invalid choice: a verb, an action, an option's choice
    (["{v}"], "invalid choice (not shown)"),
    (["review", "{v}"], "invalid choice (not shown)"),
    (["list", "--scope", "{v}"], "invalid choice (not shown)"),
    (["review", "approve", "--all", "--origin", "{v}"], "invalid choice (not shown); choose"),
    # invalid value for a typed option
    (["remember", "x", "--salience", "{v}"], "--salience: expects a number (the value"),
    (["list", "--limit", "{v}"], "--limit: expects a whole number (the value"),
    # a value given to a flag that takes none; an abbreviation that matches several
    (["list", "--include-sensitive={v}"], "--include-sensitive: takes no value"),
    (["remember", "x", "--s={v}"], "ambiguous option: --s=… could match"),
    # a time option's value, checked after parsing
    (["list", "--as-of", "{v}"], "--as-of is not an ISO-8601 time (the value is not shown)"),
]


@pytest.mark.parametrize("value", [TOKEN, PLAIN])
@pytest.mark.parametrize(("argv", "says"), PATHS)
def test_no_parser_error_echoes_a_value(
    run_cli: CliRunner, argv: list[str], says: str, value: str
) -> None:
    result = run_cli(*(word.replace("{v}", value) for word in argv))
    assert result.code == 2 and result.out == ""
    assert one_line(result.err), result.err
    assert says in result.err, result.err
    assert not leaked(result.err, value), result.err


def test_names_and_times_are_still_shown_to_help_fix_a_typo(run_cli: CliRunner) -> None:
    assert "invalid choice: 'recal'; did you mean 'recall'?" in run_cli("recal", "x").err
    assert "unrecognized arguments: --bogus (`" in run_cli("list", "--bogus").err
    assert "'2026-13-01' is not an ISO-8601 time" in run_cli("list", "--as-of", "2026-13-01").err


def test_the_real_command_line_keeps_the_token_out() -> None:
    done = run_process("remember", "x", "--bogus", TOKEN)
    err = done.stderr.decode()
    assert done.returncode == 2 and done.stdout == b""
    assert one_line(err) and not leaked(err, TOKEN), err
    assert err == (
        "error: tree-ring remember: unrecognized arguments: --bogus and 1 more word (not shown) "
        "(`tree-ring remember --help` shows how)\n"
    )


@pytest.mark.parametrize(
    "run",
    [
        lambda v: tui.main(["--bogus", v]),
        lambda v: tui.main([f"--root={v}", v]),
        lambda v: web.main(["view", "--port", v]),
        lambda v: web.main(["report", "--html", "x", f"--bogus={v}"]),
        lambda v: mcp_server.parse_args([v]),
        lambda v: mcp_server.parse_args([f"--{v}"]),
    ],
)
def test_the_other_clients_parsers_echo_no_value_either(
    run: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert callable(run)
    # The clients' own mains return the exit code; the MCP server's launch
    # options exit before a server exists.
    try:
        code = run(TOKEN)
    except SystemExit as exited:
        code = exited.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: tree-ring ") and err.count("\n") == 1, err
    assert not leaked(err, TOKEN), err


@pytest.mark.parametrize(
    ("word", "shown"),
    [
        ("--bogus", "--bogus"),
        ("--include-sensitive", "--include-sensitive"),
        ("-x", "-x"),
        ("--bogus=" + TOKEN, "--bogus=…"),
        ("--" + TOKEN, None),
        ("--" + "a1b2c3d4e5f6a7b8", None),  # lower-case hex: too many digits for a name
        ("--" + "a" * 40, None),  # too long for one
        ("--Bogus", None),
        (TOKEN, None),
        ("bogus", None),  # a free word, even a plain one
    ],
)
def test_what_counts_as_an_option_name(word: str, shown: str | None) -> None:
    assert arguments.shown(word) == shown
