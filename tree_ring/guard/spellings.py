"""The other spellings of a text a secret can hide in, for the guard to scan too.

The rules read text as it is written. A secret written another way passes them
unless the guard also reads it that way, so `spellings` gives the texts that
the same characters spell once folded, unescaped or decoded:

- folded (`fold.unmarked`, then `fold.skeleton`): full-width and
  mathematical letters and digits become ASCII, invisible characters and
  combining marks go, and look-alike letters become the letters they
  imitate, so ``ｇｈｐ_``, ``g\u200bhp_``, ``ǵhp_`` and Cyrillic ``gһр_``
  read ``ghp_``. A rarer space
  (no-break, thin, ideographic) splitting a token is read both as a space
  and as nothing, since either may be what it replaced; so is a character
  that shows blank and is no space to Unicode (the Hangul fillers, the
  Braille blank), so words spaced with it read as words.
- unescaped: percent-encoding (``%3A%2F%2F``, twice over at most), JSON and
  C escapes (``\\u0067``, ``\\x41``, and the one-character ``\\"``,
  ``\\n``: JSON pasted into a quoted argument, a YAML block typed on one
  line) and HTML character references (``&#103;``, ``&#x41;``, ``&quot;``).
- decoded: runs of base64, base64url or hex that decode to text, and gzip
  inside base64 (a Kubernetes secret, a CI variable holding a whole .env
  file, a credentials JSON); a run wrapped over lines of one width, as
  `base64`, `openssl base64` and PEM write it, is joined first.

Each spelling is itself spelled again, to `_DEPTH` layers (base64 of a
percent-encoded URL). Everything is bounded: at most `_BLOBS` blobs per text,
each decoded from at most `_BLOB_CHARS` characters, at most `_SPELLINGS`
spellings in all, so a 10 MB field costs a few linear passes, never a
product of its size.

Plain ASCII with no escape and no long run of encoding characters (the
common memory) has no other spelling; telling costs a few substring tests and
one `bytes.translate`.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Iterator

from tree_ring.model.text import FILLERS

# How deep spellings nest, how many there are in all, and the bounds on blobs.
_DEPTH = 3
_SPELLINGS = 24
_BLOBS = 16
_BLOB_CHARS = 65_536
# A base64 run this long holds 18 bytes, hex 12: shorter ones are words and ids.
_MIN_RUN = 24
# Characters allowed between a wrapped line's end and the next line's start
# (trailing spaces, "\r", indentation), so the search for the break is bounded.
_LINE_SLACK = 64

# Characters that show blank and are no space to Unicode (`text.FILLERS`:
# the Hangul fillers, the Braille blank). Text may hold them (Hangul,
# Braille), so they are read, not refused: between words as a space, so
# "password⠀is⠀X" reads as words; inside a token as nothing.
_FILLERS = tuple(map(ord, FILLERS))
_FILLERS_AS_SPACES = dict.fromkeys(_FILLERS, " ")
# Spaces that NFKC turns into " ", and the fillers: inside a token they may
# stand for nothing.
_RARE_SPACES = dict.fromkeys(
    (0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000, *_FILLERS), None
)

# Every base64 and base64url character reads "x", everything else " ", so a
# run of them is a run of "x" that `bytes.find` can look for.
_run_table = bytearray(b" " * 256)
for _byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_":
    _run_table[_byte] = ord("x")
_RUN_TABLE = bytes(_run_table)
_RUN = b"x" * _MIN_RUN

_ESCAPES = (
    r"\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|\\[\"'\\/ntr]|&#[0-9]{1,7};|&#[xX][0-9A-Fa-f]{1,6};"
    r"|&[A-Za-z][A-Za-z0-9]{1,31};"
)
# A string's one-character escapes: JSON pasted into a quoted argument
# (`{\"password\": \"...\"}`), and a line break written as "\n" (a YAML
# block scalar typed on one shell line).
_SHORT_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_HEX = frozenset(b"0123456789abcdefABCDEF")
_GZIP = b"\x1f\x8b"


# Bytes that text holds: printable ASCII and whitespace (and UTF-8's upper half,
# judged once decoded). Deleting them leaves nothing of a decoded text.
_TEXT_BYTES = bytes([9, 10, 13, *range(32, 127), *range(128, 256)])
_WHITESPACE = str.maketrans("", "", "\t\n\r")


def _as_text(data: bytes) -> str | None:
    """`data` as UTF-8 text, or None for binary (a control byte, invalid UTF-8,
    an unprintable character); a blob cut at its bound may end inside a
    character, which is dropped."""
    if not data or data.translate(None, _TEXT_BYTES):
        return None
    for cut in range(4 if data[-1] >= 0x80 else 1):
        try:
            text = data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text.isascii() or text.translate(_WHITESPACE).isprintable():
            return text
        return None
    return None


def _gunzip(data: bytes) -> bytes:
    import zlib

    try:
        return zlib.decompressobj(31).decompress(data, _BLOB_CHARS)
    except zlib.error:
        return b""


def _decoded(run: bytes) -> str | None:
    """A run of encoding characters as the text it encodes, or None."""
    run = run[:_BLOB_CHARS]
    if len(run) % 2 == 0 and len(run.translate(None, bytes(_HEX))) == 0:
        data = binascii.unhexlify(run)
    else:
        if b"-" in run or b"_" in run:
            if b"+" in run or b"/" in run:
                return None  # both alphabets: a path or a name, not base64
            run = run.replace(b"-", b"+").replace(b"_", b"/")
        run = run[: len(run) - len(run) % 4] if len(run) % 4 == 1 else run
        try:
            data = binascii.a2b_base64(run + b"=" * (-len(run) % 4))
        except binascii.Error:
            return None
    if data.startswith(_GZIP):
        data = _gunzip(data)
    return _as_text(data)


def _next_line(raw: bytes, index: int) -> int:
    """Where the line after the one ending at `index` starts past its
    indentation, or -1 when anything but trailing spaces (or the ``\r`` of
    ``\r\n``) stands before the line break."""
    end = raw.find(b"\n", index, index + _LINE_SLACK)
    if end < 0 or raw[index:end].strip(b" \t\r"):
        return -1
    start = end + 1
    while raw[start : start + 1] in (b" ", b"\t"):
        start += 1
        if start - end > _LINE_SLACK:
            return -1
    return start


# The narrowest wrapped line read as part of a block: narrower runs are words.
_WRAP_MIN = 16


def _line_end(raw: bytes, end: int) -> bool:
    """Whether a run ending at `end` ends its line but for base64 padding and
    trailing spaces: a wrapped block's last line holds nothing else."""
    rest = raw[end : end + _LINE_SLACK]
    line = rest.find(b"\n")
    if line < 0 and end + len(rest) < len(raw):
        return False  # more on the line than padding and spaces
    return rest[: line if line >= 0 else len(rest)].rstrip(b" \t\r") in (b"", b"=", b"==")


