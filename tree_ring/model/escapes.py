"""A text as a reader sees it: `&#68;eploys%20<b>freeze</b>` reads `Deploys freeze`.

HTML character references (named and numeric, `&nbsp;`, `&#68;`, `&#x44;`),
percent-encoding (`%20`) and backslash escapes spell the same words as the
characters they stand for, and markup tags (`<b>`, `</span>`, `<a
href="...">`) show nothing of themselves: a reader, or a model, reads
`Deploys&nbsp;<b>freeze</b>` as `Deploys freeze`. A forgotten claim must not
come back in such a spelling, so the tombstone keys read a text decoded as
well as as written (`store/tombstones.py`).

Backslash escapes are read in the forms languages write them: `\\u0044` and a
JSON surrogate pair (`\\ud835\\udc03`), `\\u{44}`, `\\U00000044`, `\\x44`,
octal `\\104`, `\\N{LATIN CAPITAL LETTER D}`, and the one-character ones
(`\\n`, `\\t`, `\\"`).

`decoded` decodes twice at most (`%2520` is `%20`, then a space), and a text
without `&`, `%`, `<` or a backslash is returned as it is without importing
anything. A percent run that is not UTF-8 becomes U+FFFD, as a browser
shows it.
"""

from __future__ import annotations

import re

_ROUNDS = 2
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_BACKSLASH = re.compile(
    r"\\(?:"
    r"u[dD][89abAB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}"  # a surrogate pair
    r"|u[0-9A-Fa-f]{4}|u\{[0-9A-Fa-f]{1,6}\}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}"
    r"|[0-3][0-7]{2}|N\{[A-Za-z0-9 -]{1,80}\}|[ntr\"'\\/])"
)
# A tag: a name, then attributes up to its closing ">" (no "<" or ">" inside).
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]{0,31}(?:\s[^<>]{0,256})?/?>")
_SHORT = {"n": "\n", "t": "\t", "r": "\r"}


def holds(text: str) -> bool:
    """Whether `text` may hold an escape or a tag (a cheap test before `decoded`)."""
    return "&" in text or "%" in text or "\\" in text or "<" in text


def _reference(match: re.Match[str]) -> str:
    from html import unescape

    return unescape(match.group())


def _percent(match: re.Match[str]) -> str:
    run = match.group()
    return bytes(int(run[at + 1 : at + 3], 16) for at in range(0, len(run), 3)).decode(
        "utf-8", "replace"
    )


def _backslash(match: re.Match[str]) -> str:
    escape = match.group()
    kind = escape[1]
    if len(escape) == 2:
        return _SHORT.get(kind, kind)
    if kind == "N":
        from unicodedata import lookup

        try:
            return lookup(escape[3:-1])
        except KeyError:
            return escape
    if kind.isdigit():
        return chr(int(escape[1:], 8))
    if len(escape) == 12 and escape[7] == "u":  # a surrogate pair: one character past the BMP
        high, low = int(escape[2:6], 16), int(escape[8:], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    code = int(escape[2:].strip("{}"), 16)
    # A lone surrogate or a code point past Unicode spells no character.
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else escape


def decoded(text: str) -> str:
    """`text` with its character references, percent-escapes and backslash
    escapes decoded and its markup tags taken out (twice at most); `text`
    itself when it holds none."""
    for _ in range(_ROUNDS):
        if not holds(text):
            return text
        before = text
        if "&" in text:
            text = _REFERENCE.sub(_reference, text)
        if "%" in text:
            text = _PERCENT.sub(_percent, text)
        if "\\" in text:
            text = _BACKSLASH.sub(_backslash, text)
        if "<" in text:
            text = _TAG.sub("", text)
        if text == before:
            break
    return text
