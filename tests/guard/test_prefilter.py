"""The guard's prefilter: skipping a rule never hides what the rule would find.

The prefilter reads each rule's pattern for its heads (the literal strings a
match must start with) and skips the rule when its view lacks what every head
contains. These tests check the reader against `re` itself, check that a rule
that matches is never skipped, compare the guard with the prefilter against
the same guard with every test opened, and embed each secret and sensitive
corpus line in ordinary text, in every field and at every position.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from helpers import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.guard import RULES, check_fields, classify, engine, find_secret
from tree_ring.guard.rules import SECRET_RULES, Rule
from tree_ring.model.errors import SecretRefused
from tree_ring.model.record import Memory

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

CORPUS = FIXTURES / "guard"


def _tagged(name: str) -> list[tuple[str, str]]:
    lines = (CORPUS / name).read_text("utf-8").splitlines()
    return [(tag, text) for tag, _, text in (line.partition("\t") for line in lines) if text]


SECRETS = _tagged("secrets.txt")
SENSITIVE = _tagged("sensitive.txt")
CLEAN = [line for line in (CORPUS / "clean.txt").read_text("utf-8").splitlines() if line.strip()]

# Text that matches no rule: plain engineering prose and the made-up words of
# the scale benchmark's corpus.
ORDINARY = [
    "The billing worker retries failed jobs three times before it gives up.",
    "We moved the search index rebuild into the migration so a crash leaves nothing half done.",
    "Keep the hook launcher small; all logic lives in the package.",
    "Banbangena banbannelde hunbandarnel galtorcor neldarmilser banban bandargevok",
    "corgalmodar banban banbangena banbangalge banbanlosen finbanvide bancorcorpum",
]

# Every field `Memory.text_fields` hands the guard, with ordinary values.
FIELDS = Memory(
    id="mem_20250101_000000_000000000001",
    created_at="2025-01-01T00:00:00.000000Z",
    updated_at="2025-01-01T00:00:00.000000Z",
    summary=ORDINARY[0],
    details=" ".join(ORDINARY[1:3]),
    source_ref="docs/runbook.md",
    source_quote=ORDINARY[2],
    tags=("billing", "retries"),
    event_type="decision",
    project="proj-x",
    agent_profile="reviewer",
    workflow_id="nightly-import",
    session_id="sess-banban",
    operation_id="bench-7",
).text_fields()

GATES = (engine._secret_gates, engine._direct_gates)
GATED: list[Rule] = [rule for gates in GATES for *_, rule in gates()[1]]


def _short(text: str) -> str:
    return text if len(text) <= 50 else text[:47] + "..."


@contextmanager
def _every_test_open() -> Iterator[None]:
    """The guard without its prefilter: every rule runs on every text."""

    def opened(gates: Callable[[], Any]) -> Callable[[], Any]:
        views, entries = gates()
        everything = views, tuple((index, "", "", "", rule) for index, *_, rule in entries)
        return lambda: everything

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_secret_gates", opened(engine._secret_gates))
        patch.setattr(engine, "_direct_gates", opened(engine._direct_gates))
        yield


def _outcome(fields: dict[str, str]) -> str | tuple[str, str]:
    try:
        return check_fields(fields)
    except SecretRefused as refusal:
        return refusal.rule, refusal.field


def _match_starts(rule: Rule, view: bytes) -> Iterator[int]:
    """Every position where the rule's pattern matches, overlapping or not."""
    pattern = rule.pattern
    for start in range(len(view) + 1):
        if pattern.match(view, start):
            yield start


def _gate_is_open(rule: Rule, scanned: Any) -> bool:
    for gates in GATES:
        views, entries = gates()
        for index, first, second, third, gated in entries:
            if gated is rule:
                data = scanned.text(views[index])
                return first in data and second in data and third in data
    raise AssertionError(f"{rule.name} has no gate")


# ------------------------------------------------------------ the reader


