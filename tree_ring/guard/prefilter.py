"""The prefilter: which rules could match a text, decided without running them.

Bulk imports guard every memory, and most memories match no rule, so the
cost that matters is that of rules that all fail. Each rule's heads (the
literal strings one of which starts every match in the rule's view: ``AKIA``
or ``ASIA`` for an AWS key id, ``pass`` or ``pw`` for a password assignment)
are declared by the rule or read from its pattern. A rule runs only if one of
its heads occurs, as one of two tests finds:

- an anchor, for heads in the raw view that hold a byte ordinary text seldom
  does (a capital, most punctuation): one `bytes.translate` deletes the
  common bytes of the text, and only the anchors left are looked for, each
  with one pattern that starts at the anchor byte (so `re` skips to it at
  memchr speed) and checks the rest of its heads with literal branches. A
  head is anchored at its first byte, or at its last in the view reversed,
  so the branches look forward; a look-behind costs a recursion in `re`;
- a stem, for heads of common bytes only ("password", "token"): one
  substring search, shared by the heads that contain it.

CPython's `re` skips fast only to a single literal: a pattern that starts
with a set of bytes tests every position, which costs as much as all the
substring tests together. Hence one pattern per anchor, not one per view,
and rules whose patterns each start with one literal.

Most token formats also guarantee a run of 20 or more token characters
(letters, digits, "_" and "-"), which prose lacks: those rules are tested
only when the text holds such a run, one substring search in the token view.

A rule that passes runs exactly as it would without the prefilter, so the
prefilter decides nothing on its own: it only skips patterns that could not
have matched. Readers of heads and runs hold declared values to the patterns
in the tests; at run time nothing is read and anchor patterns are compiled
when first needed, so a process that scans a few texts (the SessionStart
hook) pays for almost none of this.

The head reader walks a pattern from its start and collects the literal
strings a match must begin with, following both ways past an optional part
and every branch of a group or a small class. At anything it cannot read as
literal text (a big class, a repetition, a back-reference) a head stops where
it is; stopping early makes the prefilter weaker, never wrong.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tree_ring.guard.rule import Rule, shared_prefix

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


@functools.cache
def _closes(source: bytes) -> dict[int, int]:
    """The index of the ``)`` that closes each ``(`` of `source`, read once."""
    closes: dict[int, int] = {}
    opened: list[int] = []
    index = 0
    while index < len(source):
        char = source[index : index + 1]
        if char == b"\\":
            index += 2
            continue
        if char == b"[":
            index = _class_end(source, index)
            continue
        if char == b"(":
            opened.append(index)
        elif char == b")" and opened:
            closes[opened.pop()] = index
        index += 1
    if opened:
        raise _Unreadable(source)
    return closes


def _alternatives(source: bytes, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of the top-level ``|`` alternatives from `start` up to `stop`
    or to the ``)`` that closes an enclosing group, whichever comes first."""
    closes = _closes(source)
    spans: list[tuple[int, int]] = []
    begin = index = start
    while index < stop:
        char = source[index : index + 1]
        if char == b"\\":
            index += 2
        elif char == b"[":
            index = _class_end(source, index)
        elif char == b"(":
            index = closes[index] + 1  # a nested group, skipped whole
        elif char == b")":
            break
        elif char == b"|":
            spans.append((begin, index))
            begin = index = index + 1
        else:
            index += 1
    spans.append((begin, min(index, stop)))
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

    def heads(self, start: int, stop: int) -> _Heads:
        found: _Heads = set()
        for begin, end in _alternatives(self.source, start, stop):
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
            close = _closes(source)[index]
            if body < 0:
                return (_EMPTY if inner.startswith(_LOOKAROUNDS) else None), close + 1
            return self.heads(body, close), close + 1
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


# --------------------------------------------------------------------------
# Runs: how many token characters in a row every match holds
#
# Token characters are letters, digits, "_" and "-", what the token view turns
# into "x". Provider tokens are long runs of them and prose has none longer
# than a word, so a text without a long run skips every rule that needs one.
# The reader walks each alternative of a pattern in order, adding up what a
# match must hold of token characters and restarting at anything else; a
# group or a class it cannot read counts as a break, which only makes the
# run shorter, never wrong.

_TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# Escapes that match token characters only (\d, \w) or nothing (\b, \A, ...).
_TOKEN_ESCAPES = b"dw"


def _class_bytes(body: bytes) -> frozenset[int] | None:
    """The bytes a character class matches, if it is a plain class of single
    characters and ranges; None for anything else (negation, escapes)."""
    if body.startswith(b"^") or b"\\" in body:
        return None
    members: set[int] = set()
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1 : index + 2] == b"-":
            members.update(range(body[index], body[index + 2] + 1))
            index += 3
        else:
            members.add(body[index])
            index += 1
    return frozenset(members)


