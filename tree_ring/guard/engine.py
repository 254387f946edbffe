"""The sensitivity guard: every string field of a memory passes through here.

Secret-like content (keys, tokens, passwords) is refused outright: a memory
store is read back into prompts, logs and other agents, so a credential stored
once leaks many times. Personal content (health, financial, legal, private,
personal identifiers) is stored but labelled, so default reads can hide it.

How scanning stays fast. CPython's `re` only skips quickly through a string
when a pattern starts with a literal; a case-insensitive pattern, a leading
look-behind or a leading character class makes it attempt a match at every
position, which costs seconds on a 10 MB field. So each text is encoded once to
UTF-8 and turned into same-length byte "views" by `bytes.translate`, and every
rule is written against the view in which it can start with a literal:

- ``raw``: the UTF-8 bytes; for case-sensitive token formats (``AKIA``, ``ghp_``).
- ``lower``: ASCII-lowercased; for case-insensitive key names (``password=``).
- ``words``: lowercase letters and digits, everything else a space; for the
  keyword rules. They share one scanner that jumps from space to space and
  dispatches on the next letter, instead of one pass per keyword.
- ``shape``: digits become ``0``, upper case ``A``, lower case ``a``; so card
  numbers, IBANs and SSNs start with a literal such as `` 0000``.
- ``token``: letters, digits, ``-`` and ``_`` become ``x``; so a token known by
  its structure alone (a Discord bot token's ``.xxxxxx.``) starts with one.

Every view gets a leading separator so that text at position 0 is at a word
start, and views line up byte for byte, so a validator always sees the original
text of a match. Every pattern starts with a literal (any look-behind comes
after it), and every repetition is bounded, possessive, or over a class that
cannot match what follows it, so no input makes a pattern backtrack more than a
bounded amount per start position: scanning is linear in the input.

How ordinary text stays cheap. Bulk imports guard every memory, and most
memories match no rule, so the cost is that of patterns that all fail. The
prefilter (`prefilter`) rules most of them out without running them, by the
literals every match starts with and the long runs most tokens hold; a rule
that passes runs exactly as it would without the prefilter. The keyword
scanner runs on every text: it visits each word once, and splitting a text
into a set of words to look the terms up costs more than that.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import tree_ring.guard.prefilter as prefilter
from tree_ring.guard.rules import (
    NORMAL,
    RULES,
    SECRET,
    SECRET_RULES,
    SENSITIVITY_RULES,
    SEVERITY_ORDER,
    VIEWS,
    Rule,
)
from tree_ring.model.errors import SecretRefused

# The rule table lives in guard_rules; these names are part of the guard's API.
__all__ = ["RULES", "SEVERITY_ORDER", "VIEWS", "Rule", "check_fields", "classify", "find_secret"]
# --------------------------------------------------------------------------
# Views


def _table(mapping: Callable[[int], int]) -> bytes:
    return bytes(mapping(byte) for byte in range(256))


def _is_digit(byte: int) -> bool:
    return 0x30 <= byte <= 0x39


def _is_upper(byte: int) -> bool:
    return 0x41 <= byte <= 0x5A


def _is_lower(byte: int) -> bool:
    return 0x61 <= byte <= 0x7A


# Joins the fields of one `check_fields` call so they are scanned in one pass.
# NUL survives every view and no pattern crosses it, so no match spans two
# fields; the newlines around it put each field's first word at a word start.
_FIELD_BREAK = "\n\x00\n"


def _words_byte(byte: int) -> int:
    if _is_upper(byte):
        return byte + 0x20
    if _is_lower(byte) or _is_digit(byte) or byte == 0:
        return byte
    return 0x20


def _shape_byte(byte: int) -> int:
    if _is_digit(byte):
        return 0x30
    if _is_upper(byte):
        return 0x41
    if _is_lower(byte):
        return 0x61
    # A hyphen survives so "123-45-6789" keeps its shape while "123 45 6789"
    # (three unrelated numbers, as often as not) does not look like an SSN.
    # Dots and commas survive so neither the digits of 0.4945160448551178 nor
    # the list 2320,2321,2322,2323 reads as a card number.
    if byte in (0x2D, 0x2E, 0x2C, 0x00):
        return byte
    return 0x20


def _token_byte(byte: int) -> int:
    # Every character of a base64url token reads "x", so a token's structure
    # (lengths of its parts, the punctuation between them) is literal text.
    if _is_digit(byte) or _is_upper(byte) or _is_lower(byte) or byte in (0x2D, 0x5F):
        return 0x78
    return byte


_WORDS_TABLE = _table(_words_byte)
_SHAPE_TABLE = _table(_shape_byte)
_TOKEN_TABLE = _table(_token_byte)


class _Text:
    """One text and its views, each built at most once per scan."""

    __slots__ = ("_rare", "_reversed", "_texts", "_views", "raw")

    def __init__(self, text: str) -> None:
        # The leading newline is the separator that puts position 0 at a word
        # start in every view; surrogatepass keeps lone surrogates scannable.
        self.raw = b"\n" + text.encode("utf-8", "surrogatepass")
        self._views: dict[str, bytes] = {"raw": self.raw}
        self._texts: dict[str, str] = {}
        self._reversed: dict[str, bytes] = {}
        self._rare: dict[str, set[int]] = {}

    def view(self, name: str) -> bytes:
        data = self._views.get(name)
        if data is None:
            if name == "lower":
                data = self.raw.lower()
            elif name == "words":
                data = self.raw.translate(_WORDS_TABLE)
            elif name == "shape":
                data = self.raw.translate(_SHAPE_TABLE)
            elif name == "token":
                data = self.raw.translate(_TOKEN_TABLE)
            else:
                raise ValueError(f"unknown view {name!r}")
            self._views[name] = data
        return data

    def reversed(self, name: str) -> bytes:
        """A view back to front, for patterns that anchor on a head's last byte."""
        data = self._reversed.get(name)
        if data is None:
            data = self._reversed[name] = self.view(name)[::-1]
        return data

    def rare(self, name: str) -> set[int]:
        """The bytes of a view that ordinary text seldom holds (see `prefilter`)."""
        found = self._rare.get(name)
        if found is None:
            found = self._rare[name] = set(self.view(name).translate(None, prefilter.COMMON_BYTES))
        return found

    def text(self, name: str) -> str:
        """A view as a str of the same bytes (Latin-1), for the prefilter's
        tests: `in` on bytes first tries the needle as an integer, which
        costs more than the search."""
        data = self._texts.get(name)
        if data is None:
            data = self._texts[name] = self.view(name).decode("latin-1")
        return data

    def lead(self, position: int, size: int) -> bytes:
        """Up to `size` bytes before `position`, not reaching into another field."""
        start = max(1, position - size)
        field = self.raw.rfind(b"\x00", start, position)
        return self.raw[field + 1 if field >= 0 else start : position]

    def window(self, start: int, end: int, context: int) -> bytes:
        """The original bytes of a span, widened by `context` bytes each side.

        The widening stops at a field break, so a validator never judges one
        field by the words of the next.
        """
        if context:
            before = self.raw.rfind(b"\x00", max(1, start - context), start)
            after = self.raw.find(b"\x00", end, end + context)
            start = before + 1 if before >= 0 else max(1, start - context)
            end = after if after >= 0 else end + context
        return self.raw[start:end]


