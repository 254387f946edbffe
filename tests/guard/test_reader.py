"""The pattern readers at their edges: the heads every match starts with and
the token run every match holds, for small patterns whose answer is known.

The reader only makes the prefilter weaker or stronger, never wrong; these
tables pin what it reads, so a change to a reading rule shows. The property
tests (every match starts with a head, holds its run) are in test_prefilter.py.
"""

from __future__ import annotations

import pytest

from tree_ring.guard import reader


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
    assert list(reader.heads(source)) == heads


@pytest.mark.parametrize(
    ("source", "heads", "run"),
    [
        (rb"ab??c", [b"abc", b"ac"], 2),  # lazy and possessive: the same repetitions
        (rb"ab*?c", [b"ab", b"ac"], 2),
        (rb"ab+?c", [b"ab"], 3),
        (rb"ab?+c", [b"abc", b"ac"], 2),
        (rb"a{0,1}?b", [b"ab", b"b"], 1),
        (rb"a{2,}b", [b"a"], 3),
        (rb"a{1,1}b", [b"ab"], 2),
        (rb"a{0}b", [b"ab", b"b"], 1),
        (rb"a[]x]b", [b"a]b", b"axb"], 1),  # "]" first in a class is a member
        (rb"a[^]x]b", [b"a"], 1),
        (rb"a[xy]?b", [b"ab", b"axb", b"ayb"], 2),
        (rb"a[abcdefgh]b", [b"a" + bytes([c]) + b"b" for c in b"abcdefgh"], 3),  # eight
        (rb"a[abcdefghi]b", [b"a"], 3),  # nine members: not followed
        (rb"a[x-]b", [b"a-b", b"axb"], 3),
        (rb"a(?:b|c)(?:d|e)f", [b"abdf", b"abef", b"acdf", b"acef"], 4),
        (rb"(?:a|b)|c", [b"a", b"b", b"c"], 1),
        (rb"a|", [b"", b"a"], 0),
        (rb"\\.a", [b"\\"], 1),
        (rb"a\\", [b"a\\"], 1),
        (rb"^ab$", [b"ab"], 2),
        (rb"\Aab\Z", [b"ab"], 2),
        (rb"a\Bb", [b"ab"], 2),
        (rb"a(?!x)b", [b"ab"], 2),
        (rb"a(?<=a)b", [b"ab"], 2),
        (rb"a(?P<n>b|c)d", [b"abd", b"acd"], 3),
        (rb"a(b)c", [b"abc"], 1),
        (rb"a\sb", [b"a"], 1),
        (rb"a\[b", [b"a[b"], 1),
        (rb"a{b", [b"a"], 1),
        (rb"(?:ab){2}", [b"ab"], 4),
        (rb"(?:a|b){1}c", [b"ac", b"bc"], 2),
        (rb"a*", [b"", b"a"], 0),
        (rb"[ab]{0,1}c", [b"ac", b"bc", b"c"], 1),
    ],
)
def test_heads_and_runs_of_quantifiers_classes_and_groups(
    source: bytes, heads: list[bytes], run: int
) -> None:
    assert list(reader.heads(source)) == heads
    assert reader.min_run(source) == run


@pytest.mark.parametrize(
    ("source", "run"),
    [
        (rb"abc", 3),
        (rb"ab.cd", 2),
        (rb"ab\.cd", 2),
        (rb"ab\-cd", 5),
        (rb"[a-z]{3,5}x", 4),
        (rb"[a-z/]{30}x", 1),
        (rb"[^a-z]{30}", 0),
        (rb"\d{4}-\d{2}", 7),
        (rb"x?y", 1),
        (rb"(?:ab|abc)d", 3),
        (rb"(?:a\.|b)c", 1),
        (rb"x(?:oxb-|app-)[a-z]{20}", 25),
        (rb"(?:aa|b)+c", 2),
        (rb"(?:ab)?c", 1),
        (rb"a(?=bcd)e", 2),
        (rb"-us(?<=[0-9a-f]{32}-us)[0-9]", 36),
        (rb"ab|abcdef", 2),
        (rb"(a)\1", 0),  # a capturing group and a back-reference are not read
        (rb"(?i)abc", 3),
    ],
)
def test_runs_of_small_patterns(source: bytes, run: int) -> None:
    assert reader.min_run(source) == run
