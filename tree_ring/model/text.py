"""Which characters a memory's text may hold, how a field is shown on one line,
and how a text file a person keeps is read (`file_text`).

The invisible-character policy, for every text field a memory stores
(`refused_at`), one-line and multi-line alike:

- Refused: control characters (Unicode category Cc; a multi-line field such
  as details may hold tab and newline), line and paragraph separators
  (U+2028, U+2029), lone surrogates (Cs), and every format character (Cf):
  among them the bidi controls (U+200E, U+200F, U+202A-U+202E,
  U+2066-U+2069, U+061C), the zero-width space U+200B, the word joiner
  U+2060 and the invisible operators U+2061-U+2064, the soft hyphen U+00AD,
  the BOM U+FEFF and the Mongolian vowel separator U+180E. Also the whole
  tag block U+E0000-U+E007F, assigned or not. Such characters are invisible
  in a terminal or a prompt, so a memory holding them can read differently
  from what it says, to a person and to a model.
- Accepted although invisible: the zero-width joiner and non-joiner (U+200D,
  U+200C) between two visible characters, which emoji sequences and
  Persian and Indic scripts need; variation selectors (U+FE00-U+FE0F,
  U+E0100-U+E01EF) right after a visible character, which emoji and CJK
  ideographs need. Anywhere else they are refused.
- Accepted: everything else, spaces of every width included, private-use
  characters, and characters this Python's Unicode database does not know
  yet (a newer emoji must not make an import fail on an older Python).
  Among them the characters that show blank but are no space to Unicode
  (`FILLERS`: the Hangul fillers and the Braille blank), which Hangul and
  Braille text hold: like the rarer spaces they are accepted, and read as
  spaces where a space matters (the guard's spellings, `one_line`).
  Emoji flags of subdivisions (England, Scotland, Wales) are spelled with
  tag characters and are refused with them.

A visible character is one `str.isprintable` accepts other than whitespace.
Plain ASCII is decided without looking characters up one by one, and the
Unicode database (`unicodedata`) is imported only for a character that is
neither printable nor a space, so the hooks never import it for a brief of
ordinary text.

`one_line` is what every field in the brief and the stop hook's reason goes
through: the same refused characters dropped, whitespace runs (newlines and
`FILLERS` included) made one space, and runs of three or more dashes (hyphens, and
the full-width, em and other dashes and horizontal lines of `DASHES`) cut to
two, so no field can break a line or fake the brief's fence.
"""

from __future__ import annotations

# What stands in a reason for words the project forgot (`govern/reasons.py`);
# the team ledger's merge prefers the line that withholds more of them.
WITHHELD_FORGOTTEN = "[withheld: forgotten content]"
# What stands for a supersession id that quoted forgotten words: an id, so
# the row stays superseded, that names no memory (`write/carried.py`).
WITHHELD_ID = "mem_withheld"
_JOINERS = "\u200c\u200d"
# Characters that show blank and are no space to Unicode (`str.isspace` is
# False): the Hangul choseong, jungseong, compatibility and half-width
# fillers, and the Braille blank.
FILLERS = "\u115f\u1160\u3164\uffa0\u2800"
# Whitespace that is not a space: ASCII and C1 controls, line and paragraph separators.
_BREAKS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\u2028\u2029"
# ASCII that no field keeps: every control but tab and newline, which only
# multi-line fields keep.
_ASCII_CONTROLS = bytes([*range(0x00, 0x20), 0x7F])
# What `bytes.translate` deletes to leave only those controls.
_ASCII_KEEP = bytes(range(0x80)).translate(None, _ASCII_CONTROLS)
_LINE_CONTROLS = b"\t\n"
# ASCII controls become spaces (then one space per run), DEL is dropped.
_ASCII_DROP: dict[int, str | None] = {code: " " for code in range(0x20)} | {0x7F: None}


# The variation selectors, to be deleted by `str.translate`.
_SELECTORS: dict[int, None] = dict.fromkeys([*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])


def _variation_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _visible(char: str) -> bool:
    return char.isprintable() and not char.isspace()


def joins(text: str, index: int) -> bool:
    """Whether `text[index]` is a joiner the policy accepts: U+200D or U+200C
    between two visible characters (an emoji sequence, a Persian word)."""
    return (
        text[index] in _JOINERS
        and 0 < index < len(text) - 1
        and _visible(text[index - 1])
        and _visible(text[index + 1])
    )


