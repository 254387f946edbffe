"""The guard's prefilter: skipping a rule never hides what the rule would find.

The prefilter lets a rule run only if one of its heads (the literal strings a
match must start with) occurs in its view, and, for rules whose matches hold a
long run of token characters, only if the text holds such a run. These tests
check the readers of heads and runs against `re` itself, hold every rule's
declared heads and run to what the readers find in its pattern, check that a
rule that matches is always a candidate, compare the guard with the prefilter
against the same guard with every rule run on every text, and embed each
secret and sensitive corpus line in ordinary text, in every field and at every
position.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from helpers import FIXTURES, REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.guard import RULES, check_fields, classify, engine, find_secret, prefilter, reader
from tree_ring.guard.table import SECRET_RULES, Rule
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

PLANS = (engine._secret_plan, engine._direct_plan)
PLANNED: list[Rule] = [rule for plan in PLANS for rule in plan().rules]


def _short(text: str) -> str:
    return text if len(text) <= 50 else text[:47] + "..."


def _everything(plan: prefilter.Plan) -> prefilter.Plan:
    """The same rules with every rule a candidate for every text."""
    views = tuple(
        prefilter.ViewPlan(view.view, "", {}, {}, (), frozenset(range(len(plan.rules))))
        for view in plan.views[:1]
    )
    return prefilter.Plan(plan.rules, views)


@contextmanager
def _every_test_open() -> Iterator[None]:
    """The guard without its prefilter: every rule runs on every text."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("_secret_plan", "_direct_plan"):
            opened = _everything(getattr(engine, name)())
            patch.setattr(engine, name, lambda opened=opened: opened)
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


def _is_candidate(rule: Rule, scanned: Any) -> bool:
    return any(
        candidate is rule for plan in PLANS for candidate in engine._candidates(plan(), scanned)
    )


# ------------------------------------------------------------ the reader


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
    heads = reader.heads(source)
    data = text.encode()
    pattern = re.compile(source)
    for start in range(len(data) + 1):
        if pattern.match(data, start):
            assert any(data.startswith(head, start) for head in heads), (source, text, start)


# ------------------------------------------------------------ the run reader


RUN_PATTERNS = [
    rb"ab?c",
    rb"a[b.]{2,3}c",
    rb"(?:ab|a\.)c-d",
    rb"x(?:y|z\.)?[a-z]{2}",
    rb"(?:a|bb)+\.?c",
    rb"a(?<=xa)b",
    rb"[a-c_-]{3}\.[a-c]{2}",
    rb"(?:a(?:b|\.c)?d)+e",
]


@settings(max_examples=300, deadline=None, database=None)
@given(source=st.sampled_from(RUN_PATTERNS), text=st.text(alphabet="abcdexyz._- ", max_size=24))
def test_every_match_of_a_small_pattern_holds_its_run(source: bytes, text: str) -> None:
    run = reader.min_run(source)
    data = text.encode()
    pattern = re.compile(source)
    for start in range(len(data) + 1):
        match = pattern.match(data, start)
        if match:
            assert _longest_run(data[: match.end()]) >= run, (source, text, start)


# ------------------------------------------ what the rules declare to the plan


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_declared_heads_and_runs_agree_with_the_readers(rule: Rule) -> None:
    # A rule may declare its heads and run so processes need not read its
    # pattern; the declaration must be no stronger than what the pattern says.
    read = reader.heads(rule.source)
    if rule.heads:
        assert read != (b"",)
        assert all(any(head.startswith(declared) for declared in rule.heads) for head in read)
    assert 0 <= rule.run <= reader.min_run(rule.source)


def test_every_secret_rule_declares_its_heads() -> None:
    # Reading patterns when a process starts would cost the hook; the secret
    # rules declare theirs (the sensitivity rules are few and read lazily).
    assert [rule.name for rule in SECRET_RULES if not rule.heads] == []


def test_long_runs_cover_most_token_rules() -> None:
    # The run test is what keeps ordinary text cheap: most token formats must
    # use it, or their heads are tested on every text.
    raw = [rule for rule in SECRET_RULES if rule.view == "raw"]
    assert sum(rule.run >= prefilter.LONG_RUN for rule in raw) >= 0.75 * len(raw)


HEAD_CASES = [
    head.decode("latin-1")
    for plan in PLANS
    for rule in plan().rules
    for head in prefilter.heads_of(rule)
    if rule.view in ("raw", "lower")
]


@settings(max_examples=300, deadline=None, database=None)
@given(
    head=st.sampled_from(HEAD_CASES),
    before=st.text(alphabet="aZ0_-. :\n", max_size=8),
    after=st.text(alphabet="aZ0_-. :\n", max_size=8),
    long=st.booleans(),
)
def test_a_rule_is_a_candidate_wherever_its_head_is(
    head: str, before: str, after: str, long: bool
) -> None:
    # Stronger than "a match is never skipped": any text holding a head (and,
    # for a rule that needs one, a long run) makes the rule a candidate.
    text = before + head + after + (" " + "x" * prefilter.LONG_RUN if long else "")
    scanned = engine._Text(text)
    for plan in PLANS:
        candidates = engine._candidates(plan(), scanned)
        for rule in plan().rules:
            if head.encode("latin-1") not in prefilter.heads_of(rule):
                continue
            if rule.run >= prefilter.LONG_RUN and not long:
                continue
            if head.encode("latin-1") in scanned.view(rule.view):
                assert any(candidate is rule for candidate in candidates), (rule.name, text)


