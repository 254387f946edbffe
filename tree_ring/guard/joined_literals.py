"""String literals joined, as the code they are written in joins them.

A key split across literals (`"sk_live_z8SL" + "P00Ik5Gm..."`, Lua's `..`,
PHP's and Perl's `.`, VB's `&`, SQL's `||`, D's `~`, or literals side by side
as C and Python join them) reads whole once joined. The engine reads the
joined text with the provider formats and the assignment rules only: a
joined value counts when it is a token of a known format or is what a key
name is given, not when a sentence's quoted words happen to run together.
"""

from __future__ import annotations

from tree_ring.guard.rule import text_pattern

# One literal in double, single or back quotes, on one line, and what may join
# the next to it: an operator or nothing, with spaces or a line break around.
_JOIN = r"[ \t\r\n]{0,16}(?:(?:\+|\.\.|\.|&|\|\||~)[ \t\r\n]{0,16})?"
_LITERALS = {quote: rf"{quote}[^{quote}\n\\]{{0,256}}{quote}" for quote in "\"'`"}
_CHAINS = "|".join(rf"{literal}(?:{_JOIN}{literal}){{1,16}}" for literal in _LITERALS.values())

# Bytes a joined pair of literals shows once spaces are gone: a closing
# quote, an operator or nothing, an opening quote. A text with none (most
# memories) is never searched.
_MARKS = tuple(
    quote + operator + quote
    for quote in (b'"', b"'", b"`")
    for operator in (b"", b"+", b"..", b".", b"&", b"||", b"~")
)
_SPACES = b" \t\r\n"


def may_join(raw: bytes) -> bool:
    """Whether `raw` could hold literals joined: a few substring tests."""
    compact = raw.translate(None, _SPACES)
    return any(mark in compact for mark in _MARKS)


def _joined(chain: str) -> str:
    quote = chain[0]
    parts = text_pattern(_LITERALS[quote]).findall(chain)
    return quote + "".join(part[1:-1] for part in parts) + quote


def joined_literals(text: str) -> str | None:
    """`text` with every chain of joined literals written as one literal, or
    None when it has none."""
    found = text_pattern(_CHAINS)
    if found.search(text) is None:
        return None
    return found.sub(lambda match: _joined(match.group()), text)