def _wrapped(raw: bytes, view: bytes, start: int, end: int) -> tuple[bytes, int] | None:
    """The block that the run raw[start:end] opens when base64 (or hex) is
    wrapped over lines, as `base64` (76 columns), `openssl base64` and PEM
    (64) write it, or `base64 -w N` at any other width: lines of the run's
    width (at least `_WRAP_MIN`), each alone on its line, the last no longer
    and padded at most. Joined, with where the block ends; None when the run
    does not open one. Decoded line by line, a secret across a break, or
    gzip, reads as nothing."""
    width = end - start
    if width < _WRAP_MIN:
        return None
    pieces = [raw[start:end]]
    size = width
    while size < _BLOB_CHARS:
        line = _next_line(raw, end)
        if line < 0:
            break
        stop = view.find(b" ", line, line + width + 1)
        stop = min(len(view), line + width + 1) if stop < 0 else stop
        if stop == line or stop - line > width or not _line_end(raw, stop):
            break
        pieces.append(raw[line:stop])
        size += stop - line
        end = stop
        if stop - line < width or raw[stop : stop + 1] == b"=":
            break  # a shorter or padded line ends the block
    if len(pieces) == 1:
        return None
    return b"".join(pieces), end


def _blobs(raw: bytes) -> Iterator[str]:
    """What the first `_BLOBS` runs of base64 or hex in `raw` decode to, a
    block wrapped over lines read whole (see `_wrapped`).

    Found with `bytes.find`, not a pattern: the SessionStart brief checks
    every row it shows, and importing `re` would cost it more than the check."""
    view = raw.translate(_RUN_TABLE)
    start = view.find(_RUN)
    for _ in range(_BLOBS):
        if start < 0:
            return
        end = view.find(b" ", start)
        end = len(view) if end < 0 else end
        block = _wrapped(raw, view, start, end)
        text = None
        if block is not None:
            text = _decoded(block[0])
            if text is not None:
                end = block[1]
        if text is None:
            # Not a block, or not text once joined (a line of prose after a
            # run reads as one more line of it): the run on its own.
            text = _decoded(raw[start:end])
        if text is not None:
            yield text
        start = view.find(_RUN, end)


