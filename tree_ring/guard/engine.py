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

Every view gets a leading separator so that text at position 0 is at a word
start, and views line up byte for byte, so a validator always sees the original
text of a match. Every pattern starts with a literal (any look-behind comes
after it), and every repetition is bounded, possessive, or over a class that
cannot match what follows it, so no input makes a pattern backtrack more than a
bounded amount per start position: scanning is linear in the input.

How ordinary text stays cheap. Bulk imports guard every memory, and most
memories match no rule, so the cost is twenty-odd patterns that all fail. Each
rule's pattern is read once (not compiled) for its heads: the literal strings
one of which starts any match in the rule's view (``AKIA`` or ``ASIA`` for an
AWS key id, ``passwd`` or ``password`` for a password assignment). From them
come up to three tests, the rarest bytes all heads contain and the prefix they
share, and a rule runs only if its view holds all three. A one-byte test is a
memchr and a substring test one fast search, each a fraction of a regex search.
A rule that passes runs exactly as before, so the prefilter decides nothing on
its own: it only skips patterns that could not have matched. The keyword
scanner runs on every text: it visits each word once, and splitting a text
into a set of words to look the terms up costs more than that.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

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

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

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


_WORDS_TABLE = _table(_words_byte)
_SHAPE_TABLE = _table(_shape_byte)


class _Text:
    """One text and its views, each built at most once per scan."""

    __slots__ = ("_texts", "_views", "raw")

    def __init__(self, text: str) -> None:
        # The leading newline is the separator that puts position 0 at a word
        # start in every view; surrogatepass keeps lone surrogates scannable.
        self.raw = b"\n" + text.encode("utf-8", "surrogatepass")
        self._views: dict[str, bytes] = {"raw": self.raw}
        self._texts: dict[str, str] = {}

    def view(self, name: str) -> bytes:
        data = self._views.get(name)
        if data is None:
            if name == "lower":
                data = self.raw.lower()
            elif name == "words":
                data = self.raw.translate(_WORDS_TABLE)
            elif name == "shape":
                data = self.raw.translate(_SHAPE_TABLE)
            else:
                raise ValueError(f"unknown view {name!r}")
            self._views[name] = data
        return data

    def text(self, name: str) -> str:
        """A view as a str of the same bytes (Latin-1), for the prefilter's
        tests: `in` on bytes first tries the needle as an integer, which
        costs more than the search."""
        data = self._texts.get(name)
        if data is None:
            data = self._texts[name] = self.view(name).decode("latin-1")
        return data

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
if len({rule.name for rule in RULES}) != len(RULES):
    raise ValueError("rule names must be unique")

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


# (term, its rule) for every ``words`` rule, in rule order: the scanner's alternatives.
_TERMS: tuple[tuple[bytes, Rule], ...] = tuple(
    (term, rule) for rule in _WORD_RULES for term in rule.terms
)


def _build_keyword_scanner(
    terms: Sequence[tuple[bytes, Rule]],
) -> tuple[re.Pattern[bytes], dict[str, Rule]]:
    """One pattern for the ``words`` rules' terms, factored on each term's first letter.

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
    import re  # on first use: reads that only look for secrets (the brief) never compile it

    by_letter: dict[bytes, list[bytes]] = {}
    owner: dict[str, Rule] = {}
    for term, rule in terms:
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
    """Every term's scanner, built on first use: reads that only look for
    secrets (the startup brief) never pay for it."""
    return _build_keyword_scanner(_TERMS)


# The scanner over all terms costs a dozen milliseconds to compile, more than
# the rest of a `remember`. A process that classifies only a few texts (one
# CLI write) compiles instead a scanner of the terms that can match each text:
# a term can match only where the text has its head (the literal letters it
# starts with) at a word start. The scanner of those terms finds what the
# whole scanner finds in that text, as the others match nowhere in it and the
# order of the rest is kept. From the `_SUBSET_TEXTS`-th text on (a bulk
# write), the whole scanner is built once and used for every text.
_SUBSET_TEXTS = 32
_subset_state = {"texts": 0}
_subset_scanners: dict[tuple[int, ...], tuple[re.Pattern[bytes], dict[str, Rule]]] = {}


def _term_head(term: bytes) -> str:
    """The literal letters (and spaces) every match of `term` starts with."""
    for index, byte in enumerate(term):
        if not (0x61 <= byte <= 0x7A or 0x30 <= byte <= 0x39 or byte == 0x20):
            # A quantifier makes the character before it optional or repeated.
            head = term[: index - 1] if byte in b"?*+{" else term[:index]
            break
    else:
        head = term
    return " " + head.decode("ascii")


@functools.cache
def _heads_of_terms() -> tuple[str, ...]:
    return tuple(_term_head(term) for term, _ in _TERMS)


def _scanner_for(text: _Text) -> tuple[re.Pattern[bytes], dict[str, Rule]]:
    """The keyword scanner to run over `text`: the whole one, or, for a
    process's first few texts, one of only the terms that can match it."""
    if _keyword_scanner.cache_info().currsize or _subset_state["texts"] >= _SUBSET_TEXTS:
        return _keyword_scanner()
    _subset_state["texts"] += 1
    words = text.text("words")
    wanted = tuple(index for index, head in enumerate(_heads_of_terms()) if head in words)
    found = _subset_scanners.get(wanted)
    if found is None:
        found = _subset_scanners[wanted] = _build_keyword_scanner([_TERMS[i] for i in wanted])
    return found