def refused(text: str, index: int, multiline: bool) -> bool:
    """Whether the policy (see the module docstring) refuses `text[index]`."""
    char = text[index]
    code = ord(char)
    if 0xE0000 <= code <= 0xE007F:
        return True
    if char.isprintable():
        if _variation_selector(code):
            return index == 0 or not _visible(text[index - 1])
        return False
    if char in _JOINERS:
        return not joins(text, index)
    if char.isspace():
        return char in _BREAKS and not (multiline and char in "\t\n")
    from unicodedata import category  # only for characters neither printable nor space

    return category(char) in ("Cc", "Cf", "Cs")


def refused_at(text: str, *, multiline: bool = False) -> int | None:
    """The index of the first character the policy refuses, or None."""
    if text.isascii():
        found = text.encode().translate(None, _ASCII_KEEP)
        if multiline:
            found = found.translate(None, _LINE_CONTROLS)
        return text.index(chr(found[0])) if found else None
    # Most text is printable throughout and holds no variation selector: told
    # in C, where the walk below costs a Python call a character.
    plain = text.replace("\n", "").replace("\t", "") if multiline else text
    if plain.isprintable() and len(plain.translate(_SELECTORS)) == len(plain):
        return None
    for index in range(len(text)):
        if refused(text, index, multiline):
            return index
    return None


def terminal_safe(text: str) -> str:
    """`text` as a terminal may be sent it: each character the policy refuses
    in a multi-line field (an escape sequence's ESC, a bell, a bidi override,
    a zero-width space; tab and newline stay) written out as its code,
    `\\x1b` or `\\u202e` (a carriage return `\\r`), so that no stored text (a row edited in the
    database, a file's project name) can move the cursor, retitle the window
    or reorder what a person reads."""
    return _escaped(text, multiline=True)


def error_safe(text: str) -> str:
    """`text` as an error line may quote it: `terminal_safe`, and the line
    breaks and tab it keeps written out too (`\\n`, `\\r`, `\\x09`), so that
    a value an error quotes (a `--root` holding a newline) cannot split the
    one line a script reads, nor start a line that looks like Tree Ring's."""
    return _escaped(text, multiline=False)


def _escaped(text: str, *, multiline: bool) -> str:
    if refused_at(text, multiline=multiline) is None:
        return text
    return "".join(
        _ESCAPES.get(char)
        or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")
        if refused(text, index, multiline)
        else char
        for index, char in enumerate(text)
    )


# Line breaks as a reader of the message knows them.
_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def describe(text: str, index: int) -> str:
    """'U+200B at character 5', for an error message that never echoes the text."""
    return f"U+{ord(text[index]):04X} at character {index + 1}"


def refusal(name: str, text: str, *, multiline: bool = False) -> str | None:
    """The one-line error for `text`, the value of `name` ("the reason"),
    when the policy refuses a character of it (`refused_at`), or None: every
    check of a stored text says it in these words, and never echoes the text."""
    index = refused_at(text, multiline=multiline)
    if index is None:
        return None
    return (
        f"{name} contains control characters or invisible formatting "
        f"({describe(text, index)}); remove them and retry"
    )


def check_characters(name: str, text: str) -> None:
    """Raise UsageError with `refusal`'s line for a one-line value `name`
    holds that the policy refuses: a reason, a name recorded beside an act."""
    problem = refusal(name, text)
    if problem is not None:
        from tree_ring.model.errors import UsageError

        raise UsageError(problem)


# What reads as a hyphen in a line of them: the dash punctuation (Unicode
# category Pd), the minus signs, and the box-drawing and other horizontal
# lines, so that a fence spelt in full-width or em dashes is cut as well.
DASHES = frozenset(
    "-\u058a\u05be\u1400\u1806\u2010\u2011\u2012\u2013\u2014\u2015\u2e17\u2e1a"
    "\u2e3a\u2e3b\u2e40\u2e5d\u301c\u3030\u30a0\ufe31\ufe32\ufe58\ufe63\uff0d"
    "\u2212\u207b\u208b\u2796\u23af\u2500\u2501\u2504\u2505\u2508\u2509\u254c"
    "\u254d\u2574\u2576\u2578\u257a\U00010ead"
    # What Unicode's confusables table draws as a hyphen or an em dash (the
    # prolonged sound mark, the ideograph one and their kin; tests/model/test_text.py
    # holds the table to it), the Arabic tatweel, and other strokes drawn as one.
    "\u02d7\u06d4\u2043\u2238\u2a29\u2a2a\u2cba\u1428\u0640"
    "\u1173\u2f00\u30fc\u3161\u3192\u31d0\u3280\u4e00\ua7f7\uff70\uffda\U0001f229"
)


