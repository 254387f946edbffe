"""How many terminal columns text takes, and text cut, clipped or wrapped to columns.

A terminal draws an East Asian wide or fullwidth character (CJK, most emoji)
in two columns, a combining mark or a zero-width character in none (it joins
the character before), and anything else in one; East Asian "ambiguous"
characters (the box and bar glyphs the screen draws with) take one, as a
UTF-8 terminal outside East Asian locales gives them. Counting characters
instead lets a summary or a search with an emoji run a column past its pane
for each wide character, pushing the end of the line off the screen.

Nearly all text is ASCII, one column a character: it is measured by `len`,
and `unicodedata` is imported only when some text is not.
"""

from __future__ import annotations

import textwrap

# Each non-ASCII character's columns, as they are met.
_COLUMNS: dict[str, int] = {}
ELLIPSIS = "…"


def width(text: str) -> int:
    """The columns `text` takes on a terminal."""
    if text.isascii():
        return len(text)
    return sum(_columns(c) for c in text)


def _columns(char: str) -> int:
    known = _COLUMNS.get(char)
    if known is not None:
        return known
    if char.isascii():
        columns = 1
    else:
        import unicodedata

        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            columns = 0  # combining marks, and zero-width spaces and joiners
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            columns = 2
        else:
            columns = 1
    _COLUMNS[char] = columns
    return columns


def cut(text: str, columns: int) -> tuple[str, int]:
    """The longest start of `text` that takes at most `columns` columns (with
    the zero-width characters that follow it), and the columns it takes. A
    wide character that would straddle the edge is left out whole."""
    columns = max(columns, 0)
    if text.isascii():
        piece = text[:columns]
        return piece, len(piece)
    used = 0
    for i, char in enumerate(text):
        step = _columns(char)
        if used + step > columns:
            return text[:i], used
        used += step
    return text, used


def clip(text: str, columns: int) -> str:
    """`text` if it fits in `columns`, else its start and an ellipsis."""
    if columns <= 0:
        return ""
    if width(text) <= columns:
        return text
    return cut(text, columns - 1)[0] + ELLIPSIS


def wrap(text: str, columns: int, indent: str = "") -> list[str]:
    """`text` in lines of at most `columns` columns, the second on indented;
    a word longer than a line is broken. ASCII text wraps as `textwrap` does."""
    if text.isascii():
        return textwrap.wrap(text, columns, subsequent_indent=indent, break_on_hyphens=False)
    out: list[str] = []
    line = ""
    for word in text.split():
        while word:
            joined = f"{line} {word}" if line.strip() else line + word
            if width(joined) <= columns:
                line = joined
                break
            if line.strip():
                out.append(line)
                line = indent
                continue
            # The word alone is wider than a line: as much as fits, then the rest.
            piece = cut(word, columns - width(line))[0] or word[0]
            out.append(line + piece)
            word = word[len(piece) :]
            line = indent
    if line.strip():
        out.append(line)
    return out


def ascii_only(text: str) -> str:
    """`text` for a terminal that shows ASCII only: each other character a `?`
    for each column it would have taken, so the columns stay where they were."""
    if text.isascii():
        return text
    return "".join(c if c.isascii() else "?" * _columns(c) for c in text)
