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
from collections.abc import Iterator, Mapping, Sequence

import tree_ring.guard.prefilter as prefilter
from tree_ring.guard.rule import NORMAL, SEVERITY_ORDER, VIEWS, Rule
from tree_ring.model.errors import SecretRefused

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from types import ModuleType
    from typing import overload

    RULES: tuple[Rule, ...]


def _rules() -> ModuleType:
    """The rule table (`table`), imported on first use: the secret rules'
    plan is a literal (`secret_plan`), so a text that opens none of its tests
    (most memories the SessionStart brief shows) never builds a rule."""
    import tree_ring.guard.table as table

    return table


def __getattr__(name: str) -> tuple[Rule, ...]:
    """`RULES`, on first use: its sensitivity rules are built only then."""
    if name != "RULES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _rules().RULES


# The rule table lives in guard_rules; these names are part of the guard's API.
__all__ = ["RULES", "SEVERITY_ORDER", "VIEWS", "Rule", "check_fields", "classify", "find_secret"]
# --------------------------------------------------------------------------
# Views


# Joins the fields of one `check_fields` call so they are scanned in one pass.
# NUL survives every view and no pattern crosses it, so no match spans two
# fields; the newlines around it put each field's first word at a word start.
_FIELD_BREAK = "\n\x00\n"

# The `bytes.translate` tables of the views, built by slices rather than a
# call per byte: every hook call that reads memories back imports them.
_ALL = bytes(range(256))
_DIGITS = slice(0x30, 0x3A)
_UPPER = slice(0x41, 0x5B)
_LOWER = slice(0x61, 0x7B)


def _table(other: bytes | None) -> bytearray:
    """A table that maps every byte to `other` (to itself when None)."""
    return bytearray(_ALL if other is None else other * 256)


_words = _table(b" ")
_words[_UPPER] = _ALL[_LOWER]
_words[_LOWER] = _ALL[_LOWER]
_words[_DIGITS] = _ALL[_DIGITS]
_words[0] = 0
_WORDS_TABLE = bytes(_words)

_shape = _table(b" ")
_shape[_DIGITS] = b"0" * 10
_shape[_UPPER] = b"A" * 26
_shape[_LOWER] = b"a" * 26
# A hyphen survives so "123-45-6789" keeps its shape while "123 45 6789"
# (three unrelated numbers, as often as not) does not look like an SSN.
# Dots and commas survive so neither the digits of 0.4945160448551178 nor
# the list 2320,2321,2322,2323 reads as a card number.
for _kept in b"-.,\x00":
    _shape[_kept] = _kept
_SHAPE_TABLE = bytes(_shape)

# Every character of a base64url token reads "x", so a token's structure
# (lengths of its parts, the punctuation between them) is literal text.
_token = _table(None)
_token[_DIGITS] = b"x" * 10
_token[_UPPER] = b"x" * 26
_token[_LOWER] = b"x" * 26
_token[ord("-")] = _token[ord("_")] = ord("x")
_TOKEN_TABLE = bytes(_token)


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


_SEVERITY_RANK = {category: rank for rank, category in enumerate(SEVERITY_ORDER)}

# The sensitivity side is built on first use, like the rules it reads: a
# process that only looks for secrets (the brief) never needs it.


@functools.cache
def _direct_rules() -> tuple[Rule, ...]:
    """Non-keyword sensitivity rules, most severe category first, so `classify`
    can stop at the first personal identifier."""
    return tuple(
        sorted(
            (rule for rule in _rules().SENSITIVITY_RULES if rule.view != "words"),
            key=lambda rule: _SEVERITY_RANK[rule.category],
        )
    )


@functools.cache
def _terms() -> tuple[tuple[bytes, Rule], ...]:
    """(term, its rule) for every ``words`` rule, in rule order: the scanner's
    alternatives."""
    return tuple(
        (term, rule)
        for rule in _rules().SENSITIVITY_RULES
        if rule.view == "words"
        for term in rule.terms
    )


@functools.cache
def _keyword_categories() -> frozenset[str]:
    return frozenset(rule.category for _, rule in _terms())


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
    return _build_keyword_scanner(_terms())


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
    return tuple(_term_head(term) for term, _ in _terms())


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
        found = _subset_scanners[wanted] = _build_keyword_scanner([_terms()[i] for i in wanted])
    return found


def compiled_keyword_terms() -> int:
    """How many keyword terms this process has compiled into a scanner."""
    if _keyword_scanner.cache_info().currsize:
        return len(_terms())
    return len({index for wanted in _subset_scanners for index in wanted})


# --------------------------------------------------------------------------
# Scanning


