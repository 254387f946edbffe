"""A code identifier's words: `maxUnavailable`, `HTTPServerTimeout`, `G1HeapRegionSize`.

Notes about code name its identifiers, and people ask about them in words:
"the max unavailable pods", "the HTTP server timeout". The index's tokenizer
reads `snake_case` as its words already (`_` separates words) but
`camelCase` as one word, so recall's index and scorer read each such
identifier as itself followed by its words (`with_words`): the identifier
still finds itself, and its words find it too.

A word is split where a capital follows a small letter or a digit
(`maxUnavailable`, `G1Heap`), and before the last capital of a run followed
by a word of small letters (`HTTPServer` is `HTTP` and `Server`); digits stay
with the letters before them (`MigrationV15`). A plural of capitals (`IDs`,
`APIs`) is no identifier, and an identifier is split only into two words or
more of at least two characters each: `iPhone` and `OAuth` stay whole. Only
ASCII letters and digits are read; a word glued to another script's letters
is left as it is.
"""

from __future__ import annotations

import re
from functools import cache

# A hump: what every identifier holds and most prose does not. Recall reads
# every candidate's text through `with_words`, so this cheap pattern goes
# first, and the two below are compiled only for a text that has one.
_HUMP = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A word with a hump inside it, not glued to another word character but
    "_"; and its words: a run of capitals before a capitalised word, a word
    of small letters (capitalised or not), a run of capitals, digits."""
    humped = re.compile(
        r"(?<![^\W_])[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]{2})[A-Za-z0-9]*(?![^\W_])"
    )
    return humped, re.compile(r"[A-Z]+\d*(?=[A-Z][a-z]{2})|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")


def words(identifier: str) -> list[str]:
    """`identifier`'s words of two characters or more, in order; none when
    it has fewer than two, or is no camelCase identifier."""
    humped, word = _patterns()
    if not humped.fullmatch(identifier):
        return []
    found = [w for w in word.findall(identifier) if len(w) > 1]
    return found if len(found) > 1 else []


def _spread(match: re.Match[str]) -> str:
    identifier = match.group()
    split = words(identifier)
    return f"{identifier} {' '.join(split)}" if split else identifier


def with_words(text: str) -> str:
    """`text` with each camelCase identifier followed by its words:
    "set maxUnavailable to 0" -> "set maxUnavailable max Unavailable to 0"."""
    if not _HUMP.search(text):
        return text
    return _patterns()[0].sub(_spread, text)
