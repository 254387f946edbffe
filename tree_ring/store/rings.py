"""What the rings picture reads: live counts per ring and trust, and each ring's newest marks.

Both statements build their WHERE from `live.where`, the one liveness
predicate, and add their own terms after it, before any LIMIT. The rings show
pending and disputed rows too (hollow), as the review queue has them. A person
sees every partition (`whole_project`); an agent what its recall sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_ring.model.record import RINGS
from tree_ring.store import live
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

UNREVIEWED = ("pending", "disputed")


@dataclass(frozen=True)
class Mark:
    """One memory drawn on the rings: enough for its place, its look and its tooltip."""

    id: str
    ring: str
    trust: str
    created_at: str
    summary: str


@dataclass(frozen=True)
class RingCount:
    ring: str
    total: int
    by_trust: dict[str, int]
    salience: float  # averages over the ring's live rows (0 when it has none)
    confidence: float


@dataclass(frozen=True)
class Rings:
    counts: dict[str, RingCount]
    marks: dict[str, list[Mark]]  # newest first, at most the cap per ring
    cap: int
    hidden: int = 0  # live rows left out for their sensitivity

    def total(self) -> int:
        return sum(c.total for c in self.counts.values())


def ring_view(view: View) -> View:
    """The rings show pending and disputed rows too (hollow), as the queue has them."""
    return View(view.as_of, view.valid_at, view.include_sensitive, True, False)


def counts_sql(wide: live.Clause, shown: str) -> str:
    """One pass over every live row, sensitive ones too, counting what is shown
    and what is hidden. Grouped by ring alone, the order of the index that holds
    every column it reads (`memories_live`), so the count stays in the index and
    sorts nothing; trust and sensitivity are split by sums."""
    return (
        f"SELECT m.ring, count(*), sum(NOT ({shown})),"
        + "".join(f" sum(({shown}) AND m.trust = '{trust}')," for trust in UNREVIEWED)
        + f" total(CASE WHEN {shown} THEN m.salience END),"
        f" total(CASE WHEN {shown} THEN m.confidence END)"
        f" FROM memories m WHERE {wide.sql} GROUP BY m.ring ORDER BY m.ring"
    )


def marks_sql(clause: live.Clause) -> str:
    return (
        "SELECT m.id, m.ring, m.trust, m.created_at, m.summary FROM memories m"
        f" WHERE {clause.sql} AND m.ring = :ring ORDER BY m.created_at DESC, m.id DESC LIMIT :cap"
    )


def rings(db: Db, identity: Identity, view: View, *, cap: int, whole_project: bool = True) -> Rings:
    """Live counts per ring and trust state, and the newest `cap` marks of each ring."""
    view = ring_view(view)
    clause = live.where(identity, view, whole_project=whole_project)
    wide = live.where(
        identity, View(view.as_of, view.valid_at, True, True, False), whole_project=whole_project
    )
    shown = "1" if view.include_sensitive else "m.sensitivity = 'normal'"
    counts: dict[str, RingCount] = {}
    sums: dict[str, tuple[int, float, float]] = {}
    by_trust: dict[str, dict[str, int]] = {ring: {} for ring in RINGS}
    hidden = 0
    for ring, every, concealed, *waiting, salience, confidence in db.query(
        counts_sql(wide, shown), wide.params
    ):
        hidden += int(concealed)
        if ring not in by_trust:
            continue  # a value no ring has (a hand-edited row): not drawn
        n = int(every) - int(concealed)
        # The wide clause admits only these three trust states.
        split = {"accepted": n - sum(int(w) for w in waiting)}
        split.update(zip(UNREVIEWED, (int(w) for w in waiting), strict=True))
        by_trust[ring] = {t: split[t] for t in sorted(split) if split[t]}
        sums[ring] = (n, salience, confidence)
    for ring in RINGS:
        n, salience, confidence = sums.get(ring, (0, 0.0, 0.0))
        counts[ring] = RingCount(
            ring,
            n,
            by_trust[ring],
            salience / n if n else 0.0,
            confidence / n if n else 0.0,
        )
    marks: dict[str, list[Mark]] = {}
    sql = marks_sql(clause)
    for ring in RINGS:
        params = {**clause.params, "ring": ring, "cap": cap}
        marks[ring] = [Mark(*row) for row in db.query(sql, params)] if counts[ring].total else []
    return Rings(counts, marks, cap, hidden)