# (longest run inside, run at the start, run at the end, whether wholly
# token characters): what a piece of pattern guarantees, so pieces combine.
_Run = tuple[int, int, int, bool]
_EMPTY_RUN: _Run = (0, 0, 0, True)
_BREAK: _Run = (0, 0, 0, False)


def _then(left: _Run, right: _Run) -> _Run:
    """The run of `left` followed by `right`."""
    inner = max(left[0], right[0], left[2] + right[1])
    start = left[1] + right[1] if left[3] else left[1]
    end = left[2] + right[2] if right[3] else right[2]
    return inner, start, end, left[3] and right[3]


def _either(runs: Sequence[_Run]) -> _Run:
    """The run any one of `runs` guarantees."""
    return (
        min(run[0] for run in runs),
        min(run[1] for run in runs),
        min(run[2] for run in runs),
        all(run[3] for run in runs),
    )


def _repeat(run: _Run, fewest: int) -> _Run:
    """`run` repeated at least `fewest` times (once for a plain atom)."""
    if fewest == 0:
        # Possibly absent: neither joins nor breaks what is around it for sure.
        return _EMPTY_RUN if run[3] else _BREAK
    if run[3]:
        length = run[0] * fewest
        return length, length, length, True
    return run


class _RunReader(_Reader):
    """Reads the token run of one pattern; see `min_run`."""

    def alternatives_run(self, start: int, stop: int) -> _Run:
        return _either(
            [self.sequence_run(b, e) for b, e in _alternatives(self.source, start, stop)]
        )

    def sequence_run(self, index: int, stop: int) -> _Run:
        source = self.source
        total = _EMPTY_RUN
        while index < stop:
            self.budget -= 1
            if self.budget < 0:
                raise _Unreadable(source)
            char = source[index : index + 1]
            atom: _Run | None  # None: matches no character
            branches: list[_Run] = []  # a group's alternatives, each read alone
            if char == b"(":
                inner = source[index + 1 : index + 4]
                close = _closes(source)[index]
                end = close + 1
                if inner.startswith(b"?<="):
                    # The text before here matches the look-behind, so the run
                    # that ends here is at least the one that ends it.
                    behind = self.alternatives_run(index + 4, close)
                    total = (max(total[0], behind[0]), total[1], max(total[2], behind[2]), total[3])
                    atom = None
                elif inner.startswith(_LOOKAROUNDS):
                    atom = None
                elif inner.startswith((b"?P<", b"?:")):
                    body = source.index(b">", index) + 1 if inner.startswith(b"?P<") else index + 3
                    branches = [
                        self.sequence_run(b, e) for b, e in _alternatives(source, body, close)
                    ]
                    atom = _either(branches)
                else:
                    atom = _BREAK  # a back-reference or inline flags: not read
            elif char == b"[":
                end = _class_end(source, index)
                members = _class_bytes(source[index + 1 : end - 1])
                atom = (
                    (1, 1, 1, True) if members is not None and members <= _TOKEN_BYTES else _BREAK
                )
            elif char == b"\\":
                escaped = source[index + 1 : index + 2]
                end = index + 2
                if escaped and escaped in _ZERO_WIDTH_ESCAPES:
                    atom = None
                elif escaped.isalnum():
                    atom = (1, 1, 1, True) if escaped in _TOKEN_ESCAPES else _BREAK
                else:
                    atom = (1, 1, 1, True) if escaped[0] in _TOKEN_BYTES else _BREAK
            elif char in (b"^", b"$"):
                end, atom = index + 1, None
            else:
                token = char != b"." and char[0] in _TOKEN_BYTES
                end, atom = index + 1, ((1, 1, 1, True) if token else _BREAK)
            fewest, at_most_one, index = self.quantifier(end)
            if branches and fewest == 1 and at_most_one:
                # Once exactly: what precedes joins each alternative on its own.
                total = _either([_then(total, branch) for branch in branches])
            elif atom is not None:
                total = _then(total, _repeat(atom, fewest))
        return total


