"""What a text means, as a short vector, with no model: static word vectors.

`vectors.dat` beside this module is written by scripts/build_vectors.py: for
each term of a vocabulary of English words and short phrases (tool and
product names among them), the all-MiniLM-L6-v2 sentence model's embedding
of the term alone, trained on sentences in the 128 axes along which
sentences differ most and quantised to four bits an axis, with the term's
weight (rarer terms weigh more). A text's vector is the weighted mean of
its terms' vectors: "outage" lands near "downtime", "container" near
"docker", "slow responses" near "latency", with no shared word.
docs/RELATIONS.md says what it adds to recall; VECTORS-NOTICE.txt beside it
holds the sources' licences.

The file is one header line, then arrays, every number little-endian; the
last three in term order (terms sorted by fingerprint, the CRC-32 of the
term's UTF-8 bytes):

    tree-ring vectors 2 <N terms> <D axes> <B bits an axis> <bytes after the line> <crc32>
        (crc32: of the floats, 8 hex digits)
    D * 2**B levels, float32: axis d's levels, lowest first
    D floats, float32: the centre, the direction every text shares
    N fingerprints, 4 bytes each, ascending
    N weights, one byte each (weight * 255)
    N codes, D * B / 8 bytes each: axis d's level in the B bits from bit
        B * (d % (8 / B)) of byte d // (8 / B)   (B is 1, 2, 4 or 8)

No term is stored, only its fingerprint: a lookup bisects the fingerprints,
so nothing is parsed when the file is read. The file is read on the first
lookup, never at import, and only by recall and the write path's trigger
(never by a hook). A missing, damaged or foreign file gives no vectors:
recall works on without meaning, and `problem()` says what is wrong.

A memory's code (`code`) is its vector as signed bytes (the unit vector
times 127, one byte an axis) after one bit an axis of its signs: the signs,
compared by XOR and popcount, pick the closest of thousands of memories
cheaply; the bytes then give their cosine. Neither `json` nor `typing` is
imported: recall's start-up would pay for them.
"""

from __future__ import annotations

import mmap
import os
import re
import sys
import zlib
from functools import lru_cache
from itertools import islice
from operator import mul

from tree_ring.model import morphy
from tree_ring.model.fold import searchable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, TypeVar

    T = TypeVar("T")

PATH = os.path.join(os.path.dirname(__file__), "vectors.dat")
MAGIC = b"tree-ring vectors"
VERSION = 2
# How many words a phrase of the vocabulary has, at most.
PHRASE_WORDS = 3
# A memory's text is read no further than this many words.
TEXT_WORDS = 200

_WORD = re.compile(r"[a-z0-9]+")


def fingerprint(term: str) -> int:
    """The key a term is stored under."""
    return zlib.crc32(term.encode())


class _Table:
    __slots__ = (
        "bits",
        "centre",
        "codes",
        "dims",
        "identity",
        "levels",
        "prints",
        "problem",
        "weights",
        "width",
    )

    def __init__(self, problem: str | None = None) -> None:
        self.problem = problem
        self.prints: Sequence[int] = ()
        self.weights: bytes | memoryview = b""
        self.codes: bytes | memoryview = b""
        self.dims = 0
        self.bits = 0
        self.width = 0
        self.identity = ""
        self.centre: list[float] = []
        self.levels: list[list[float]] = []