def _inside(data: bytes, start: int, end: int, key: int) -> int:
    """Where the search goes on after a refused value `data[start:end]`
    whose key began at `key`. A value the validator refused as words may
    hold another key and its value among them: from its second word
    ("password: set in config.json as {"password": "..."}", where the first
    value runs to the line's end), or from inside its opening quote when a
    word follows it (`password: see config <property name="password"
    value="...">`, where a type annotation's shape took the words up to "=",
    and the value starts with the quoted key). A value of one word (a
    reference, `"${DB_PASSWORD:?missing}"`) is read no further."""
    if data[start : start + 1] in (b'"', b"'") and data[start + 1 : start + 2].isalpha():
        return start + 1
    blanks = [at for at in (data.find(b" ", start, end), data.find(b"\t", start, end)) if at >= 0]
    return min(blanks) + 1 if blanks else max(end, key + 1)


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
    match: re.Match[bytes] | None = first
    while match is not None:
        start, end = match.span(span_group)
        # Repeated candidates (a log of identical lines) are judged once. The
        # key is exactly what the validator sees, context included.
        window = text.window(start, end, rule.context)
        if rule.before:
            window = text.lead(match.start(), rule.before) + b"\x00" + window
        if window not in rejected:
            if validator(window.decode("utf-8", "replace")):
                return True
            rejected.add(window)
        match = pattern.search(data, _inside(data, start, end, match.start()))
    return False


class _SecretRules(Sequence[Rule]):
    """`table.SECRET_RULES`, built when a text first needs one of them."""

    def _table(self) -> tuple[Rule, ...]:
        return _rules().SECRET_RULES

    def __len__(self) -> int:
        return len(self._table())

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._table())

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, index: int) -> Rule: ...

        @overload
        def __getitem__(self, index: slice) -> tuple[Rule, ...]: ...

    def __getitem__(self, index: int | slice) -> Rule | tuple[Rule, ...]:
        return self._table()[index]


@functools.cache
def _secret_plan() -> prefilter.Plan:
    """The plan of the secret rules, read from its literal (held equal to
    `prefilter.plan(SECRET_RULES)` by a test)."""
    import tree_ring.guard.secret_plan as written

    return prefilter.from_literal(written.VIEWS, _SecretRules())


@functools.cache
def _direct_plan() -> prefilter.Plan:
    return prefilter.plan(_direct_rules())


def _anchored(anchor: prefilter.Lazy, text: _Text, name: str, *, backward: bool) -> bool:
    """Whether one of the anchor's heads is in the view: head by head for its
    first texts, by its pattern after (see `prefilter.Lazy`)."""
    if anchor.literal():
        data = text.text(name)
        return any(head in data for head in anchor.heads)
    return anchor.search(text.reversed(name) if backward else text.view(name)) is not None


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
                if entry is not None and _anchored(entry[0], text, name, backward=False):
                    found |= entry[1]
                entry = view.backward.get(byte)
                if entry is not None and _anchored(entry[0], text, name, backward=True):
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


# The bytes a line continuation starts with (see `command_lines.joined_lines`):
# a text that holds none has nothing to join.
_CONTINUATION_MARKS = (b"\\\n", b"\\\r", b"\\ ", b"\\\t", b"^\n", b"^\r", b"^ ", b"^\t")


def _continued(text: _Text) -> _Text | None:
    """`text` with its line continuations joined, for the command-line rules,
    or None if it has none."""
    raw = text.raw
    if not (b"\\" in raw or b"^" in raw) or not any(mark in raw for mark in _CONTINUATION_MARKS):
        return None
    from tree_ring.guard.command_lines import joined_lines  # most texts never need it

    joined = joined_lines(raw[1:].decode("utf-8", "surrogatepass"))
    return None if joined is None else _Text(joined)


def _joined(text: _Text) -> _Text | None:
    """`text` with its joined string literals written as one (see
    `joined_literals`), or None if it has none."""
    raw = text.raw
    if b'"' not in raw and b"'" not in raw and b"`" not in raw:
        return None  # most texts: the module is never imported
    from tree_ring.guard.joined_literals import joined_literals, may_join

    if not may_join(raw):
        return None
    joined = joined_literals(raw[1:].decode("utf-8", "surrogatepass"))
    return None if joined is None else _Text(joined)


