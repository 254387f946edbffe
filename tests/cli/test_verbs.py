"""The verb table: one entry per verb, each call builds and imports only its own verb,
and a memory's flags are the ones `Memory` declares."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, CliRunner

from tree_ring.cli import app, argparsing
from tree_ring.cli.context import memory_flags
from tree_ring.model.frozen import fields
from tree_ring.model.record import Memory

GROUPS = (
    "anchors",
    "admin",
    "flows",
    "write",
    "read",
    "upkeep",
    "quality",
    "govern",
    "compress",
    "adapters",
    "integrations",
    "config",
    "team",
    "completion",
    "usage",
)


def test_the_table_names_each_verb_where_it_lives() -> None:
    defined = {
        name: group
        for group in GROUPS
        for name in importlib.import_module(f"tree_ring.cli.{group}").VERBS
    }
    assert {name: group for name, (group, _) in app.VERBS.items()} == defined


@pytest.mark.parametrize(
    ("words", "verb"),
    [
        (["recall", "q"], "recall"),
        (["--json", "recall", "q"], "recall"),
        (["--root", "recall", "list"], "list"),
        (["--root=/p", "show", "x"], "show"),
        (["--ro", "status", "list"], "list"),
        (["--version"], None),
        ([], None),
        (["--", "brief"], "brief"),
    ],
)
def test_the_verb_is_the_first_word_past_the_global_options(
    words: list[str], verb: str | None
) -> None:
    assert app.named_verb(words) == verb


def _probe(*argv: str, cwd: Path) -> set[str]:
    """The modules a real call of the CLI leaves loaded, run as bin/tree-ring
    runs it (`app.run`), with the shim's flags: listed just before it exits."""
    script = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.cli import app\n"
        "exit_now = os._exit\n"
        "def listed(code):\n"
        "    sys.stdout.write('\\n' + '\\n'.join(sorted(sys.modules)))\n"
        "    sys.stdout.flush()\n"
        "    exit_now(code)\n"
        "os._exit = listed\n"
        f"sys.argv = ['tree-ring', *{list(argv)!r}]\n"
        "try:\n"
        "    app.run()\n"
        "except SystemExit:\n"
        "    listed(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
        timeout=60,
    )
    return set(done.stdout.split("\n"))


def test_help_lists_every_verb_without_importing_one(project_root: Path) -> None:
    modules = _probe("--help", cwd=project_root)
    assert not {f"tree_ring.cli.{group}" for group in GROUPS} & modules
    help_text = argparsing.build_parser(()).format_help()
    for name, (_, text) in app.VERBS.items():
        assert name in help_text and text.split()[0] in help_text


def test_recall_loads_only_the_read_path(project_root: Path, run_cli: CliRunner) -> None:
    run_cli("remember", "Recall finds this")
    modules = _probe("recall", "finds", cwd=project_root)
    assert "tree_ring.read.recall" in modules
    others = {"tree_ring.write", "tree_ring.tree", "tree_ring.govern", "tree_ring.cli.compress"}
    assert not {m for m in modules if m.startswith(tuple(others))}
    assert not {"tree_ring.read.brief", "tree_ring.guard", "tree_ring.store.audit"} & modules
    costly = {"dataclasses", "typing", "pathlib", "inspect", "shutil", "json", "locale", "gettext"}
    assert not costly & modules
    # The line is read by the verb's declaration: argparse is for help and mistakes.
    assert not {"argparse", "tree_ring.cli.argparsing"} & modules


def test_a_mistake_is_argparses_to_name(project_root: Path, run_cli: CliRunner) -> None:
    run_cli("remember", "Recall finds this")
    modules = _probe("recall", "finds", "--lim", "2", cwd=project_root)
    assert {"argparse", "tree_ring.cli.argparsing"} <= modules
    assert "gettext" not in modules