def no_fence(text: str) -> str:
    """Runs of three or more dashes (DASHES) cut to their first two: no fence
    lookalikes inside the data. A mark drawn on a dash (a combining stroke,
    the grapheme joiner) or a format character between two neither ends the
    run nor counts in it, and goes with the dash it follows."""
    if text.isascii():
        while "---" in text:
            text = text.replace("---", "--")
        return text
    out: list[str] = []
    run = 0
    for char in text:
        if char in DASHES:
            run += 1
        elif run and not char.isascii() and _drawn_on_another(char):
            if run <= 2:
                out.append(char)
            continue
        else:
            run = 0
        if run <= 2:
            out.append(char)
    return "".join(out)


# What stands for "<" where it would open a tag: a single angle quotation mark.
TAG_OPEN = "\u2039"


def no_tags(text: str) -> str:
    """`text` with each "<" that opens a tag (`<tag`, `</tag`, `<!`, `<?`)
    written as TAG_OPEN: data shown inside a harness's context cannot close
    or open the markup the harness wraps it in (`</system-reminder>`).
    Any other "<" ("x < 5", "<=") stays."""
    at = text.find("<")
    if at < 0:
        return text
    out: list[str] = []
    start = 0
    while at >= 0:
        # What follows as a reader sees it: no invisible character in between
        # (a variation selector, a joiner, a mark) hides the tag.
        after = _seen(text, at + 1, 2)
        name = after[1:2] if after[:1] == "/" else after[:1]
        if name.isalpha() or after[:1] in ("!", "?"):
            out += (text[start:at], TAG_OPEN)
            start = at + 1
        at = text.find("<", at + 1)
    return "".join(out) + text[start:]


def _seen(text: str, at: int, count: int) -> str:
    """The next `count` characters of `text` from `at` that show, passing
    over those that show nothing or are drawn on the one before."""
    seen: list[str] = []
    while at < len(text) and len(seen) < count:
        char = text[at]
        if char.isascii() or not (_drawn_on_another(char) or _variation_selector(ord(char))):
            seen.append(char)
        at += 1
    return "".join(seen)


def _drawn_on_another(char: str) -> bool:
    """Whether `char` is drawn on the character before it, or not at all: a
    mark or a format character. The Unicode database is loaded only here,
    for a character other than ASCII just after a dash or a quote."""
    from unicodedata import category

    kind = category(char)
    return kind[0] == "M" or kind == "Cf"


def whole_number(text: str) -> bool:
    """Whether `text` is a whole number written in ASCII digits. `str.isdigit`
    also takes other scripts' digits (`٣`, full-width `３`, superscript `²`),
    which `int` reads or refuses unevenly; a setting a person types is read as
    it is written in a config file."""
    return text.isascii() and text.isdigit()


# Characters a reader may take for a double quote: every one Unicode's
# confusables give a double quote (or two apostrophes) as the prototype of
# (the ditto mark, the double acute, the modifier double apostrophe ...), and
# the double quotation marks and ornaments by name (curly, low, prime,
# heavy), the triple and quadruple primes, the diaeresis and the double
# svarita, the combining double accents too: after a space they stand alone.
QUOTE_LIKE = frozenset(
    "\u00a8\u02ba\u02dd\u02ee\u02f5\u02f6\u0308\u030b\u030e\u030f\u059e\u05f2"
    "\u05f4\u1cd3\u1cda\u201c\u201d\u201e\u201f\u2033\u2034\u2036\u2037\u2057"
    "\u275d\u275e\u2760\u2e42\u3003\u301d\u301e\u301f\uff02\U0001f676\U0001f677"
    "\U0001f678"
)