for _rule_entry in RULES:
    if _rule_entry.view not in VIEWS:
        raise ValueError(f"{_rule_entry.name}: unknown view {_rule_entry.view!r}")
    if _rule_entry.category not in (SECRET, *SEVERITY_ORDER):
        raise ValueError(f"{_rule_entry.name}: unknown category {_rule_entry.category!r}")
# A family's rules sit together, so the first rule that matches names the
# refusal the same way whichever pattern of the family matched.
_FAMILIES = [
    rule.name for index, rule in enumerate(RULES) if not index or RULES[index - 1].name != rule.name
]
if len(set(_FAMILIES)) != len(_FAMILIES):
    raise ValueError("rules that share a name must be adjacent")

_SEVERITY_RANK = {category: rank for rank, category in enumerate(SEVERITY_ORDER)}

# Non-keyword sensitivity rules, most severe category first, so `classify` can
# stop at the first personal identifier.
_DIRECT_RULES: tuple[Rule, ...] = tuple(
    sorted(
        (rule for rule in SENSITIVITY_RULES if rule.view != "words"),
        key=lambda rule: _SEVERITY_RANK[rule.category],
    )
)
_WORD_RULES: tuple[Rule, ...] = tuple(rule for rule in SENSITIVITY_RULES if rule.view == "words")