def compiled_keyword_terms() -> int:
    """How many keyword terms this process has compiled into a scanner."""
    if _keyword_scanner.cache_info().currsize:
        return len(_TERMS)
    return len({index for wanted in _subset_scanners for index in wanted})


_KEYWORD_CATEGORIES = frozenset(rule.category for rule in _WORD_RULES)


# --------------------------------------------------------------------------
# Heads: what every match of a pattern starts with
#
# A small reader for the regex syntax the rule table uses. It walks a pattern
# from its start and collects the literal strings a match must begin with,
# following both ways past an optional part and every branch of a group or a
# small class. At anything it cannot read as literal text (a big class, a
# repetition, a back-reference) a head stops where it is; stopping early makes
# the prefilter weaker, never wrong.

# Past this many heads a pattern costs more substring tests than it saves.
_MAX_HEADS = 64
# Reading steps allowed per pattern, so branching inside branching cannot
# make the reader slow; a pattern that needs more is read as unknown.
_READ_BUDGET = 5_000
_LOOKAROUNDS = (b"?=", b"?!", b"?<=", b"?<!")
_ZERO_WIDTH_ESCAPES = b"bBAZ"

# (text, whole): `text` starts the match; `whole` when it is all of it.
_Heads = set[tuple[bytes, bool]]
# What an assertion (a look-around, \b, ^, $) matches: nothing, wholly.
_EMPTY: _Heads = {(b"", True)}


class _Unreadable(Exception):
    """Syntax the reader does not know (inline flags), or too much branching."""


def _class_end(source: bytes, index: int) -> int:
    """The index just after the character class opened at `index`."""
    index += 1
    if source[index : index + 1] == b"^":
        index += 1
    if source[index : index + 1] == b"]":
        index += 1  # a "]" first in a class is a member, not its end
    while source[index : index + 1] != b"]":
        if index >= len(source):
            raise _Unreadable(source)
        index += 2 if source[index : index + 1] == b"\\" else 1
    return index + 1


