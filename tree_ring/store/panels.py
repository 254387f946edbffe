"""The rows a view lists, summed by ring: the terminal UI's ring panel in one pass.

Per ring, event type and privacy: how many rows and the sums of their
confidence and salience, over whatever clause the caller built with
`live.where` (the memory list's own, at the screen's toggles and time). A
100,000-row store costs one scan, not one per figure.
"""

from __future__ import annotations

from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.live import Clause
    from tree_ring.store.sql import Db

RINGS_SQL = (
    "SELECT m.ring, m.event_type, m.sensitivity != 'normal', count(*),"
    " sum(m.confidence), sum(m.salience) FROM memories m WHERE {clause} GROUP BY 1, 2, 3"
)


class Group(Frozen):
    """The rows of one ring, event type and privacy that `clause` matches."""

    ring: str
    event_type: str
    private: bool  # a sensitivity other than normal
    count: int
    confidence: float  # the sum over the rows, not the average
    salience: float


def rings_sql(clause: Clause) -> str:
    return RINGS_SQL.format(clause=clause.sql)


def ring_groups(db: Db, clause: Clause) -> list[Group]:
    """Every (ring, event type, privacy) the rows of `clause` fall in, summed."""
    return [
        Group(
            ring=str(ring),
            event_type=str(event),
            private=bool(private),
            count=int(count),
            confidence=float(conf or 0.0),
            salience=float(sal or 0.0),
        )
        for ring, event, private, count, conf, sal in db.query(rings_sql(clause), clause.params)
    ]