def _argparse_messages(first: str) -> list[str]:
    """What argparse says of bad command lines, in a process that imports `first` first."""
    script = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        f"import {first}, argparse\n"
        "print('gettext' in sys.modules)\n"
        "parser = argparse.ArgumentParser(prog='p', exit_on_error=False)\n"
        "parser.add_argument('--pair', nargs=2)\n"
        "parser.add_argument('--one', nargs=1)\n"
        "parser.add_argument('--n', type=int)\n"
        "for line in (['--pair', 'a'], ['--one'], ['--n', 'x'], ['--pair']):\n"
        "    try:\n"
        "        parser.parse_args(line)\n"
        "    except argparse.ArgumentError as error:\n"
        "        print(error)\n"
        "import gettext\n"
        "print(callable(gettext.translation), gettext.ngettext('a', 'b', 2))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_argparse_speaks_as_before_without_gettext_and_gettext_stays_whole() -> None:
    """The CLI gives argparse plain message functions in place of gettext's:
    its messages, plurals too, read as they do with gettext, and gettext
    imported afterwards is the real module."""
    plain, as_ever = _argparse_messages("tree_ring.cli.argparsing"), _argparse_messages("gettext")
    assert plain[0] == "False" and as_ever[0] == "True"  # gettext loaded, or not
    assert plain[1:] == as_ever[1:]
    assert "argument --pair: expected 2 arguments" in plain
    assert plain[-1] == "True b"


def test_an_argparse_that_asks_gettext_for_more_gets_gettext(tmp_path: Path) -> None:
    """Should a Python's argparse import more of gettext than the two plain
    functions, it is imported as ever, with gettext itself."""
    (tmp_path / "argparse.py").write_text(
        "from gettext import gettext as _, ngettext, pgettext\nASKED = pgettext('c', 'm')\n"
        "ArgumentParser = HelpFormatter = object\n",  # what the CLI's subclasses derive from
        encoding="utf-8",
    )
    script = (
        f"import sys; sys.path[:0] = [{str(tmp_path)!r}, {str(REPO)!r}]\n"
        "import tree_ring.cli.argparsing, argparse, gettext\n"
        "print(argparse.ASKED, callable(gettext.translation))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["m", "True"]


def test_an_unknown_verb_gets_argparses_error(run_cli: CliRunner) -> None:
    result = run_cli("recal", "x")
    assert result.code == 2
    assert "invalid choice: 'recal'" in result.err and "recall" in result.err


def test_each_verb_parses_as_it_did_with_every_verb_built(project_root: Path) -> None:
    """Built alone or among all, a verb's parser reads a command line the same way."""
    lines = [
        ["recall", "q", "--limit", "3", "--include-unreviewed"],
        ["remember", "x", "--tag", "a", "--tag", "b", "--salience", "0.7", "--ring", "scar"],
        ["--json", "list", "--trust", "pending"],
        ["tree", "show", "node-1", "--json"],
        ["review", "reject", "mem_x", "--reason", "r"],
    ]
    for words in lines:
        alone = vars(app.parse(words))
        together = vars(argparsing.build_parser().parse_args(words))
        assert alone == together


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {
        (action.option_strings or [action.dest])[-1]: action
        for action in parser._actions  # pyright: ignore[reportPrivateUsage]
    }


def test_memory_flags_are_the_ones_memory_declares() -> None:
    parser = argparse.ArgumentParser()
    memory_flags(parser)
    options = _options(parser)
    declared = {spec.get("flag"): spec for spec in fields(Memory) if spec.get("flag")}
    assert set(declared) <= set(options)
    for flag, spec in declared.items():
        action = options[flag]
        assert action.help == spec.get("help")
        assert action.choices == spec.get("choices")
    assert options["--event-type"].default == "note"
    assert options["--tag"].default is None and isinstance(options["--tag"], argparse._AppendAction)  # pyright: ignore[reportPrivateUsage]
    assert options["--salience"].type is float
    without_ring = argparse.ArgumentParser()
    memory_flags(without_ring, ring=False)
    assert "--ring" not in _options(without_ring)
