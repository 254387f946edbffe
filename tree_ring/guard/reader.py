"""What every match of a pattern starts with and holds, read from its source.

The prefilter (`prefilter`) needs, for each rule, the literal strings one of
which starts every match (its heads) and the number of token characters in
a row every match holds (its run). Rules declare both where their
constructor knows them; these readers find them in a pattern's source for
the rules that do not, and tests hold the declared values to them. Nothing
here runs for a rule that declares its heads, so a process that only looks
for secrets (the SessionStart hook's brief) never imports this module.

The head reader walks a pattern from its start and collects the literal
strings a match must begin with, following both ways past an optional part
and every branch of a group or a small class. At anything it cannot read as
literal text (a big class, a repetition, a back-reference) a head stops where
it is; stopping early makes the prefilter weaker, never wrong.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

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
    # Bytes as integers: slicing each one out costs the first secret check
    # (the hook's, on the brief) more than the rest of its reading.
    while index < len(source):
        byte = source[index]
        if byte == 0x5C:  # backslash
            index += 2
            continue
        if byte == 0x5B:  # [
            index = _class_end(source, index)
            continue
        if byte == 0x28:  # (
            opened.append(index)
        elif byte == 0x29 and opened:  # )
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
        byte = source[index]  # as an integer, as in `_closes`
        if byte == 0x5C:  # backslash
            index += 2
        elif byte == 0x5B:  # [
            index = _class_end(source, index)
        elif byte == 0x28:  # (
            index = closes[index] + 1  # a nested group, skipped whole
        elif byte == 0x29:  # )
            break
        elif byte == 0x7C:  # |
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
        self.atoms: dict[int, tuple[_Heads | None, int]] = {}

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
            elif inner.startswith((b"?:", b"?>")):
                # An atomic group matches no string its body does not.
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


def heads(source: bytes) -> tuple[bytes, ...]:
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
                elif inner.startswith((b"?P<", b"?:", b"?>")):
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