def _find_secret(text: _Text, *, tokens_only: bool = False) -> str | None:
    for rule in _candidates(_secret_plan(), text):
        if tokens_only and rule.name not in _token_rules():
            continue
        if _first_valid(rule, text):
            return rule.name
    # A key split across joined literals is read whole, by the rules for a
    # token's format and for what a key name is given.
    joined = _joined(text)
    if joined is not None:
        wanted = _token_rules() if tokens_only else _joined_rules()
        for rule in _candidates(_secret_plan(), joined):
            if rule.name in wanted and _first_valid(rule, joined):
                return rule.name
    # A command continued over lines (`sshpass \\`, then `-p X` on the next
    # line) is read by the command-line rules as the shell reads it: joined.
    joined = None if tokens_only else _continued(text)
    if joined is not None:
        for rule in _candidates(_secret_plan(), joined):
            if rule.name == "cli-password" and _first_valid(rule, joined):
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
        if rule.category == SEVERITY_ORDER[0] or found >= _keyword_categories():
            break
    return found


# 24 token characters in a row: what a base64 or hex blob worth decoding holds.
_LONG_RUN = b"x" * 24


def _may_respell(text: str, scanned: _Text) -> bool:
    """Whether `text` could have another spelling (see `spellings`), told from
    views the scan has mostly built already: plain ASCII with no escape and no
    long run of token characters has none."""
    raw = scanned.raw
    return (
        not text.isascii()
        or b"%" in raw
        or b"\\" in raw
        or (b"&" in raw and b";" in raw)  # a character reference, `&#34;` or `&quot;`
        or _LONG_RUN in scanned.view("token")
    )


def _find_spelled(text: str, scanned: _Text, *, tokens_only: bool = False) -> str | None:
    """The first secret rule that matches `text` as written or in another
    spelling of it (folded, unescaped, decoded: see `spellings`)."""
    found = _find_secret(scanned, tokens_only=tokens_only)
    if found is None and _may_respell(text, scanned):
        from tree_ring.guard.spellings import spellings  # most texts never need it

        for other in spellings(text, scanned.raw):
            found = _find_secret(_Text(other), tokens_only=tokens_only)
            if found is not None:
                break
    return found


def find_secret(text: str) -> str | None:
    """The name of the first secret rule (in `RULES` order) that matches
    `text` or another spelling of it, else None."""
    return _find_spelled(text, _Text(text))


@functools.cache
def _token_rules() -> frozenset[str]:
    """The names of the provider formats: a match of one is random by its
    validator, so gluing ordinary words onto each other never makes one."""
    return frozenset({*(rule.name for rule in _rules().TOKEN_RULES), "url-password"})


@functools.cache
def _joined_rules() -> frozenset[str]:
    """The rules that read joined literals: the provider formats and the
    assignments (`key = "..." + "..."`)."""
    return _token_rules() | {rule.name for rule in _rules().ASSIGNMENT_RULES}


def _across(seams: list[tuple[str, str]], *, tokens_only: bool) -> None:
    """Refuse a secret read across a seam, naming both fields."""
    if not seams:
        return
    texts = [text for _, text in seams]
    across = _FIELD_BREAK.join(texts)
    if _find_spelled(across, _Text(across), tokens_only=tokens_only) is None:
        return
    for names, text in seams:
        rule = _find_spelled(text, _Text(text), tokens_only=tokens_only)
        if rule is not None:
            raise SecretRefused(rule, names)


def check_fields(fields: Mapping[str, str]) -> str:
    """Refuse secrets in any field, else return the most severe sensitivity.

    Fields are checked in the mapping's order and the first secret raises
    `SecretRefused(rule, field)`, whose message never contains the value.
    Each field is read as written and in its other spellings (`spellings`),
    and every two fields are read across their seam, so a secret split
    between them is refused under both names ("summary+details").
    """
    # One scan over all fields; bulk imports call this for every memory, and
    # per-call overhead, not text length, dominates for short fields. Only a
    # hit pays for the per-field scans that name the field. Empty fields hold
    # nothing to find, and leaving them out spares the keyword scanner two
    # separators each.
    written = _FIELD_BREAK.join(filter(None, fields.values()))
    joined = _Text(written)
    joined_rule = _find_spelled(written, joined)
    if joined_rule is not None:
        for name, value in fields.items():
            rule = _find_spelled(value, _Text(value))
            if rule is not None:
                raise SecretRefused(rule, name)
        # Unreachable while no pattern crosses a field break; if one ever did,
        # refusing beats storing a secret under the wrong field name.
        raise SecretRefused(joined_rule, next(iter(fields)))
    from tree_ring.guard.seams import seams  # a write's, never the hook's

    spaced, glued = seams(fields)
    _across(spaced, tokens_only=False)
    _across(glued, tokens_only=True)
    return _most_severe(_sensitivities(joined))


def classify(text: str) -> str:
    """``"normal"`` or the most severe sensitivity category found in `text`."""
    return _most_severe(_sensitivities(_Text(text)))
