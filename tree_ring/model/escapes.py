"""A text's escapes decoded: the characters a reader sees in `&#68;eploys%20freeze`.

HTML character references (named and numeric, `&nbsp;`, `&#68;`, `&#x44;`),
percent-encoding (`%20`) and backslash escapes (`\\u0020`, `\\x41`,
`\\U0001F600`, `\\n`) spell the same words as the characters they stand for:
a reader, or a model, reads `Deploys&nbsp;freeze` as `Deploys freeze`. A
forgotten claim must not come back in such a spelling, so the tombstone keys
read a text decoded as well as as written (`store/tombstones.py`).

`decoded` decodes twice at most (`%2520` is `%20`, then a space), and a text
without `&`, `%` or a backslash is returned as it is without importing
anything. A percent run that is not UTF-8 becomes U+FFFD, as a browser
shows it.
"""

from __future__ import annotations

import re

_ROUNDS = 2
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_BACKSLASH = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|[ntr\"'\\/])")
_SHORT = {"n": "\n", "t": "\t", "r": "\r"}


def holds(text: str) -> bool:
    """Whether `text` may hold an escape (a cheap test before `decoded`)."""
    return "&" in text or "%" in text or "\\" in text


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
    if len(escape) == 2:
        return _SHORT.get(escape[1], escape[1])
    code = int(escape[2:], 16)
    # A surrogate or a code point past Unicode spells no character.
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else escape


def decoded(text: str) -> str:
    """`text` with its character references, percent-escapes and backslash
    escapes decoded (twice at most); `text` itself when it holds none."""
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
        if text == before:
            break
    return text