def _read(path: str) -> _Table:
    try:
        with open(path, "rb") as handle:
            # Mapped, not read: a recall touches a few pages of the codes.
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except ValueError:  # an empty file cannot be mapped
        return _Table(f"{path} is not a vectors file; reinstall Tree Ring")
    except OSError as exc:
        return _Table(f"cannot read {path}: {exc.strerror or exc}; reinstall Tree Ring")
    end = data.find(b"\n")
    fields = data[:end].split(b" ") if end > 0 else []
    if len(fields) < 3 or b" ".join(fields[:2]) != MAGIC:
        return _Table(f"{path} is not a vectors file; reinstall Tree Ring")
    if fields[2] != str(VERSION).encode():
        return _Table(
            f"{path} has version {fields[2].decode(errors='replace')}, "
            f"this Tree Ring reads version {VERSION}; reinstall Tree Ring"
        )
    try:
        if len(fields) != 8:
            raise ValueError
        count, dims, bits, body_size = (int(f) for f in fields[3:7])
        body = memoryview(data)[end + 1 :]
        if bits not in (1, 2, 4, 8) or dims <= 0 or dims * bits % 8:
            raise ValueError
        width = dims * bits // 8
        head = 4 * dims * ((1 << bits) + 1)
        if len(body) != body_size or body_size != head + count * (5 + width):
            raise ValueError
        if b"%08x" % zlib.crc32(body[:head]) != fields[7]:
            raise ValueError
        values = list(_little(body[:head], "f"))
        step = 1 << bits
        levels = [values[step * d : step * d + step] for d in range(dims)]
        centre = values[step * dims :]
        body = body[head:]
    except ValueError:
        return _Table(f"{path} is truncated or damaged; reinstall Tree Ring")
    table = _Table()
    # Read in place: a lookup bisects them, touching a few pages of the file.
    table.prints = _little(body[: 4 * count], "I")
    table.weights = body[4 * count : 5 * count]
    table.codes = body[5 * count :]
    norm = sum(v * v for v in centre) ** 0.5 or 1.0
    table.dims, table.bits, table.width = dims, bits, width
    table.identity = data[len(MAGIC) + 1 : end].decode("ascii", "replace")
    table.centre = [v / norm for v in centre]
    table.levels = levels
    return table


@lru_cache(maxsize=1)
def _table() -> _Table:
    return _read(PATH)


def problem() -> str | None:
    """Why the data file gives no vectors, or None when it is sound."""
    return _table().problem


def dims() -> int:
    return _table().dims


def identity() -> str | None:
    """What tells this table from any other build of it (its header's
    version, sizes and checksum), or None when there is no sound table: a
    store's codes are compared by it with the table that made them."""
    table = _table()
    return None if table.problem is not None else table.identity


def _little(data: bytes | memoryview, kind: str) -> Sequence[Any]:
    """`data` as little-endian numbers of `kind` ("f" or "I", four bytes
    each): read in place, without `array` (whose import a recall would pay)."""
    if sys.byteorder == "little":
        view = memoryview(data)
        return view.cast("f") if kind == "f" else view.cast("I")
    from array import array  # pragma: no cover - no platform Tree Ring runs on

    swapped = array(kind, bytes(data))  # pragma: no cover
    swapped.byteswap()  # pragma: no cover
    return swapped  # pragma: no cover