def _build_keyword_scanner(rules: Sequence[Rule]) -> tuple[re.Pattern[bytes], dict[str, Rule]]:
    """One pattern for every ``words`` rule, factored on each term's first letter.

    The scanner matches zero-width at a space, so hits at different word starts
    never mask each other, and the leading literal space lets `re` jump from
    word to word. Under each first letter the alternatives are tried in turn;
    each ends in an empty named group, whose name maps back to its rule and
    whose position is the end of the hit. The group goes last, not around the
    term, because `re` can only reject an alternative without entering it when
    the alternative starts with a literal. That is also why every term starts
    with a letter: a term starting with a digit or a group would be entered at
    every word and double the cost of the scan. At one word start the first
    term that matches wins, so terms of different rules must not match the
    same words.
    """
    by_letter: dict[bytes, list[bytes]] = {}
    owner: dict[str, Rule] = {}
    for rule in rules:
        for term in rule.terms:
            group = f"g{len(owner)}"
            owner[group] = rule
            marker = rb"\b(?P<" + group.encode() + rb">)"
            by_letter.setdefault(term[:1], []).append(term[1:] + marker)
    branches = [
        letter + rb"(?:" + b"|".join(alternatives) + rb")"
        for letter, alternatives in sorted(by_letter.items())
    ]
    return re.compile(rb" (?=" + b"|".join(branches) + rb")"), owner


@functools.cache
def _keyword_scanner() -> tuple[re.Pattern[bytes], dict[str, Rule]]:
    """Built on first use, like each rule's pattern: reads that only look for
    secrets (the startup brief) never pay for it."""
    return _build_keyword_scanner(_WORD_RULES)


def __getattr__(name: str) -> Any:
    """`_KEYWORD_SCANNER` and `_KEYWORD_OWNER`, for code that reads them."""
    if name == "_KEYWORD_SCANNER":
        return _keyword_scanner()[0]
    if name == "_KEYWORD_OWNER":
        return _keyword_scanner()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_KEYWORD_CATEGORIES = frozenset(rule.category for rule in _WORD_RULES)


# --------------------------------------------------------------------------
# Scanning


def _first_valid(rule: Rule, text: _Text) -> bool:
    """Whether `rule` matches `text` (and its validator accepts the match)."""
    data = text.view(rule.view)
    pattern = rule.pattern
    first = pattern.search(data)
    if first is None:
        return False
    validator = rule.validator
    if validator is None:
        return True
    span_group: str | int = "v" if "v" in pattern.groupindex else 0
    rejected: set[bytes] = set()
    for match in pattern.finditer(data, first.start()):
        start, end = match.span(span_group)
        # Repeated candidates (a log of identical lines) are judged once. The
        # key is exactly what the validator sees, context included.
        window = text.window(start, end, rule.context)
        if rule.before:
            window = text.lead(match.start(), rule.before) + b"\x00" + window
        if window in rejected:
            continue
        if validator(window.decode("utf-8", "replace")):
            return True
        rejected.add(window)
    return False


