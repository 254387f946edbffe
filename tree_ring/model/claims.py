"""The words a claim is made of: the text a tombstone key is over.

`claim_text` folds what never makes a claim new: the text read as a reader
sees it (`escapes.decoded`), every spelling of the same letters
(`fold.canonical`), spacing, punctuation, and the annotations people put
around a claim ("Note:", "(confirmed)"). `written_claim_text` is the same
fold of the text as written, escapes left as they are, and
`legacy_claim_text` the fold before the canonical one (NFKC and case only):
what tombstones written by earlier versions hold keys over
(`store/tombstones.py`, which keys a text by all three).
"""

from __future__ import annotations

import re

from tree_ring.model.fold import canonical, skeleton, unmarked
from tree_ring.model.text import FILLERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

# Words that annotate a claim rather than make it, when they lead it with a
# colon or a dash ("Note: ...", "FYI - ...") or close it in brackets ("(confirmed)").
LEADING = (
    "note|notes|nb|n\\.b\\.|fyi|psa|tip|hint|info|reminder|remember|important|update|updated"
    "|todo|warning|heads up|caveat|correction|edit|lesson|decision"
)
TRAILING = "confirmed|verified|updated|important|again|still|fyi|note|see above|as before|v?\\d+"
_LEADING = re.compile(rf"^\W*(?:{LEADING})\s*[:\-–—]+\s*", re.IGNORECASE)
_TRAILING = re.compile(rf"\s*[\(\[]\s*(?:{TRAILING})\s*[\)\]]\W*$", re.IGNORECASE)
# Everything but letters and digits (of any script) becomes a space.
_NOT_WORD = re.compile(r"[\W_]+")


# Every ASCII character but letters and digits, to a space: `_NOT_WORD` for ASCII, faster.
_ASCII_NOT_WORD = {code: " " for code in range(128) if not chr(code).isalnum()}


def _trimmed(text: str) -> str:
    """`text` without the annotations around a claim ("Note:", "(confirmed)")."""
    text = text.strip()
    while True:
        trimmed = _LEADING.sub("", text)
        if ")" in trimmed or "]" in trimmed:  # the only way a trailing note ends
            trimmed = _TRAILING.sub("", trimmed)
        if trimmed == text:
            return trimmed
        text = trimmed.strip()


def _drawn_as_letters(match: re.Match[str]) -> str:
    # A symbol drawn like a letter (∨ for v) stays, as that letter; other
    # symbols part words. Their prototypes that are not ASCII letters (an em
    # dash is drawn like a katakana mark) must not become words of a claim.
    drawn = [skeleton(char) for char in match.group()]
    return "".join(d if d.isascii() and d.isalnum() else " " for d in drawn)


def claim_text(text: str) -> str:
    """The words a claim is made of, folded: what a tombstone key is over.

    Its escapes decoded first (`escapes.decoded`: `&nbsp;`, `%20`,
    `\\u0020` are the characters they spell), then one fold for every
    spelling (`fold.canonical`: NFKC, case, invisible characters, marks,
    look-alike letters), then only letters and digits. A blank-drawn filler
    (`text.FILLERS`) is a space first: the fold drops the Hangul ones as
    invisible, which would glue the words it stands between into another
    claim."""
    if may_escape(text):
        from tree_ring.model.escapes import decoded

        text = decoded(text)
    return written_claim_text(text)


def may_escape(text: str) -> bool:
    """`escapes.holds`, without loading the module for a text that has none
    (the SessionStart hook keys rows with this module)."""
    return "&" in text or "%" in text or "\\" in text or "<" in text


def written_claim_text(text: str) -> str:
    """`claim_text` of `text` as written, its escapes left as they are: what
    tombstones written before escapes were decoded hold keys over, for a
    text that has any."""
    trimmed = _trimmed(unmarked(text.translate(_FILLER_SPACES)))
    if trimmed.isascii():
        return " ".join(trimmed.lower().translate(_ASCII_NOT_WORD).split())
    # A look-alike can be a symbol, and a prototype can be one (Arabic-Indic
    # zero is drawn as a dot), so words are cut both before and after folding.
    lettered = _NOT_WORD.sub(_drawn_as_letters, trimmed)
    return " ".join(_NOT_WORD.sub(" ", canonical(lettered)).split())


_FILLER_SPACES = dict.fromkeys(map(ord, FILLERS), " ")


def cased_claim_text(text: str) -> str:
    """`claim_text` of `text` with its letters made small first. The fold
    reads look-alikes before case, since a capital look-alike (Cyrillic Н)
    has a Latin prototype its small letter lacks; so a claim of another
    script in capitals (Greek ΒΑΣΗ: B, A, ...) folds apart from the same
    words in small letters (βάση: ß, a, ...). Tombstones key a text that is
    not ASCII by both, so either case refuses the other."""
    return claim_text(text.casefold())


def plain_words(text: str) -> list[str] | None:
    """When `text` is ASCII, every word `claim_text` can make of it or of any
    part of it, with repeats (a claim's annotations are left in: more words,
    never fewer); None otherwise, as the fold of other text is not a split."""
    if not text.isascii():
        return None
    return text.lower().translate(_ASCII_NOT_WORD).split()


def legacy_claim_text(text: str) -> str:
    """`claim_text` before the canonical fold (NFKC and case only): what the
    keys of tombstones written by earlier versions are over."""
    if not _normalize:
        from unicodedata import normalize

        _normalize.append(normalize)
    folded = _trimmed(_normalize[0]("NFKC", text))
    return " ".join(_NOT_WORD.sub(" ", folded.casefold()).split())


_normalize: list[Callable[[Literal["NFKC"], str], str]] = []