def _alternatives(source: bytes, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of the top-level ``|`` alternatives from `start` up to `stop`
    or to the ``)`` that closes an enclosing group, whichever comes first."""
    spans: list[tuple[int, int]] = []
    depth = 0
    begin = index = start
    # Bytes as integers: slicing each one out costs the hook's first secret
    # check more than the rest of its reading.
    while index < stop:
        byte = source[index]
        if byte == 0x5C:  # backslash
            index += 2
            continue
        if byte == 0x5B:  # [
            index = _class_end(source, index)
            continue
        if byte == 0x28:  # (
            depth += 1
        elif byte == 0x29:  # )
            depth -= 1
            if depth < 0:
                break
        elif byte == 0x7C and depth == 0:  # |
            spans.append((begin, index))
            begin = index + 1
        index += 1
    spans.append((begin, index))
    return spans


def _bounds(source: bytes, index: int) -> tuple[int, int | None, int] | None:
    """(fewest, most or None for no limit, the index after) of the ``{m,n}``
    at `index`, or None where `re` reads the brace as a literal ("{}", "{x}")."""
    close = source.find(b"}", index)
    if close < 0:
        return None
    low, comma, high = source[index + 1 : close].partition(b",")
    if not (low or comma) or any(part and not part.isdigit() for part in (low, high)):
        return None
    most = high if comma else low
    return int(low or 0), int(most) if most else None, close + 1


class _Reader:
    """Reads the heads of one pattern; see `_heads`."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.budget = _READ_BUDGET
        self.atoms: dict[int, tuple[_Heads | None, int]] = {}

    def heads(self, start: int, stop: int) -> _Heads:
        return self.heads_over(_alternatives(self.source, start, stop))

    def heads_over(self, spans: list[tuple[int, int]]) -> _Heads:
        found: _Heads = set()
        for begin, end in spans:
            found |= self.sequence(begin, end, b"")
        return found

    def sequence(self, index: int, stop: int, head: bytes) -> _Heads:
        """The heads of source[index:stop], each following `head`."""
        self.budget -= 1
        if self.budget < 0:
            raise _Unreadable(self.source)
        if index >= stop:
            return {(head, True)}
        atom, end = self.atom(index)
        if atom is None:
            return {(head, False)}
        fewest, at_most_one, after = self.quantifier(end)
        found: _Heads = set()
        if fewest == 0:
            found |= self.sequence(after, stop, head)
        for text, whole in atom:
            if whole and at_most_one:
                found |= self.sequence(after, stop, head + text)
            else:
                found.add((head + text, False))  # more of the atom may follow
        return found if len(found) <= _MAX_HEADS else {(head, False)}

    def atom(self, index: int) -> tuple[_Heads | None, int]:
        """`read_atom`, once per position: after an optional part or a branch,
        the rest of the pattern is read again for each head so far."""
        found = self.atoms.get(index)
        if found is None:
            found = self.atoms[index] = self.read_atom(index)
        return found

    def read_atom(self, index: int) -> tuple[_Heads | None, int]:
        """What the atom at `index` can start with (None for anything not read
        as text; an assertion matches the empty string), and where it ends."""
        source = self.source
        char = source[index : index + 1]
        if char == b"(":
            inner = source[index + 1 : index + 4]
            body = index + 1
            if inner.startswith(b"?P<"):
                body = source.index(b">", index) + 1
            elif inner.startswith(b"?:"):
                body = index + 3
            elif inner.startswith(_LOOKAROUNDS) or inner.startswith(b"?P="):
                body = -1
            elif inner.startswith(b"?"):
                raise _Unreadable(source)  # inline flags change what a literal means
            # The group's alternatives, read once: the same spans find its
            # end and split its body.
            spans = _alternatives(source, index + 1, len(source))
            close = spans[-1][1]
            if body < 0:
                return (_EMPTY if inner.startswith(_LOOKAROUNDS) else None), close + 1
            spans[0] = (body, spans[0][1])
            return self.heads_over(spans), close + 1
        if char == b"\\":
            escaped = source[index + 1 : index + 2]
            if escaped and escaped in _ZERO_WIDTH_ESCAPES:
                return _EMPTY, index + 2
            if not escaped or escaped.isalnum():
                return None, index + 2  # \d, \s, \x41 and the like
            return {(escaped, True)}, index + 2
        if char in (b"^", b"$"):
            return _EMPTY, index + 1
        if char == b"[":
            end = _class_end(source, index)
            body = source[index + 1 : end - 1]
            # Small classes of plain members only: no negation, range or escape.
            if body.startswith(b"^") or b"\\" in body or b"-" in body[1:-1] or len(body) > 8:
                return None, end
            return {(bytes((member,)), True) for member in body}, end
        if char in b".?*+{|)":
            return None, index + 1
        return {(char, True)}, index + 1

    def quantifier(self, index: int) -> tuple[int, bool, int]:
        """(fewest repetitions, whether at most one, the index after) for the
        quantifier at `index`; (1, True, index) when there is none."""
        source = self.source
        char = source[index : index + 1]
        if char == b"?":
            fewest, at_most_one, index = 0, True, index + 1
        elif char == b"*":
            fewest, at_most_one, index = 0, False, index + 1
        elif char == b"+":
            fewest, at_most_one, index = 1, False, index + 1
        elif char == b"{" and (bounds := _bounds(source, index)):
            fewest, most, index = bounds
            at_most_one = most is not None and most <= 1
        else:
            return 1, True, index
        if source[index : index + 1] in (b"?", b"+"):
            index += 1  # lazy or possessive: the same repetitions
        return fewest, at_most_one, index