# Past this size a spelling keeps only the lines it changes: a secret does not
# cross a line, and scanning 10 MB again for one folded word would multiply
# the cost of every long field by the number of its spellings.
_WHOLE = 4096


def _changed_lines(text: str, changes: Callable[[str], bool]) -> str:
    """`text`, or past `_WHOLE` characters only its lines that `changes` picks."""
    if len(text) <= _WHOLE:
        return text
    return "\n".join(line for line in text.split("\n") if changes(line))


def _escaped(piece: bytes) -> bool:
    """Whether the text after a "%" starts with two hex digits."""
    return len(piece) >= 2 and piece[0] in _HEX and piece[1] in _HEX


def _unquoted(raw: bytes) -> str | None:
    """`raw` with its percent-escapes decoded, or None when it has none.
    Split on "%" rather than matched, so the brief's check never imports `re`."""
    if b"%" not in raw:
        return None
    if len(raw) > _WHOLE:
        raw = b"\n".join(line for line in raw.split(b"\n") if b"%" in line)
    pieces = raw.split(b"%")
    if not any(_escaped(piece) for piece in pieces[1:]):
        return None
    out = [pieces[0]]
    for piece in pieces[1:]:
        if _escaped(piece):
            out.append(bytes((int(piece[:2], 16),)) + piece[2:])
        else:
            out.append(b"%" + piece)
    return b"".join(out).decode("utf-8", "replace")


def _unescape_one(match_text: str) -> str:
    if len(match_text) == 2:
        return _SHORT_ESCAPES.get(match_text[1], match_text[1])
    if match_text[0] == "&" and match_text[1] != "#":
        from html import unescape  # a named reference: `&quot;`, `&lt;`, `&QUOT;`

        return unescape(match_text)
    if match_text[0] == "&":
        number = match_text[2:-1]
        code = int(number[1:], 16) if number[:1] in "xX" else int(number)
    else:
        code = int(match_text[2:], 16)
    return chr(code) if code <= 0x10FFFF else match_text


def _unescaped(text: str) -> str | None:
    if "\\" not in text and ("&" not in text or ";" not in text):
        return None
    from tree_ring.guard.rule import text_pattern

    found = text_pattern(_ESCAPES)
    if found.search(text) is None:
        return None
    text = _changed_lines(text, lambda line: found.search(line) is not None)
    return found.sub(lambda match: _unescape_one(match.group()), text)


# Token characters read "a", bytes of characters outside ASCII "n", others " ".
_mix_table = bytearray(b" " * 256)
for _byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-":
    _mix_table[_byte] = ord("a")