def _index(table: _Table, term: str) -> int:
    """Where `term`'s fingerprint is among the table's, or -1 (a bisection)."""
    key = fingerprint(term)
    prints = table.prints
    lo, hi = 0, len(prints)
    while lo < hi:
        mid = (lo + hi) // 2
        if prints[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(prints) and prints[lo] == key else -1


# A term's weighted vector is packed into one int, FIELD bits an axis, each
# value in fixed point (times SCALE) plus OFFSET so that no field is
# negative: a text's vector is then one int addition a term, unpacked once.
# A text holds at most TEXT_WORDS terms, so no field's sum reaches 2**FIELD.
FIELD = 32
SCALE = 1 << 16
OFFSET = 1 << 22


@lru_cache(maxsize=8192)
def _vector(term: str) -> tuple[float, int] | None:
    """`term`'s weight, and its weighted vector packed; None when the table lacks it."""
    table = _table()
    i = _index(table, term)
    if i < 0:
        return None
    weight = table.weights[i] / 255
    levels = iter(table.levels)
    bits = table.bits
    mask = (1 << bits) - 1
    shifts = range(0, 8, bits)
    fields = [
        (round(next(levels)[(byte >> shift) & mask] * weight * SCALE) + OFFSET).to_bytes(
            FIELD // 8, "little"
        )
        for byte in table.codes[i * table.width : (i + 1) * table.width]
        for shift in shifts
    ]
    return weight, int.from_bytes(b"".join(fields), "little")


def _unpacked(total: int, terms: int, dims: int) -> list[float]:
    fields = _little(total.to_bytes(dims * FIELD // 8, "little"), "I")
    base = terms * OFFSET
    return [(v - base) / SCALE for v in fields]


def walk(seen: list[str], find: Callable[[str], T | None]) -> Iterator[tuple[str, T | None]]:
    """Each term of a text's words as the table reads them, longest phrase
    first, a word the table lacks by its base forms (morphy.py): (its first
    word, `find`'s value of the term, or None when no form of it is found).
    The build script trains the vectors by this same reading."""
    i = 0
    while i < len(seen):
        step, found = 1, None
        for size in range(min(PHRASE_WORDS, len(seen) - i), 1, -1):
            found = find(" ".join(seen[i : i + size]))
            if found is not None:
                step = size
                break
        if found is None:
            found = find(seen[i])
            if found is None and len(seen[i]) >= 5:
                for base in morphy.bases(seen[i]):
                    found = find(base)
                    if found is not None:
                        break
        yield seen[i], found
        i += step


def words(text: str) -> list[str]:
    """A text's first TEXT_WORDS words as the table reads them: folded, lower
    case, letters and digits (only the text's opening is folded and read)."""
    opening = searchable(text[: TEXT_WORDS * 32]).lower().replace("_", " ")
    return [m.group() for m in islice(_WORD.finditer(opening), TEXT_WORDS)]


class Meaning:
    """A text's unit vector, and the share of the text's weight its known
    terms carry, a word the table does not know counting as the rarest:
    "what zorbling do we use" is mostly "zorbling", which its vector (that of
    "use") does not say."""

    __slots__ = ("known", "vector")

    def __init__(self, vector: list[float], known: float) -> None:
        self.vector = vector
        self.known = known


def embed(text: str) -> list[float] | None:
    """The unit vector of `text`'s known terms; None when it holds none (or
    the table is missing)."""
    found = read(text)
    return None if found is None else found.vector


def read(text: str) -> Meaning | None:
    """`text`'s vector and how much of it the table knows, longest phrase
    first; None when it holds no known term (or the table is missing)."""
    if _table().problem is not None:
        return None
    packed = terms = 0
    known = unknown = 0.0
    for word, found in walk(words(text), _vector):
        if found is None:
            # A word the table lacks counts as the rarest, unless it is a
            # letter or two ("a", the "t" of "didn't") or holds a digit ("60s").
            if len(word) > 2 and word.isalpha():
                unknown += 1.0
        else:
            known += found[0]
            packed += found[1]
            terms += 1
    if not terms:
        return None
    total = _unpacked(packed, terms, _table().dims)
    # The direction every text shares (the vocabulary's centre) is taken
    # out: left in, any two texts are close, and nearness says little.
    centre = _table().centre
    shared = sum(map(mul, total, centre))
    total = [v - shared * c for v, c in zip(total, centre, strict=True)]
    norm = sum(v * v for v in total) ** 0.5
    if norm <= 1e-9:
        return None
    return Meaning([v / norm for v in total], known / (known + unknown))


def code(vector: list[float]) -> bytes:
    """A memory's stored code: the signs of its vector, one bit an axis, then
    the vector itself as signed bytes."""
    # A unit vector's values are within [-1, 1]: no byte needs clamping.
    scaled = [round(v * 127) for v in vector]
    bits = sum(1 << d for d, v in enumerate(scaled) if v > 0)
    return bits.to_bytes(len(vector) // 8, "little") + bytes(v & 0xFF for v in scaled)


def code_size() -> int:
    """How many bytes a code of this table holds (0 when there is no table)."""
    return dims() // 8 + dims()


def signs(stored: bytes) -> int:
    """The signs part of a code, as an int for XOR and popcount."""
    return int.from_bytes(stored[: dims() // 8], "little")


def cosine(vector: list[float], stored: bytes) -> float:
    """The cosine of a unit vector and a stored code (0.0 for a code of another size)."""
    values = memoryview(stored)[len(vector) // 8 :]
    if len(values) != len(vector):
        return 0.0
    return sum(map(mul, vector, values.cast("b"))) / 127
