"""The upstream's ledger lines a clone leaves out of its store but keeps in its ledger.

A ledger line whose id names a memory of the store read beside this one (the
person's user store, for a project) is left out of the store: one id would
name two memories in this clone's brief and reads (`ledger_apply.BESIDE`).
When the line is the upstream's it is the team's, and only this clone cannot
take it: the ledger the clone writes keeps it as it stands, so a routine
commit after a person's write does not delete a teammate's memory for
everyone. (A claim left out so is left out of the ledger, as any claim not
taken is.)

Each pass that applies lines records the fingerprint of every such line it
kept (`ledger_prints.py`: not forgeable), under the `ledger_beside` setting;
a full sync records them anew. A person's write (`sync.after_write`), which
keeps only the store's lines and other clones' anchors, keeps a line of the
file that has one of them.
"""

from __future__ import annotations

from tree_ring.model import jsontext
from tree_ring.store import settings
from tree_ring.team.ledger_prints import Prints, fingerprint, fingerprints, pack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_ring.store.sql import Db
    from tree_ring.team.ledger import Line

SETTING = "ledger_beside"


class Kept:
    """The lines recorded as kept so: `raw in kept` for a raw line."""

    def __init__(self, db: Db) -> None:
        self.prints = Prints((jsontext.as_object(settings.read(db, SETTING)) or {}).get("lines"))

    def __contains__(self, raw: bytes) -> bool:
        return bool(self.prints.packed) and fingerprint(raw) in self.prints


def load(db: Db) -> Kept:
    return Kept(db)


def record(db: Db, lines: Iterable[Line], *, anew: bool = False) -> None:
    """Record `lines` as kept; with `anew` (a full sync, which reads every
    line), in place of those recorded before."""
    prints = fingerprints(line.text.encode("utf-8") for line in lines)
    if not anew:
        if not prints:
            return
        prints |= load(db).prints.all()
    value = {"lines": pack(prints) if prints else ""}
    if settings.read(db, SETTING) != value:
        settings.write(db, SETTING, value)