# Characters drawn like a single quote, apostrophe, prime or accent: two side
# by side read as a double quote (Unicode's confusables give `''` as the
# double quote's prototype). Every one the confusables give `'` as the
# prototype of but the letters of a script (a doubled Hebrew yod is a word's),
# the Greek numeral sign, koronis, psili and the spacing accents too.
SINGLE_LIKE = frozenset(
    "'`\u00b4\u02b9\u02bb\u02bc\u02bd\u02be\u02c8\u02ca\u02cb\u02f4\u0374\u055a"
    "\u055d\u05f3\u07f4\u07f5\u1fbd\u1fbf\u1fef\u1ffd\u1ffe\u2018\u2019\u201b"
    "\u2032\u2035\u275b\u275c\ua78c\uff07\uff40\U00016f51\U00016f52"
)


def escape_quotes(text: str) -> str:
    """`text` with its backslashes and double quotes escaped, to stand between
    double quotes as data (the brief's lines); a character that looks like a
    double quote is written as its code (`\\u201d`), so nothing inside can
    pass for the closing quote."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    if text.isascii() or (QUOTE_LIKE.isdisjoint(text) and SINGLE_LIKE.isdisjoint(text)):
        return text
    from unicodedata import normalize

    # Composed first: a diaeresis or double acute written on its letter as a
    # mark of its own (ü as u and U+0308) is that letter, and stays as it is.
    text = normalize("NFC", text)
    return "".join(
        _code(char) if char in QUOTE_LIKE or _doubled(text, at) else char
        for at, char in enumerate(text)
    )


def _doubled(text: str, at: int) -> bool:
    """Whether `text[at]` is a single quote drawn otherwise than ASCII's,
    beside another single quote: two of them read as a double quote (’’, ′′),
    whatever is drawn on them or unseen between them (a joiner, a variation
    selector, a filler). Two of ASCII's (`''`, two backticks) are code's, and
    stay."""
    if text[at] not in SINGLE_LIKE or text[at].isascii():
        return False
    return _quote_beside(text, at, -1) or _quote_beside(text, at, 1)


def _quote_beside(text: str, at: int, step: int) -> bool:
    """Whether the nearest character drawn on its own from `text[at]`, one way
    (`step`), is a single quote."""
    at += step
    while 0 <= at < len(text):
        char = text[at]
        if char in SINGLE_LIKE:
            return True
        if char.isascii() or not (char in FILLERS or _drawn_on_another(char)):
            return False
        at += step
    return False


def _code(char: str) -> str:
    """`char` as a JSON string writes it escaped: `\\u201d`, or the two
    halves of a surrogate pair past U+FFFF."""
    point = ord(char)
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    point -= 0x10000
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"


def in_quotes(text: str) -> str:
    """`text` as a listing shows a row's words: between double quotes, its
    own quotes and backslashes escaped and its line breaks written out
    (`error_safe`), so a row that says "(mem_...; origin: person)
    [heartwood]" cannot pass for the label Tree Ring writes beside it."""
    return f'"{error_safe(escape_quotes(text))}"'


def one_line(text: str) -> str:
    """`text` as a brief or a stop reason may show it: refused characters
    dropped, whitespace runs made one space, dash runs cut to two."""
    if not text.isascii():
        # A run of fillers is cut as a run of spaces is, so none can push
        # the label written after a field out of sight.
        text = "".join(
            " " if char in _BREAKS or char in FILLERS else char
            for index, char in enumerate(text)
            if char in _BREAKS or not refused(text, index, False)
        )
    elif text.encode().translate(None, _ASCII_KEEP):
        text = text.translate(_ASCII_DROP)
    return no_fence(" ".join(text.split()))


# How wide a listing previews free text on one line (a summary, a reason):
# the consolidation and tree previews, a review request's reason.
PREVIEW = 160


def preview(text: str, limit: int = PREVIEW) -> str:
    """`text` on one line (`one_line`), cut to `limit` characters with "..." when longer."""
    text = one_line(text)
    return text if len(text) <= limit else text[: cluster_end(text, limit - 3)] + "..."


# Regional indicators: two make a flag.
_FLAG_LETTERS = range(0x1F1E6, 0x1F200)


def _extends(char: str) -> bool:
    """Whether `char` belongs to the character before it: a combining or
    enclosing mark, a spacing mark, the zero-width joiner, a variation
    selector, an emoji's skin tone, a tag character."""
    code = ord(char)
    if code < 0x300:
        return False
    if code == 0x200D or _variation_selector(code) or 0x1F3FB <= code <= 0x1F3FF:
        return True
    if 0xE0020 <= code <= 0xE007F:
        return True
    import unicodedata

    return unicodedata.category(char) in ("Mn", "Me", "Mc")