# ------------------------------------------- rules against generated text

FRAGMENTS = sorted(
    {text for _, text in SECRETS} | {text for _, text in SENSITIVE} | set(CLEAN) | set(ORDINARY)
)
HEAD_TEXTS = sorted(
    {head.decode("latin-1") for rule in RULES for head in reader.heads(rule.source)} - {""}
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


_TOKEN_RUN = re.compile(rb"[A-Za-z0-9_-]+")


def _longest_run(data: bytes) -> int:
    return max((len(run) for run in _TOKEN_RUN.findall(data)), default=0)


def _check_heads_runs_and_candidates(text: str) -> None:
    scanned = engine._Text(text)
    for rule in RULES:
        view = scanned.view(rule.view)
        heads = prefilter.heads_of(rule)
        for start in _match_starts(rule, view):
            assert any(view.startswith(head, start) for head in heads), (rule.name, text)
            if rule.run:
                match = rule.pattern.match(view, start)
                assert match is not None
                # The run may lean on a look-behind, so the text up to the
                # match's end must hold it.
                assert _longest_run(view[: match.end()]) >= rule.run, (rule.name, text)
    for rule in PLANNED:
        if engine._first_valid(rule, scanned):
            assert _is_candidate(rule, scanned), (rule.name, text)


@pytest.mark.parametrize("text", FRAGMENTS, ids=_short)
def test_corpus_lines_start_every_match_with_a_head_and_are_candidates(text: str) -> None:
    _check_heads_runs_and_candidates(text)


@settings(max_examples=300, deadline=None, database=None)
@given(text=TEXTS)
def test_generated_text_starts_every_match_with_a_head_and_is_a_candidate(text: str) -> None:
    _check_heads_runs_and_candidates(text)


def _anchor_answers(text: str) -> list[tuple[bool, bool]]:
    """For each anchor of each plan whose byte `text` holds: (found head by
    head, found by its pattern)."""
    scanned = engine._Text(text)
    answers: list[tuple[bool, bool]] = []
    for plan in PLANS:
        for view in plan().views:
            name = view.view
            for backward, anchors in ((False, view.forward), (True, view.backward)):
                for byte in scanned.rare(name):
                    if byte not in anchors:
                        continue
                    anchor = anchors[byte][0]
                    literal = any(head in scanned.text(name) for head in anchor.heads)
                    data = scanned.reversed(name) if backward else scanned.view(name)
                    answers.append((literal, anchor.search(data) is not None))
    return answers


def test_an_anchor_finds_the_same_head_by_head_as_by_its_pattern() -> None:
    """A process's first texts test each anchor head by head, later ones with
    its pattern: both must find a head in the same texts."""
    answers = [answer for text in FRAGMENTS + HEAD_TEXTS for answer in _anchor_answers(text)]
    assert all(literal == pattern for literal, pattern in answers)
    # Both outcomes occur, so agreeing is not agreeing on nothing.
    assert {literal for literal, _ in answers} == {True, False}


@settings(max_examples=300, deadline=None, database=None)
@given(text=TEXTS)
def test_generated_text_finds_each_anchor_both_ways(text: str) -> None:
    assert all(literal == pattern for literal, pattern in _anchor_answers(text))


def test_a_process_compiles_an_anchor_only_after_its_first_texts() -> None:
    """The brief scans a few texts: none of its anchor tests compiles a pattern
    (the text holds anchor bytes, ":" and ".", but no head), and only a
    process that goes on scanning compiles them."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.guard import find_secret, prefilter, rule\n"
        "text = 'Deploys Freeze On Fridays: ABIA, PuTTY, hooks.Slack and xoxb notes'\n"
        "find_secret(text)\n"
        "print(rule.compiled.cache_info().currsize, 're' in sys.modules)\n"
        "for n in range(prefilter.LITERAL_SEARCHES):\n"
        "    find_secret(text)\n"
        "print(rule.compiled.cache_info().currsize, 're' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, check=True
    )
    first, after = done.stdout.splitlines()
    assert first == "0 False"
    assert after.split()[1] == "True" and int(after.split()[0]) > 0


@settings(max_examples=300, deadline=None, database=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=4))
def test_the_guard_agrees_with_the_guard_without_prefilter(texts: list[str]) -> None:
    fields = {f"field{number}": text for number, text in enumerate(texts)}
    fast = [(find_secret(text), classify(text)) for text in texts], _outcome(fields)
    with _every_test_open():
        full = [(find_secret(text), classify(text)) for text in texts], _outcome(fields)
    assert fast == full


def test_the_prefilter_can_tell_the_difference() -> None:
    # The reference above must be a real full scan: with the prefilter open,
    # every rule's pattern runs on ordinary text; with it closed, none does.
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
    assert set(calls) == {rule.name for rule in PLANNED}


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
