"""Related words and short phrases from general resources, read from a data file.

`relations.dat` beside this module is written by scripts/build_relations.py:
the nearest neighbours, among English words and WordNet 3.1's short phrases,
of each such term as the all-MiniLM-L6-v2 sentence model embeds it
(docs/RELATIONS.md says what each source adds; RELATIONS-NOTICE.txt beside
it holds the sources' licences). No model runs here: the file is plain text.

The file is one header line, then one line per term in byte order of the
term:

    tree-ring relations 1 <body bytes> <crc32 of the body, 8 hex digits>
    <term>\\t<related>:<percent>|<related>:<percent>|...

A term is one to three words of `\\w` characters, lower case, joined by single
spaces, as a question's words are; each related term is another such term,
strongest first, with its weight in whole percent (1-100). The relation is
symmetric: b is related to a with the same weight as a to b, unless b already
lists a full row of stronger ones.

The file is read on the first lookup, never at import; a lookup then bisects
the bytes for its line and parses only that line, so no table of every term
is built. A missing, truncated or foreign file gives no relations (recall
works on without them) and `problem()` says what is wrong. The checksum is
verified by `problem()` (which `doctor` calls), not by a lookup: its pass
over the whole file would cost every recall a millisecond, more than all of
its lookups, and a lookup keeps its contract whatever the bytes hold.
"""

from __future__ import annotations

import mmap
import os
import zlib
from functools import lru_cache

from tree_ring.model import morphy

# pathlib is not imported: it costs more than the whole first lookup.
PATH = os.path.join(os.path.dirname(__file__), "relations.dat")
MAGIC = b"tree-ring relations"
VERSION = 1
# A row holds at most this many related terms (the builder keeps no more).
LIMIT = 12


class _Table:
    """The file's bytes and where its body lies, or the reason it has none."""

    __slots__ = ("body", "checksum", "data", "problem")

    def __init__(
        self, data: bytes | mmap.mmap, body: int, problem: str | None, checksum: bytes = b""
    ) -> None:
        self.data = data
        self.body = body
        self.problem = problem
        self.checksum = checksum  # the header's crc32 of the body, 8 hex digits


def _read(path: str) -> _Table:
    try:
        with open(path, "rb") as handle:
            # Mapped, not read: copying 2 MB into a new buffer costs the first
            # lookup twice what the checksum's pass over the mapped pages does.
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except ValueError:  # an empty file cannot be mapped
        return _Table(b"", 0, f"{path} is not a relations file; reinstall Tree Ring")
    except OSError as exc:
        return _Table(b"", 0, f"cannot read {path}: {exc.strerror or exc}; reinstall Tree Ring")
    end = data.find(b"\n")
    fields = data[:end].split(b" ") if end > 0 else []
    if len(fields) != 5 or b" ".join(fields[:2]) != MAGIC:
        return _Table(b"", 0, f"{path} is not a relations file; reinstall Tree Ring")
    if fields[2] != str(VERSION).encode():
        return _Table(
            b"",
            0,
            f"{path} has version {fields[2].decode(errors='replace')}, "
            f"this Tree Ring reads version {VERSION}; reinstall Tree Ring",
        )
    if fields[3] != str(len(data) - end - 1).encode():
        return _Table(b"", 0, _damaged(path))
    return _Table(data, end + 1, None, fields[4])


def _damaged(path: str) -> str:
    return f"{path} is truncated or damaged; reinstall Tree Ring"


@lru_cache(maxsize=1)
def _table() -> _Table:
    return _read(PATH)


def problem() -> str | None:
    """Why the data file gives no relations or unsound ones (missing,
    truncated, another version, a body its checksum does not match), or None
    when it is sound. Reads the whole file once."""
    table = _table()
    if table.problem is None and table.checksum != b"%08x" % zlib.crc32(
        memoryview(table.data)[table.body :]
    ):
        return _damaged(PATH)
    return table.problem


def _row(table: _Table, key: bytes) -> bytes | None:
    """The related part of `key`'s line, found by bisecting the sorted body."""
    data = table.data
    lo, hi = table.body, len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        # The start of the line holding `mid`: lo is always a line's start, and
        # the byte before it a newline, so the search never goes below lo.
        start = data.rfind(b"\n", lo - 1, mid) + 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        tab = data.find(b"\t", start, end)
        tab = end if tab < 0 else tab
        term = data[start:tab]
        if term == key:
            return data[tab + 1 : end]
        if term < key:
            lo = end + 1
        else:
            hi = start
    return None


def _forms(term: str) -> list[str]:
    """`term`, then the forms WordNet's rules detach from its last word."""
    head, _, last = term.rpartition(" ")
    prefix = f"{head} " if head else ""
    return [term, *(prefix + base for base in morphy.bases(last))]


@lru_cache(maxsize=4096)
def related(term: str) -> tuple[tuple[str, float], ...]:
    """Terms related to `term` (one lower-case word, or up to three joined by
    single spaces), each with a weight in (0, 1], strongest first, at most
    LIMIT, never `term` itself; () for a term the file does not know. A word
    the file does not list is looked up by the forms WordNet's rules detach
    ("brokers" as "broker")."""
    table = _table()
    if table.problem is not None:
        return ()
    for form in _forms(term):
        row = _row(table, form.encode(errors="replace"))
        if row is None:
            continue
        return _parse(row, term)
    return ()


def _parse(row: bytes, term: str) -> tuple[tuple[str, float], ...]:
    """`other:percent|...` as (other, weight) pairs without `term`; () for a
    row the builder could not have written (a damaged file, or one written
    by hand or by another tool)."""
    found: list[tuple[str, float]] = []
    try:
        for item in row.decode().split("|"):
            other, _, percent = item.rpartition(":")
            weight = int(percent)
            if other and other != term and 0 < weight <= 100:
                found.append((other, weight / 100))
    except ValueError:
        return ()
    found.sort(key=lambda pair: -pair[1])
    return tuple(found[:LIMIT])