@pytest.mark.parametrize(
    ("source", "heads"),
    [
        (rb"abc", [b"abc"]),
        (rb"ab?c", [b"abc", b"ac"]),
        (rb"ab*c", [b"ab", b"ac"]),
        (rb"ab+c", [b"ab"]),
        (rb"a{2}b", [b"a"]),
        (rb"a{0,1}b", [b"ab", b"b"]),
        (rb"a{,}b", [b"a", b"b"]),
        (rb"a{1}b", [b"ab"]),
        (rb"a{,3}b", [b"a", b"b"]),
        (rb"a{}b", [b"a"]),  # braces that are no repetition are literal text,
        (rb"a{1,x}b", [b"a"]),  # which the reader does not follow
        (rb"a(?:b|cd)e", [b"abe", b"acde"]),
        (rb"(?P<v>ab)c", [b"abc"]),
        (rb"x|y", [b"x", b"y"]),
        (rb"a(?<![:/]a)b(?=c)", [b"ab"]),
        (rb"a\.b\b", [b"a.b"]),
        (rb"a[xy]b", [b"axb", b"ayb"]),
        (rb"a[a-z]b", [b"a"]),
        (rb"a[ \t]b", [b"a"]),  # escapes in a class are not read
        (rb"a[^x]b", [b"a"]),
        (rb"a.b", [b"a"]),
        (rb"(a)\1", [b"a"]),
        (rb"(?P<s>a)(?P=s)", [b"a"]),
        (rb"\d+x", [b""]),
        (rb"(?i)abc", [b""]),
        (rb"a(?i:b)", [b""]),
        (rb"", [b""]),
        (rb"[ab][ab][ab][ab][ab][ab][ab]", [b""]),  # too many heads to be worth it
    ],
)
def test_heads_of_small_patterns(source: bytes, heads: list[bytes]) -> None:
    assert list(engine._heads(source)) == heads


SMALL_PATTERNS = [
    rb"ab?c",
    rb"ab*c",
    rb"a+b",
    rb"a(?:b|cd)?e",
    rb"(?:ab|a)c",
    rb"a{0,2}b",
    rb"a{,}b",
    rb"a{}b",
    rb"a{1,x}b",
    rb"a{1}b",
    rb"x(?<!ax)y|ab",
    rb"[ab]c?[cd]",
    rb"a\.?b",
    rb"(?:a|)b",
    rb"(a|b)\1c",
    rb"a\b.c",
    rb"(?:a(?:b|c)?d)+e",
]


@settings(max_examples=400, deadline=None, database=None)
@given(source=st.sampled_from(SMALL_PATTERNS), text=st.text(alphabet="abcdexy.{} ", max_size=24))
def test_every_match_of_a_small_pattern_starts_with_a_head(source: bytes, text: str) -> None:
    heads = engine._heads(source)
    data = text.encode()
    pattern = re.compile(source)
    for start in range(len(data) + 1):
        if pattern.match(data, start):
            assert any(data.startswith(head, start) for head in heads), (source, text, start)


# ------------------------------------------- rules against generated text

FRAGMENTS = sorted(
    {text for _, text in SECRETS} | {text for _, text in SENSITIVE} | set(CLEAN) | set(ORDINARY)
)
HEAD_TEXTS = sorted(
    {head.decode("latin-1") for rule in RULES for head in engine._heads(rule.source)} - {""}
)
_fragment = st.sampled_from(FRAGMENTS)
_piece = st.one_of(
    _fragment,
    st.tuples(_fragment, st.integers(0, 120), st.integers(1, 60)).map(
        lambda cut: cut[0][cut[1] : cut[1] + cut[2]]
    ),
    _fragment.map(str.upper),
    _fragment.map(str.lower),
    _fragment.map(lambda text: text.replace(" ", "\t")),
    st.sampled_from(HEAD_TEXTS),
    st.text(alphabet=st.sampled_from("aA0_-:/@.= \n\t\"'`$é☕\x00\udcff"), max_size=12),
)
TEXTS = st.tuples(st.lists(_piece, min_size=1, max_size=6), st.sampled_from(["", " ", "\n", "="]))
TEXTS = TEXTS.map(lambda parts: parts[1].join(parts[0]))


