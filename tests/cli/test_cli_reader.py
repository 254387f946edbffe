"""The CLI's reader: a line it reads, argparse reads to the same names and
values; every other line is argparse's (help, mistakes, the forms it leaves).

Every line the suite runs is read both ways too (`tests/conftest.py`); here
lines are drawn from each verb's own declaration, odd words and all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tree_ring.cli import app, argparsing, reader
from tree_ring.model.errors import UsageError

REPO = Path(__file__).resolve().parents[2]

# The verbs argparse reads whole: nested actions (`review approve`) or a
# variable number of words (`promote ID ...`).
UNREAD = {
    "audit",
    "promote",
    "quality",
    "review",
    "policy",
    "tree",
    "dox",
    "revolve",
    "integrations",
    "recall-quality",
    "config",
}


def declaration(verb: str) -> reader.Declared:
    return reader.declared(app.verb_entry(verb)[1])


def read(words: list[str]) -> SimpleNamespace | None:
    """The reader's reading of `words`, by the verb they name (else recall's)."""
    verb = app.named_verb(words)
    verb = verb if verb in app.VERBS else "recall"
    return reader.read(words, verb, *app.verb_entry(verb))


def by_argparse(words: list[str]) -> dict[str, Any] | str:
    try:
        return vars(argparsing.parse(words))
    except UsageError as error:
        return f"refused: {error}"


def test_the_verbs_argparse_reads_whole_are_these() -> None:
    assert {verb for verb in app.VERBS if declaration(verb).unread} == UNREAD


READ = sorted(set(app.VERBS) - UNREAD)


def plain_value(option: reader._Argument) -> str:  # pyright: ignore[reportPrivateUsage]
    if option.choices is not None:
        return str(sorted(option.choices)[-1])
    kind = getattr(option.type, "__name__", "")
    return {"count": "7", "float": "0.5", "int": "3", "project_id_value": "demo-1"}.get(
        kind, "some words"
    )


def plain_line(verb: str) -> list[str]:
    """Every option of `verb` once, with a value it takes, then its positionals."""
    declared = declaration(verb)
    words = ["--json", verb]
    seen: set[int] = set()
    taken: set[int] = set()
    for name, option in declared.options.items():
        if id(option) in seen or name == "--root" or option.exclusive in taken:
            continue
        seen.add(id(option))
        if option.exclusive >= 0:
            taken.add(option.exclusive)
        if option.kind in ("store", "append"):
            words += [name, plain_value(option)]
        else:
            words.append(name)
    return words + [plain_value(p) for p in declared.positionals]


@pytest.mark.parametrize("verb", READ)
def test_a_plain_line_of_every_verb_is_read_as_argparse_reads_it(verb: str) -> None:
    words = plain_line(verb)
    found = read(words)
    assert found is not None, words
    assert vars(found) == by_argparse(words)


@pytest.mark.parametrize(
    "words",
    [
        ["recall", "--lim", "3", "q"],  # an abbreviation
        ["recall", "-h"],
        ["recall", "--help"],
        ["recall", "q", "--", "--limit"],
        ["recall", "--limit", "-3", "q"],  # a negative number
        ["recall", "--limit=", "q"],
        ["recall", "--json=1", "q"],
        ["recall", "q", "r"],  # a word too many
        ["recall"],  # a positional missing
        ["recall", "--limit", "x", "q"],  # a type refuses it
        ["recall", "--scope", "nowhere", "q"],  # not a choice
        ["recall", "-q"],
        ["--root", "recall"],
        ["--version"],
        ["--ro", ".", "recall", "q"],
    ],
)
def test_a_line_the_reader_leaves_is_argparses(words: list[str]) -> None:
    assert read(words) is None


def test_the_values_and_their_defaults_are_argparses() -> None:
    found = read(["--root", "/r", "recall", "--limit=4", "q w", "--json", "--scope", "project"])
    assert found is not None
    assert (found.root, found.json, found.limit, found.query, found.scope) == (
        "/r",
        True,
        4,
        "q w",
        "project",
    )
    assert found.include_sensitive is False and found.as_of is None
    remembered = read(["remember", "x", "--tag", "a", "--tag=b", "--salience", "0.25"])
    assert remembered is not None
    assert (remembered.tag, remembered.salience, remembered.file) == (["a", "b"], 0.25, None)


# Words as a command line can hold them: options' shapes, dashes, equals
# signs, spaces, odd Unicode.
WORD = st.one_of(
    st.sampled_from(["-", "--", "-1", "--x", "-h", "=", " -a", "", "0", "7", "project"]),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
)


@st.composite
def lines(draw: st.DrawFn) -> list[str]:
    verb = draw(st.sampled_from(READ))
    declared = declaration(verb)
    names = sorted(declared.options)
    words: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        choice = draw(st.integers(0, 3))
        if choice == 0:
            words.append(draw(WORD))
        else:
            name = draw(st.sampled_from(names))
            option = declared.options[name]
            value = draw(st.one_of(st.just(plain_value(option)), WORD))
            if option.kind not in ("store", "append"):
                words.append(name)
            elif draw(st.booleans()):
                words.append(f"{name}={value}")
            else:
                words += [name, value]
    words += [plain_value(p) for p in declared.positionals]
    order = draw(st.permutations(range(len(words))))
    before = draw(st.sampled_from([[], ["--json"], ["--root", "/r"], ["--root=/r", "--json"]]))
    return [*before, verb, *(words[i] for i in order)]


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(words=lines())
def test_any_line_the_reader_reads_argparse_reads_alike(words: list[str]) -> None:
    found = read(words)
    if found is not None:
        assert vars(found) == by_argparse(words)


def test_a_recall_loads_no_argparse() -> None:
    """The point of the reader: a command line it reads never imports argparse."""
    script = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.cli import app\n"
        "app.parse(['--json', 'recall', 'cache backend', '--limit', '3'])\n"
        "app.parse(['remember', 'x', '--tag', 'a', '--ring', 'scar'])\n"
        "print('argparse' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


def test_a_default_set_for_the_parser_leaves_the_verb_to_argparse() -> None:
    """argparse gives an argument the parser's default for its name, set
    before or after it: the reader does not follow that, so it reads none of
    the verb's lines."""

    def before(p: Any) -> None:
        p.set_defaults(limit=5)
        p.add_argument("--limit", type=int)

    def after(p: Any) -> None:
        p.add_argument("--limit", type=int)
        p.set_defaults(limit=5)

    def neither(p: Any) -> None:
        p.add_argument("--limit", type=int)
        p.set_defaults(other=5)

    assert reader.declared(before).unread and reader.declared(after).unread
    assert not reader.declared(neither).unread