def min_run(source: bytes) -> int:
    """Token characters in a row that every match of `source` holds."""
    try:
        return _RunReader(source).alternatives_run(0, len(source))[0]
    except _Unreadable:
        return 0


def heads_of(rule: Rule) -> tuple[bytes, ...]:
    """The rule's declared heads, else those read from its pattern."""
    return rule.heads or _heads(rule.source)


# --------------------------------------------------------------------------
# Plans: the tests for a list of rules

# Bytes of ordinary text (prose, code, config) by frequency, commonest first;
# bytes not listed count as the rarest. A head anchors on its rarest byte.
# Only where tests anchor depends on this, never their outcome.
_BY_FREQUENCY = (
    " etaoinsrhldcumwfgypbvkjxqz0123456789\n\x00,.-TSAICMPBDRHEFNLGOW_/:=()'\"UV>#<[]K*Y{}JQXZ"
)
# What ordinary text is made of: a text holding only these bytes has no
# anchor, and a head made only of these gets a stem instead.
_COMMON = " etaoinsrhldcumwfgypbvkjxqz0123456789\n\x00,"
COMMON_BYTES = _COMMON.encode("latin-1")


# Heads that agree on this many leading bytes share one stem, if the part
# they share is at least _STEM_MIN bytes long.
_STEM_KEY = 2
_STEM_MIN = 4


def _rarity(char: str) -> int:
    index = _BY_FREQUENCY.find(char)
    return len(_BY_FREQUENCY) if index < 0 else index


def _rare(char: str) -> bool:
    return char not in _COMMON


def _anchor_source(anchor: int, rests: Sequence[tuple[bytes, bytes]]) -> bytes:
    """A pattern that starts at the anchor byte and matches where one of its
    heads holds it: each head as (the bytes before the anchor, the bytes
    after). The bytes after are literal branches, which `re` rejects at their
    first byte without recursing; the bytes before need a look-behind, which
    costs a recursion each, so heads are anchored to keep them empty."""
    literal = re.escape(bytes((anchor,)))
    branches: set[bytes] = set()
    for before, after in rests:
        behind = rb"(?<=" + re.escape(before) + literal + rb")" if before else b""
        if not behind and not after:
            return literal  # the anchor byte alone is a head
        branches.add(behind + re.escape(after))
    return literal + rb"(?:" + b"|".join(sorted(branches)) + rb")"


def _contained(heads: Sequence[bytes]) -> list[bytes]:
    """The heads that hold no other head: a head inside a longer one covers it."""
    kept: list[bytes] = []
    for head in sorted(set(heads), key=lambda head: (len(head), head)):
        if not any(stem in head for stem in kept):
            kept.append(head)
    return kept


def _stems(heads: Sequence[bytes]) -> list[bytes]:
    """Few substrings that cover every head: a head inside a longer one covers
    it ("pass" covers "sshpass" and "htpasswd"), and heads that start alike
    share their common prefix ("secret" for "secret" and "secret_access")."""
    groups: dict[bytes, list[bytes]] = {}
    for head in _contained(heads):
        groups.setdefault(head[:_STEM_KEY], []).append(head)
    stems: list[bytes] = []
    for group in groups.values():
        shared = shared_prefix(group)
        # A short shared start ("log" of "login" and "logon") is in too many
        # words to rule anything out; the heads themselves are tested then.
        stems.extend([shared] if len(shared) >= _STEM_MIN or len(group) == 1 else group)
    return _contained(stems)


class Lazy:
    """A pattern compiled when first searched: compiling every anchor's costs
    more than a process that scans a few texts (the hook's brief) saves."""

    __slots__ = ("_pattern", "source")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._pattern: re.Pattern[bytes] | None = None

    def search(self, data: bytes) -> re.Match[bytes] | None:
        pattern = self._pattern
        if pattern is None:
            pattern = self._pattern = re.compile(self.source)
        return pattern.search(data)


