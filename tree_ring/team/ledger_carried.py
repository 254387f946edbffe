"""The lines of records this version does not know that the ledger carries.

A newer Tree Ring's line is carried through every rewrite as it stands
(`ledger.carries`), and what a rewrite carries is committed with the code.
So a line is carried only when someone the store believes vouches for it:
the upstream's ledger holds it, or the store carried it before (it came
from the upstream once, and a write since kept it). A line only a
working-tree edit, a local commit or a merged local branch added is a
claim, as any other line of theirs is: left out of the ledger the store
writes, and counted in one note (an agent can add a hundred thousand such
lines, which every teammate's clone would then carry for good).

The store records (the `ledger_carried` setting) the fingerprint of each
line its last write carried (`ledger_prints.py`: not forgeable), and, in the
small `ledger` setting a write rewrites anyway, where those lines stand in
the file it wrote: the byte at which they start (they are written after
every other line, `ledger.carry`), the hash of their bytes, and the guard
and forgets they were judged under. A person's write
over a ledger still as the store left it then copies those bytes through
without reading a line of them: its cost does not grow with the lines it
carries unchanged. A line whose bytes, guard or forgets moved is read again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from tree_ring.model import jsontext
from tree_ring.store import settings
from tree_ring.store.sql import Db
from tree_ring.team.ledger_prints import Prints, fingerprint, fingerprints, pack
from tree_ring.team.ledger_report import Skipped

SETTING = "ledger_carried"
STATE = "ledger"  # sync.SETTING: the tail's place is kept under its TAIL key
TAIL = "carried"
# How many lines a note names before it counts the rest.
NAMED = 3


class Unvouched(Exception):
    """A person's write found a line of an unknown record the store did not
    carry before: a sync (which asks the upstream) decides whether it stays."""


class Carried:
    """What the store's last write of the ledger carried: the lines'
    fingerprints (`SETTING`, read only once a line is asked about) and
    where they stand (`TAIL`)."""

    def __init__(self, db: Db) -> None:
        self._db: Db | None = db
        self._prints = Prints(None)
        state = jsontext.as_object(settings.read(db, STATE)) or {}
        value = jsontext.as_object(state.get(TAIL)) or {}
        at, tail = value.get("at"), value.get("tail")
        self.at = at if isinstance(at, int) and not isinstance(at, bool) else None
        self.tail = tail if isinstance(tail, str) else None
        self.judged = (value.get("guard"), value.get("forgets"))

    def vouched(self, piece: bytes) -> bool:
        """Whether the store carried this line before."""
        if self._db is not None:
            stored = jsontext.as_object(settings.read(self._db, SETTING)) or {}
            self._prints, self._db = Prints(stored.get("lines")), None
        return self._prints.known and fingerprint(piece) in self._prints

    def tail_holds(self, pieces: list[bytes], guard: str, forgets: str) -> bool:
        """Whether `pieces` (the file's lines from byte `at` to its end) are
        the lines the store carried there, judged by this guard and forgets."""
        if self.tail is None or self.judged != (guard, forgets):
            return False
        return hashlib.sha256(b"\n".join(pieces)).hexdigest() == self.tail


def load(db: Db) -> Carried:
    return Carried(db)


def record(
    db: Db, lines: Iterable[bytes], at: int | None, guard: str | None, forgets: str | None
) -> None:
    """Keep what a write carried: `lines`, written from byte `at` (None: no
    place is kept, so the next write reads them)."""
    kept = list(dict.fromkeys(lines))
    value: dict[str, object] = {"lines": pack(fingerprints(kept))}
    if settings.read(db, SETTING) != value:
        settings.write(db, SETTING, value)
    place: dict[str, object] | None = None
    if at is not None and guard is not None and forgets is not None:
        tail = b"".join(raw + b"\n" for raw in kept)
        place = {"at": at, "tail": hashlib.sha256(tail).hexdigest()}
        place.update(guard=guard, forgets=forgets)
    _place(db, place)


def moved(db: Db, before: Carried, at: int) -> None:
    """The same carried lines, now from byte `at` (a write added lines before them)."""
    if at != before.at:
        place = {"at": at, "tail": before.tail, "guard": before.judged[0]}
        _place(db, {**place, "forgets": before.judged[1]})


def _place(db: Db, place: dict[str, object] | None) -> None:
    state = dict(jsontext.as_object(settings.read(db, STATE)) or {})
    if state.get(TAIL) != place:
        state[TAIL] = place
        settings.write(db, STATE, state)


def forgets_print(db: Db, project_id: str) -> str:
    """A hash of what `project_id`'s forgets tombstoned: a carried line is
    read again for forgotten words when this moves."""
    from tree_ring.store import tombstones

    digest = hashlib.sha256()
    for content_hash in tombstones.forgotten_hashes(db, project_id):
        digest.update(content_hash.encode() + b"\n")
    return digest.hexdigest()[:32]


def notes(kept: list[Skipped], claimed: list[Skipped]) -> list[str]:
    """One line each for the lines of unknown records kept and those left
    out as claims, with the first few named by line and record."""
    said: list[str] = []
    if kept:
        said.append(
            f"{len(kept):,} line(s) of records this version does not know kept as they "
            f"stand ({_named(kept)})"
        )
    if claimed:
        said.append(
            f"{len(claimed):,} line(s) of records this version does not know left out of "
            "the ledger: not the upstream's, nor carried before (a working-tree edit, a "
            f"local commit or a local branch's claim) ({_named(claimed)})"
        )
    return said


def _named(lines: list[Skipped]) -> str:
    shown = ", ".join(f"line {s.line}: {s.reason.split(';')[0]}" for s in lines[:NAMED])
    return shown + (", ..." if len(lines) > NAMED else "")