@functools.cache
def _secret_plan() -> prefilter.Plan:
    return prefilter.plan(SECRET_RULES)


@functools.cache
def _direct_plan() -> prefilter.Plan:
    return prefilter.plan(_DIRECT_RULES)


def _candidates(plan: prefilter.Plan, text: _Text) -> list[Rule]:
    """The plan's rules that could match `text`, in rule order.

    Written for the common case, a text no rule can match: every test that
    passes adds its rules, and the loops touch as few attributes as they can.
    """
    found: set[int] = set()
    long_run: bool | None = None
    for view in plan.views:
        name = view.view
        if view.run:
            if long_run is None:
                long_run = view.run in text.text("token")
            if not long_run:
                continue
        if view.always:
            found |= view.always
        if view.forward or view.backward:
            for byte in text.rare(name):
                entry = view.forward.get(byte)
                if entry is not None and entry[0].search(text.view(name)):
                    found |= entry[1]
                entry = view.backward.get(byte)
                if entry is not None and entry[0].search(text.reversed(name)):
                    found |= entry[1]
        if view.stems:
            data = text.text(name)
            for stem, owners in view.stems:
                if stem in data:
                    found |= owners
    if not found:
        return []
    rules = plan.rules
    return [rules[index] for index in sorted(found)]


def _find_secret(text: _Text) -> str | None:
    for rule in _candidates(_secret_plan(), text):
        if _first_valid(rule, text):
            return rule.name
    return None


def _most_severe(categories: set[str]) -> str:
    for category in SEVERITY_ORDER:
        if category in categories:
            return category
    return NORMAL


def _sensitivities(text: _Text) -> set[str]:
    found: set[str] = set()
    for rule in _candidates(_direct_plan(), text):
        if rule.category not in found and _first_valid(rule, text):
            found.add(rule.category)
            if rule.category == SEVERITY_ORDER[0]:
                return found
    rejected: set[tuple[str, bytes]] = set()
    scanner, owner = _keyword_scanner()
    for match in scanner.finditer(text.view("words")):
        group = match.lastgroup
        if group is None:
            continue
        rule = owner[group]
        if rule.category in found:
            continue
        if rule.validator is not None:
            window = text.window(match.start(), match.end(group), rule.context)
            if (rule.name, window) in rejected:
                continue
            if not rule.validator(window.decode("utf-8", "replace")):
                rejected.add((rule.name, window))
                continue
        found.add(rule.category)
        if rule.category == SEVERITY_ORDER[0] or found >= _KEYWORD_CATEGORIES:
            break
    return found


def find_secret(text: str) -> str | None:
    """The name of the first secret rule (in `RULES` order) that matches, else None."""
    return _find_secret(_Text(text))


def classify(text: str) -> str:
    """``"normal"`` or the most severe sensitivity category found in `text`."""
    return _most_severe(_sensitivities(_Text(text)))


def check_fields(fields: Mapping[str, str]) -> str:
    """Refuse secrets in any field, else return the most severe sensitivity.

    Fields are checked in the mapping's order and the first secret raises
    `SecretRefused(rule, field)`, whose message never contains the value.
    """
    # One scan over all fields; bulk imports call this for every memory, and
    # per-call overhead, not text length, dominates for short fields. Only a
    # hit pays for the per-field scans that name the field. Empty fields hold
    # nothing to find, and leaving them out spares the keyword scanner two
    # separators each.
    joined = _Text(_FIELD_BREAK.join(filter(None, fields.values())))
    joined_rule = _find_secret(joined)
    if joined_rule is not None:
        for name, value in fields.items():
            rule = _find_secret(_Text(value))
            if rule is not None:
                raise SecretRefused(rule, name)
        # Unreachable while no pattern crosses a field break; if one ever did,
        # refusing beats storing a secret under the wrong field name.
        raise SecretRefused(joined_rule, next(iter(fields)))
    return _most_severe(_sensitivities(joined))
