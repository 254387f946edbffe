"""A code identifier's words: `maxUnavailable`, `HTTPServerTimeout`, `straßeName`.

Notes about code name its identifiers, and people ask about them in words:
"the max unavailable pods", "the HTTP server timeout". The index's tokenizer
reads `snake_case` as its words already (`_` separates words) but
`camelCase` as one word, so recall's index and scorer read each such
identifier as itself followed by its words (`with_words`): the identifier
still finds itself, and its words find it too. What was forgotten is read
the same way (`spaced`, store/tombstones.py): "UseTabsInTheMakefile" says
what "use tabs in the Makefile" says.

An identifier is a run of letters and digits (`_` ends it). It is split
where a capital follows a small letter or a digit (`maxUnavailable`,
`G1Heap`), and before the last capital of a run followed by a word of
small letters (`HTTPServer` is `HTTP` and `Server`); digits stay with the
letters before them (`MigrationV15`). A plural of capitals (`IDs`, `APIs`)
is no identifier, and an identifier is split only into two words or more
of at least two characters each: `iPhone` and `OAuth` stay whole. Letters
of every script are read by their case (`ÜberClient`, `ΑλφαΒήτα`); a
letter of a script without case reads as a small one, so `東京Server` is
`東京` and `Server`.

Both readings take a compatibility form as the letter or digit it stands
for (`plain`, NFKC), as the claims' fold does: a capital in mathematical
bold starts a word as a plain one does, and a superscript digit is a digit.

What was forgotten is also read with each digit joined to a letter beside
it (`glued`): "maxUnavailable is 1" says what `MaxUnavailableIs1` says,
and "Run 2fa on v 2 Api" what `Run2faOnV2Api` says. Joining never makes a
text more words, so no short text becomes a claim of more words by it.
"""

from __future__ import annotations

import re
from functools import cache

# Types only: the SessionStart hook loads this module when it reads what a
# store forgot (store/tombstones.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# A hump in ASCII text: what every identifier holds and most prose does not.
# Recall reads every candidate's text through `with_words`, so this cheap
# pattern goes first, and the ones below are compiled only for a text that has one.
_HUMP = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A word with a hump inside it, not glued to another word character but
    "_", in ASCII text; a run of letters and digits in any text; and a
    word's parts, read from its shape (`_shape`): a run of capitals before
    a capitalised word, a word of small letters (capitalised or not), a run
    of capitals, digits."""
    humped = re.compile(
        r"(?<![^\W_])[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]{2})[A-Za-z0-9]*(?![^\W_])"
    )
    run = re.compile(r"[^\W_]+")
    part = re.compile(r"[A-Z]+\d*(?=[A-Z][a-z]{2})|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")
    return humped, run, part


def _shape(word: str) -> str:
    """`word` with each letter as `A` (a capital) or `a`, each digit as `0`:
    the same length, so a part of the shape is the same part of the word."""
    if word.isascii():
        return word
    return "".join("0" if c.isdecimal() else "A" if c.isupper() else "a" for c in word)


def parts(identifier: str) -> list[str]:
    """Every part of `identifier`, one-letter ones too, when it is an
    identifier split into two words of two characters or more (`words`);
    otherwise none."""
    humped, _, part = _patterns()
    shape = _shape(identifier)
    if not humped.fullmatch(shape):
        return []
    found = [identifier[m.start() : m.end()] for m in part.finditer(shape)]
    return found if sum(len(p) > 1 for p in found) > 1 else []


def words(identifier: str) -> list[str]:
    """`identifier`'s words of two characters or more, in order; none when
    it has fewer than two, or is no camelCase identifier."""
    return [p for p in parts(identifier) if len(p) > 1]


def _with_words(match: re.Match[str]) -> str:
    identifier = match.group()
    split = words(identifier) if _humped(identifier) else []
    return f"{identifier} {' '.join(split)}" if split else identifier


def _spaced(match: re.Match[str]) -> str:
    identifier = match.group()
    return (" ".join(parts(identifier)) if _humped(identifier) else "") or identifier


def _humped(word: str) -> bool:
    """Whether `word` may be an identifier: a capital past its first letter
    (cheap, as every word of a text that is not ASCII comes here)."""
    rest = word[1:]
    return rest != rest.lower()


def _rewrite(text: str, each: Callable[[re.Match[str]], str]) -> str:
    """`text` with `each` applied to every identifier in it."""
    if text.isascii():
        return _patterns()[0].sub(each, text) if _HUMP.search(text) else text
    if not any(_humped(word) for word in text.split()):
        return text
    from unicodedata import normalize

    # Composed, so a letter and its marks stay one letter of its word.
    return _patterns()[1].sub(each, normalize("NFC", text))


def with_words(text: str) -> str:
    """`text` with each camelCase identifier followed by its words:
    "set maxUnavailable to 0" -> "set maxUnavailable max Unavailable to 0"."""
    return _rewrite(text, _with_words)


def spaced(text: str) -> str:
    """`text` with each camelCase identifier in its words, every one of
    them: "UseTabsInAMakefile" -> "Use Tabs In A Makefile". The same text
    when it holds no identifier, but for compatibility forms (`plain`)."""
    return _rewrite(plain(text), _spaced)


def plain(text: str) -> str:
    """`text` with each compatibility form as the letter or digit it stands
    for (`fold.compatible`: NFKC, an enclosed one without its brackets): a
    capital in mathematical bold or in a circle is a capital, a superscript
    or parenthesized digit a digit, so a forgotten sentence does not come
    back as an identifier spelled in them ("𝐃eploys𝐅reeze…", "Ⓓⓔⓟⓛⓞⓨⓢ…",
    "D⒠⒫⒧⒪⒴⒮…", "To¹", "To⑴")."""
    from tree_ring.model.fold import compatible

    return compatible(text)


@cache
def _glued() -> re.Pattern[str]:
    """Space between a letter and a digit, either way round: compiled for a
    write's check, never for the hooks' reads."""
    return re.compile(r"(?<=[^\W\d_])\s+(?=\d)|(?<=\d)\s+(?=[^\W\d_])")


def glued(text: str) -> str:
    """`spaced(text)` with each digit joined to a letter beside it:
    "Run2faCheckOnV2Api" ("Run2 fa Check On V2 Api") and "run 2fa check on
    v 2 api" both read "Run2fa Check On V2Api". The same text when it holds
    no identifier and no such digit."""
    split = spaced(text)
    return _glued().sub("", split) if any(c.isdecimal() for c in split) else split


def lettered(text: str) -> str:
    """`fold.lettered`: small capitals as the small letters they stand among,
    and the invisible characters a fold drops (a Hangul filler inside a
    word) gone, so "hard\u1160ware" reads "hardware" where the claim's words
    read it as two; escapes first read as what they spell (`\u1d07` is
    `ᴇ`), and then identifiers as their words (`glued`): "FreezeOnFʀidays"
    reads "Freeze On Fridays". The same text when it spells nothing else."""
    from tree_ring.model.claims import may_escape

    if may_escape(text):
        from tree_ring.model.escapes import decoded

        text = decoded(text)
    if text.isascii():
        return text
    from tree_ring.model import fold

    return glued(fold.lettered(text, small=True))


# The readings of a text a forget keys beside the text as written, and a
# write is checked by: its identifiers' words, its digits joined, and its
# letters as a reader sees them.
READINGS = (spaced, glued, lettered)


def readings(text: str) -> list[str]:
    """`text` as written and as each of READINGS reads it, without repeats."""
    return list(dict.fromkeys((text, *(read(text) for read in READINGS))))