def _heads(source: bytes) -> tuple[bytes, ...]:
    """Strings one of which every match of `source` starts with; ``(b"",)``
    when the pattern starts with something the reader does not know."""
    try:
        found = _Reader(source).heads(0, len(source))
    except _Unreadable:
        return (b"",)
    return tuple(sorted({text for text, _ in found}))


# Bytes of ordinary text by frequency, commonest first. Text holds the first
# dozen, so testing for them rules nothing out; the rest are tested rarest
# first, and bytes not listed (capitals, most punctuation) count as the
# rarest. Only the order and number of tests depend on this, never their
# outcome.
_BY_FREQUENCY = " etaoinsrhldcumwfgypb.,-0123456789vkjxqz"
_ALWAYS_THERE = 12


def _rarity(char: str) -> int:
    index = _BY_FREQUENCY.find(char)
    return len(_BY_FREQUENCY) if index < 0 else index


def _tests(source: bytes) -> tuple[str, str, str]:
    """Three substrings every match of `source` contains, cheapest to rule
    out first ("" where there is nothing to test: it is in every text).

    First the rarest bytes all heads share (a one-byte test is a memchr), then
    the longest prefix they share, which one substring search rules out.
    """
    heads = [head.decode("latin-1") for head in _heads(source)]
    shared = set(heads[0]).intersection(*heads[1:])
    rare = [char for char in shared if _rarity(char) >= _ALWAYS_THERE]
    first, second = (*sorted(rare, key=lambda char: (-_rarity(char), char)), "", "")[:2]
    prefix = heads[0]
    for head in heads[1:]:
        while not head.startswith(prefix):
            prefix = prefix[:-1]
    return first, second, prefix if len(prefix) > 1 else ""


# (index of the rule's view, its three tests, the rule); a rule can match only
# if every test is in its view.
_Gate = tuple[int, str, str, str, Rule]


def _gates(rules: Sequence[Rule]) -> tuple[tuple[str, ...], tuple[_Gate, ...]]:
    views = tuple(sorted({rule.view for rule in rules}))
    return views, tuple((views.index(rule.view), *_tests(rule.source), rule) for rule in rules)


@functools.cache
def _secret_gates() -> tuple[tuple[str, ...], tuple[_Gate, ...]]:
    return _gates(SECRET_RULES)


@functools.cache
def _direct_gates() -> tuple[tuple[str, ...], tuple[_Gate, ...]]:
    return _gates(_DIRECT_RULES)


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
        if window in rejected:
            continue
        if validator(window.decode("utf-8", "replace")):
            return True
        rejected.add(window)
    return False


def _find_secret(text: _Text) -> str | None:
    views, gates = _secret_gates()
    texts = [text.text(name) for name in views]
    # The three tests are spelled out: a loop over them, per rule, would cost
    # as much as the tests themselves.
    for index, first, second, third, rule in gates:
        data = texts[index]
        if first in data and second in data and third in data and _first_valid(rule, text):
            return rule.name
    return None


def _most_severe(categories: set[str]) -> str:
    for category in SEVERITY_ORDER:
        if category in categories:
            return category
    return NORMAL


def _sensitivities(text: _Text) -> set[str]:
    found: set[str] = set()
    views, gates = _direct_gates()
    texts = [text.text(name) for name in views]
    for index, first, second, third, rule in gates:
        data = texts[index]
        if (
            rule.category not in found
            and first in data
            and second in data
            and third in data
            and _first_valid(rule, text)
        ):
            found.add(rule.category)
            if rule.category == SEVERITY_ORDER[0]:
                return found
    rejected: set[tuple[str, bytes]] = set()
    scanner, owner = _scanner_for(text)
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


# A value an error message quotes: 'like this' or "like this".
_QUOTED = r"'[^'\n]{1,400}'|\"[^\"\n]{1,400}\""
WITHHELD = "'[withheld: it looks like a secret]'"


def withhold(message: str) -> str:
    """`message` with every quoted value that looks like a secret replaced.

    Error messages name the value they refuse (an unknown ring, a malformed
    id) so a person can fix it; when that value is a credential, printing it
    would leak it into a terminal, a log or a model's context. The one place
    errors reach people (the CLI, the hook's stderr line, an MCP result)
    passes them through here.
    """
    if find_secret(message) is None:
        return message
    import re  # only once a message holds something to withhold

    return re.sub(_QUOTED, lambda m: WITHHELD if find_secret(m.group()) else m.group(), message)
