"""The team ledger and the store's side of it, merged a line at a time.

After a person's write the ledger takes the store's shared state
(`sync.after_write`), and an import of a hundred thousand rows is such a
write. Held whole, both sides (every line as an object, the file's text and
the new text) grew with the store: some 400 MB after an import of 40,000
rows. Both sides are sorted by the ledger's key, the file as it is written
(`ledger.render`) and the store as it is read (by id), so they are merged as
two sorted streams into a temporary file, which replaces the ledger only when
its bytes differ. The rule is the merge's (`ledger.merge`): for each key the
greater line wins. A ledger whose keys are out of order (edited by hand) raises
`Unsorted`, for the caller to merge it whole.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from tree_ring.model import project
from tree_ring.model.errors import Conflict
from tree_ring.team import ledger
from tree_ring.team.ledger import Line


class Unsorted(Exception):
    """The ledger's keys are not in order: it cannot be merged as a stream."""


def merged(
    pieces: Iterable[bytes],
    mine: Iterable[Line],
    check: Callable[[bytes], Line | None],
    carried: list[bytes] | None = None,
    carries: Callable[[bytes], bool] = ledger.carries,
) -> Iterator[Line]:
    """The winning line of each key over the ledger's lines (`pieces`, as read)
    and the store's (`mine`, one per key, in key order), in key order.

    A ledger line that is byte for byte the store's line for its key came from
    the store, which checked it on the way in; any other is `check`ed (None:
    left out, as a sync skips it). On equal rank the ledger's line stands. A
    line of a record this version does not know that a rewrite carries
    (`ledger.carries`) goes, as it stands, into `carried`, in its order and
    outside the order of keys (`carries` says which, by default as the
    merge driver does); any other line it cannot read is left out. A
    text merge's conflict markers raise Conflict; a key lower than the one
    before it raises Unsorted."""
    store = iter(mine)
    held = next(store, None)
    for key, group in _by_key(pieces, [] if carried is None else carried, carries):
        while held is not None and held.key < key:
            yield held
            held = next(store, None)
        own = held if held is not None and held.key == key else None
        best: Line | None = None
        for piece, text in group:
            line = own if own is not None and own.text == text else check(piece)
            if line is not None and (best is None or line.rank > best.rank):
                best = line
        if own is not None:
            held = next(store, None)
            if best is None or own.rank > best.rank:
                best = own
        if best is not None:
            yield best
    while held is not None:
        yield held
        held = next(store, None)


def _by_key(
    pieces: Iterable[bytes], carried: list[bytes], carries: Callable[[bytes], bool]
) -> Iterator[tuple[str, list[tuple[bytes, str]]]]:
    """The ledger's lines grouped by key, in order: (key, [(piece, its text)]);
    the lines a rewrite carries into `carried`, the other unreadable ones left out."""
    last = ""
    group: list[tuple[bytes, str]] = []
    for piece in pieces:
        if not piece.strip():
            continue
        text = piece.decode("utf-8", "replace")
        if ledger.has_markers(text):
            raise Conflict("the ledger holds conflicts from a text merge")
        key = _key(piece)
        if key is None:
            if carries(piece):  # a sync reports it; the rewrite keeps it as it stands
                carried.append(piece)
            continue
        if key < last:
            raise Unsorted(key)
        if key != last and group:
            yield last, group
            group = []
        last = key
        group.append((piece, text))
    if group:
        yield last, group


def _key(piece: bytes) -> str | None:
    """The line's key; None for a line of no record this version knows."""
    found = ledger.record_of(piece, ledger.RECORDS)
    return None if found is None else found[0]


def write_if_changed(
    path: Path, lines: Iterable[Line], old: Any, carried: list[bytes] | None = None
) -> tuple[bool, str, int]:
    """Write `lines` to a temporary file beside `path`, then the lines
    `carried` as they stand (`ledger.carry`: complete once `lines` is), and
    put it in its place unless its bytes hash as `old` (the hash of the
    file's bytes, complete once `lines` is), which leaves the file as it was.
    (written, "sha256:...", the byte the carried lines start at)."""
    fd, name = project.temporary_beside(path)
    temporary = Path(name)
    new = hashlib.sha256()
    at = 0
    try:
        with open(fd, "wb") as out:
            for line in lines:
                data = (line.text + "\n").encode("utf-8")
                out.write(data)
                new.update(data)
                at += len(data)
            tail = ledger.carry(carried or [])
            out.write(tail)
            new.update(tail)
        digest = "sha256:" + new.hexdigest()
        if new.digest() == old.digest():
            temporary.unlink()
            return False, digest, at
        os.replace(temporary, path)
        return True, digest, at
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