def _check_heads_and_gates(text: str) -> None:
    scanned = engine._Text(text)
    for rule in RULES:
        view = scanned.view(rule.view)
        heads = engine._heads(rule.source)
        for start in _match_starts(rule, view):
            assert any(view.startswith(head, start) for head in heads), (rule.name, text)
    for rule in GATED:
        if engine._first_valid(rule, scanned):
            assert _gate_is_open(rule, scanned), (rule.name, text)


@pytest.mark.parametrize("text", FRAGMENTS, ids=_short)
def test_corpus_lines_start_every_match_with_a_head_and_open_the_gate(text: str) -> None:
    _check_heads_and_gates(text)


@settings(max_examples=300, deadline=None, database=None)
@given(text=TEXTS)
def test_generated_text_starts_every_match_with_a_head_and_opens_the_gate(text: str) -> None:
    _check_heads_and_gates(text)


@settings(max_examples=300, deadline=None, database=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=4))
def test_the_guard_agrees_with_the_guard_without_prefilter(texts: list[str]) -> None:
    fields = {f"field{number}": text for number, text in enumerate(texts)}
    fast = [(find_secret(text), classify(text)) for text in texts], _outcome(fields)
    with _every_test_open():
        full = [(find_secret(text), classify(text)) for text in texts], _outcome(fields)
    assert fast == full


def test_the_prefilter_can_tell_the_difference() -> None:
    # The reference above must be a real full scan: with the gates open, every
    # rule's pattern runs on ordinary text; with them closed, none does.
    calls: list[str] = []
    real = engine._first_valid

    def counting(rule: Rule, text: Any) -> bool:
        calls.append(rule.name)
        return real(rule, text)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_first_valid", counting)
        assert check_fields(FIELDS) == "normal"
        assert calls == []
        with _every_test_open():
            assert check_fields(FIELDS) == "normal"
    assert set(calls) == {rule.name for rule in GATED}


# ------------------------------------------------ embedded in ordinary text


def _placed(line: str, position: str, filler: str) -> str:
    if position == "start":
        return f"{line} {filler}"
    if position == "end":
        return f"{filler} {line}"
    half = filler.index(" ", len(filler) // 2)
    return f"{filler[:half]} {line} {filler[half + 1 :]}"


@pytest.mark.parametrize(("rule", "line"), SECRETS, ids=[_short(line) for _, line in SECRETS])
def test_a_secret_in_ordinary_text_is_refused_in_every_field(rule: str, line: str) -> None:
    assert rule in {secret.name for secret in SECRET_RULES}
    for field in FIELDS:
        for position in ("start", "middle", "end"):
            for filler in ORDINARY[1], ORDINARY[3]:
                fields = {**FIELDS, field: _placed(line, position, filler)}
                assert _outcome(fields) == (rule, field), (field, position)


@pytest.mark.parametrize(
    ("category", "line"), SENSITIVE, ids=[_short(line) for _, line in SENSITIVE]
)
def test_sensitive_text_in_ordinary_text_keeps_its_category_in_every_field(
    category: str, line: str
) -> None:
    for field in FIELDS:
        for position in ("start", "middle", "end"):
            for filler in ORDINARY[1], ORDINARY[3]:
                fields = {**FIELDS, field: _placed(line, position, filler)}
                assert _outcome(fields) == category, (field, position)


def test_ordinary_text_is_normal() -> None:
    assert all(find_secret(text) is None and classify(text) == "normal" for text in ORDINARY)
    assert check_fields(FIELDS) == "normal"
