"""The Porter stemmer, as the FTS index applies it to every word it holds.

Recall widens a word to its other forms ("deploy" to "deployment"); a form
the index stems to the word's own stem adds no memory, and searching it
costs a lookup in every rung it joins. `stem` tells which forms those are
without asking the index. It follows M. F. Porter's 1980 algorithm (with
the "logi" and "bli" rules of his reference implementation, which SQLite's
porter tokenizer also uses); `tests/read/test_porter.py` checks it against
SQLite's own tokenizer, word by word. Only words of lower-case ASCII
letters are stemmed here: the caller keeps every form of any other word.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

VOWELS = frozenset("aeiou")


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC){m}[V]: the number of vowel-consonant sequences."""
    m = 0
    previous_vowel = False
    for i in range(len(stem)):
        vowel = not _consonant(stem, i)
        if previous_vowel and not vowel:
            m += 1
        previous_vowel = vowel
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    """The same letter twice at the end, not a vowel: a "y" counts as a
    consonant here whatever comes before it, as the index's stemmer reads it
    ("yyed" is "y")."""
    return len(word) >= 2 and word[-1] == word[-2] and word[-1] not in VOWELS


def _cvc(word: str) -> bool:
    """Consonant, vowel, consonant at the end, the last not w, x or y."""
    n = len(word)
    return (
        n >= 3
        and _consonant(word, n - 3)
        and not _consonant(word, n - 2)
        and _consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


# Steps 2, 3 and 4: suffix and replacement; the longest suffix that ends the
# word is the one tried, and only it (as the reference implementation does).
STEP2: dict[str, str] = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize",
    "bli": "ble", "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous",
    "ization": "ize", "ation": "ate", "ator": "ate", "alism": "al", "iveness": "ive",
    "fulness": "ful", "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble",
    "logi": "log",
}  # fmt: skip
STEP3: dict[str, str] = {
    "icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "",
    "ness": "",
}  # fmt: skip
STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


def _ends(word: str, suffix: str) -> bool:
    """A suffix ends a word only when something is left before it."""
    return len(word) > len(suffix) and word.endswith(suffix)


def _longest(word: str, suffixes: tuple[str, ...]) -> str | None:
    if not word.endswith(suffixes):
        return None
    best = None
    for suffix in suffixes:
        if _ends(word, suffix) and (best is None or len(suffix) > len(best)):
            best = suffix
    return best


def _replace(word: str, rules: Mapping[str, str], minimum: int) -> str:
    suffix = _longest(word, tuple(rules))
    if suffix is None:
        return word
    stem = word[: -len(suffix)]
    return stem + rules[suffix] if _measure(stem) > minimum else word


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """The Porter stem of a lower-case ASCII word; words under three letters
    are their own stem."""
    if len(word) < 3:
        return word
    w = word
    # Step 1a: plurals.
    if _ends(w, "sses") or _ends(w, "ies"):
        w = w[:-2]
    elif _ends(w, "s") and not _ends(w, "ss"):
        w = w[:-1]
    # Step 1b: -eed, -ed, -ing.
    if _ends(w, "eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suffix in ("ed", "ing"):
            if _ends(w, suffix) and _has_vowel(w[: -len(suffix)]):
                w = w[: -len(suffix)]
                if _ends(w, "at") or _ends(w, "bl") or _ends(w, "iz"):
                    w += "e"
                elif _double_consonant(w) and w[-1] not in "lsz":
                    w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
                break
    # Step 1c: a final y after a vowel somewhere becomes i.
    if _ends(w, "y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace(w, STEP2, 0)
    w = _replace(w, STEP3, 0)
    # Step 4: endings dropped where the rest measures more than one.
    suffix = _longest(w, STEP4)
    if suffix is not None:
        rest = w[: -len(suffix)]
        if _measure(rest) > 1 and (suffix != "ion" or rest[-1] in "st"):
            w = rest
    # Step 5: a final e, and a final double l.
    if _ends(w, "e"):
        rest = w[:-1]
        m = _measure(rest)
        if m > 1 or (m == 1 and not _cvc(rest)):
            w = rest
    if _ends(w, "ll") and _measure(w) > 1:
        w = w[:-1]
    return w