_mix_table[0x80:] = b"n" * 128
_MIX_TABLE = bytes(_mix_table)


def _mixed(text: str) -> bool:
    """Whether a character outside ASCII stands next to a token character."""
    view = text.encode("utf-8", "surrogatepass").translate(_MIX_TABLE)
    return b"an" in view or b"na" in view


# The blocks the letters drawn as small capitals lie in (`confusables.CAPITALS`):
# the kra, IPA Extensions, Phonetic Extensions' small capitals, Latin Extended-D.
_CAPITAL_BLOCKS = (("\u0138", "\u0138"), ("\u0250", "\u02af"), ("\u1d00", "\u1d2b"),
                   ("\ua730", "\ua7af"))  # fmt: skip


def _small_capitals(text: str) -> bool:
    return any(low <= c <= high for c in text if c > "\u0137" for low, high in _CAPITAL_BLOCKS)


def _folded(text: str) -> Iterator[str]:
    if text.isascii():
        return
    from tree_ring.model.fold import lettered, skeleton, unmarked

    text = _changed_lines(text, lambda line: not line.isascii())
    texts = [text]
    closed = text.translate(_RARE_SPACES)
    if len(closed) != len(text):
        texts.append(closed)
        opened = text.translate(_FILLERS_AS_SPACES)
        if opened != text:
            texts.append(opened)
    for each in texts:
        folded = unmarked(each)
        yield folded
        # Look-alike letters (Cyrillic "р" for "p") as the letters they imitate;
        # case is kept, as token formats are case-sensitive. Only where a
        # letter outside ASCII touches a token character: prose in another
        # script, or an emoji between spaces, hides no token, and the table
        # costs the SessionStart brief milliseconds to load.
        look = folded
        if _mixed(folded):
            look = skeleton(folded)
            yield look
        # Small capitals (``PᴀSSWORD``, ``ᴘɪɴ``) as the capitals they are
        # drawn as: Latin letters, so even a word made of them alone.
        if _mixed(folded) or _small_capitals(folded):
            # As capitals (a label, ``DB_PᴀSSWORD``) and as small letters
            # (a token's prefix, ``ghᴘ_``; a flag, ``-ᴘ``): formats are cased.
            for read in dict.fromkeys((lettered(folded), lettered(folded, small=True))):
                if read != look:
                    yield read


def _respelled(text: str, raw: bytes, *, fold: bool) -> Iterator[tuple[str, bool]]:
    """The texts one step of folding, unescaping or decoding makes of `text`,
    each with whether it still needs folding (a fold of a fold is itself)."""
    if fold:
        for folded in _folded(text):
            yield folded, False
    unquoted = _unquoted(raw)
    if unquoted is not None:
        yield unquoted, True
    unescaped = _unescaped(text)
    if unescaped is not None:
        yield unescaped, True
    for blob in _blobs(raw):
        yield blob, True


def spellings(text: str, raw: bytes | None = None) -> Iterator[str]:
    """Every other spelling of `text`, each once, shallowest first.

    `raw` is `text` in UTF-8 when the caller has it already.
    """
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    if (
        text.isascii()
        and b"%" not in raw
        and b"\\" not in raw
        and (b"&" not in raw or b";" not in raw)
        and _RUN not in raw.translate(_RUN_TABLE)
    ):
        return  # the common memory: written one way only
    seen = {text}
    layer = [(text, raw, True)]
    given = 0
    for _ in range(_DEPTH):
        deeper: list[tuple[str, bytes, bool]] = []
        for current, current_raw, fold in layer:
            for other, refold in _respelled(current, current_raw, fold=fold):
                if other in seen:
                    continue
                seen.add(other)
                yield other
                given += 1
                if given >= _SPELLINGS:
                    return
                deeper.append((other, other.encode("utf-8", "surrogatepass"), refold))
        if not deeper:
            return
        layer = deeper