@dataclass(frozen=True, slots=True)
class ViewPlan:
    """The tests for one view's rules (indexes into `Plan.rules`)."""

    view: str
    # "x" * n when every rule here needs a run of n token characters: the token
    # view must hold it, or none of them can match. "" for no such test.
    run: str
    # anchor byte -> (pattern finding one of its heads, rules it lets through):
    # heads anchored at their first byte (or, failing that, their rarest) in
    # the view, and heads anchored at their last byte in the view reversed.
    forward: dict[int, tuple[Lazy, frozenset[int]]]
    backward: dict[int, tuple[Lazy, frozenset[int]]]
    # (stem as Latin-1 text, rules it lets through)
    stems: tuple[tuple[str, frozenset[int]], ...]
    # Rules with a head the reader could not read: they always run.
    always: frozenset[int]


@dataclass(frozen=True, slots=True)
class Plan:
    """How to scan with a list of rules: their tests per view, in rule order."""

    rules: tuple[Rule, ...]
    views: tuple[ViewPlan, ...]


# The raw view holds most heads, and almost all of them have a byte ordinary
# text lacks; the derived views hold few heads, where a handful of substring
# searches cost less than deleting common bytes and checking what is left.
ANCHORED_VIEWS = frozenset({"raw"})


# Rules whose matches hold this many token characters in a row are tested only
# when the text holds such a run. Prose words are shorter; ids, hashes and
# encoded blobs are not, so those texts pay for the full test.
LONG_RUN = 20
# Views that keep token characters token characters (and others not), so a
# run in them is a run in the token view.
_RUN_VIEWS = frozenset({"raw", "token"})


def _view_plan(
    view: str, rules: Sequence[Rule], indexes: Sequence[int], *, run: int = 0
) -> ViewPlan:
    # (reversed?, anchor byte) -> (heads as (before, after) the anchor, rules)
    by_anchor: dict[tuple[bool, int], tuple[list[tuple[bytes, bytes]], set[int]]] = {}
    stem_heads: dict[bytes, set[int]] = {}
    always: set[int] = set()
    for index in indexes:
        for head in heads_of(rules[index]):
            if not head:
                always.add(index)
                continue
            text = head.decode("latin-1")
            if view not in ANCHORED_VIEWS or not any(_rare(char) for char in text):
                stem_heads.setdefault(head, set()).add(index)
                continue
            # The rarest byte; on a tie the last one, then the first: those two
            # need no look-behind (the last is looked for back to front, where
            # prefixes ending alike, "ghp_" and "npm_", share one pattern).
            ends = (len(text) - 1, 0)
            at = max(range(len(text)), key=lambda i: (_rarity(text[i]), i in ends, i == ends[0]))
            if at == 0:
                key, rest = (False, head[0]), (b"", head[1:])
            elif at == len(text) - 1:
                key, rest = (True, head[-1]), (b"", head[:-1][::-1])
            else:
                key, rest = (False, head[at]), (head[:at], head[at + 1 :])
            heads, owners = by_anchor.setdefault(key, ([], set()))
            heads.append(rest)
            owners.add(index)
    forward: dict[int, tuple[Lazy, frozenset[int]]] = {}
    backward: dict[int, tuple[Lazy, frozenset[int]]] = {}
    for (reverse, byte), (heads, owners) in by_anchor.items():
        entry = (Lazy(_anchor_source(byte, heads)), frozenset(owners))
        (backward if reverse else forward)[byte] = entry
    stems: list[tuple[str, frozenset[int]]] = []
    for stem in _stems(list(stem_heads)):
        owners = {i for head, found in stem_heads.items() if stem in head for i in found}
        stems.append((stem.decode("latin-1"), frozenset(owners)))
    return ViewPlan(view, "x" * run, forward, backward, tuple(stems), frozenset(always))


def plan(rules: Sequence[Rule]) -> Plan:
    """Each view's rules, those that need a long run apart from the others."""
    views: list[ViewPlan] = []
    for view in sorted({rule.view for rule in rules}):
        indexes = [i for i, rule in enumerate(rules) if rule.view == view]
        long = {i for i in indexes if view in _RUN_VIEWS and rules[i].run >= LONG_RUN}
        short = [i for i in indexes if i not in long]
        if short:
            views.append(_view_plan(view, rules, short))
        if long:
            views.append(_view_plan(view, rules, sorted(long), run=LONG_RUN))
    return Plan(tuple(rules), tuple(views))