def _after_virama(before: str, char: str) -> bool:
    """Whether `char` is a letter a virama before it joins to its consonant,
    as in Devanagari's "क्ष" (read as one since Unicode 15.1)."""
    if ord(before) < 0x900:
        return False
    import unicodedata

    return unicodedata.combining(before) == 9 and unicodedata.category(char) == "Lo"


def cluster_end(text: str, end: int) -> int:
    """The largest cut at or before `end` that splits no character as it is
    seen (a letter and its accents, an emoji and its joined parts and skin
    tone, a flag's two letters, a conjunct's consonants):
    `text[:cluster_end(text, n)]` is the start of `text` cut where a reader
    sees a character end. Plain ASCII is cut where asked."""
    end = max(0, min(end, len(text)))
    while 0 < end < len(text) and not (text[end - 1].isascii() and text[end].isascii()):
        before, char = text[end - 1], text[end]
        if _extends(char) or before == "\u200d" or _after_virama(before, char):
            end -= 1
        elif ord(char) in _FLAG_LETTERS and ord(before) in _FLAG_LETTERS:
            # Inside a flag when an odd number of its letters stand before the cut.
            run = end
            while run > 0 and ord(text[run - 1]) in _FLAG_LETTERS:
                run -= 1
            if (end - run) % 2 == 0:
                break
            end -= 1
        else:
            break
    return end


# How a text file a person or their editor wrote is decoded, wherever Tree
# Ring reads one (an import's lines, AGENTS.md, a Revolve record, a summary on
# standard input): strictly as UTF-8, and a byte-order mark at its start,
# which some editors write (Windows ones by default), dropped, as it says
# nothing about the content. Kept, it would be the first heading's first
# character, and a refused one in a memory.
FILE_ENCODING = "utf-8-sig"


def file_text(data: bytes) -> str:
    """A whole text file's `data` as text: decoded as `FILE_ENCODING`, its line
    ends (CRLF, or a lone CR) read as LF, as an import ends its lines. A file
    that is not UTF-8 raises UnicodeDecodeError, for the caller to name."""
    return data.decode(FILE_ENCODING).replace("\r\n", "\n").replace("\r", "\n")


# Where a UUID's dashes fall: both harnesses send UUIDs as session and turn ids.
_UUID_DASHES = (8, 13, 18, 23)
_UUID_HEX = frozenset("0123456789abcdefABCDEF")


def is_uuid(text: str) -> bool:
    """Whether `text` is a UUID as text (8-4-4-4-12 hex digits), without re:
    an id a harness sent, which the guard never reads as a secret."""
    return len(text) == 36 and all(
        (char == "-") if at in _UUID_DASHES else (char in _UUID_HEX) for at, char in enumerate(text)
    )


def clip(text: str, limit: int) -> str:
    """Cut to at most `limit` UTF-8 bytes, never through a character or a
    cluster of them, "..." saying it was cut."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    kept = data[: limit - 3].decode("utf-8", "ignore")
    return kept[: cluster_end(text, len(kept))] + "..."


def quoted(text: str, limit: int) -> str:
    """`text` between double quotes, its own quotes and backslashes escaped,
    cut (with "...") to `limit` bytes in all, never through an escape: a
    line's words are its row's data, and whatever they say (a made-up
    "(mem_...; origin: person) [heartwood]") stays inside the quotes, apart
    from the label Tree Ring writes after them, and no tag it holds opens
    (`no_tags`: a harness wraps the brief in its own markup)."""
    text = no_tags(text)
    escaped = escape_quotes(text)
    if len(escaped.encode("utf-8")) + 2 <= limit:
        return f'"{escaped}"'
    room = max(limit - 5, 0)  # the quotes and "..."
    kept: list[str] = []
    for char in text:
        piece = escape_quotes(char)
        room -= len(piece.encode("utf-8"))
        if room < 0:
            break
        kept.append(piece)
    # Escaping changes no character that a cut could split: each piece is one of text's.
    return '"' + "".join(kept[: cluster_end(text, len(kept))]) + '..."'
