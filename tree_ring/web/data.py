"""What the pages and the report read: counts, marks and pages of memories.

Every read of memories builds its WHERE clause from `live.where`, the one
liveness predicate, and adds its own filters after it in the same SQL, before
any LIMIT: a page of fifty is the first fifty rows that pass every filter,
however many rows ahead of them do not. A person sees every partition
(`whole_project`), as `list` and `show` show it to them; an agent that
starts the viewer sees what its recall sees.

Nothing here returns forgotten text: a redacted row's text is gone from the
row itself, and a rejected row (its content tombstoned) is never among the
live rows; `withheld` says which rows a page must not show the text of.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_ring.model.record import RINGS
from tree_ring.review import inbox
from tree_ring.store import live, rows
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db

# The bands from the core out; scars and seeds are drawn across and outside them.
BANDS = ("heartwood", "inner", "outer", "cambium")
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


def rings(db: Db, identity: Identity, view: View, *, cap: int, whole_project: bool = True) -> Rings:
    """Live counts per ring and trust state, and the newest `cap` marks of each ring."""
    view = ring_view(view)
    clause = live.where(identity, view, whole_project=whole_project)
    # One pass over every live row, sensitive ones too, counts what is shown
    # and what is hidden. Grouped by ring alone, the order of the index that
    # holds every column it reads (`memories_live`), so the count stays in the
    # index and sorts nothing; trust and sensitivity are split by sums.
    wide = live.where(
        identity, View(view.as_of, view.valid_at, True, True, False), whole_project=whole_project
    )
    shown = "1" if view.include_sensitive else "m.sensitivity = 'normal'"
    found = db.query(
        f"SELECT m.ring, count(*), sum(NOT ({shown})),"
        + "".join(f" sum(({shown}) AND m.trust = '{trust}')," for trust in UNREVIEWED)
        + f" total(CASE WHEN {shown} THEN m.salience END),"
        f" total(CASE WHEN {shown} THEN m.confidence END)"
        f" FROM memories m WHERE {wide.sql} GROUP BY m.ring ORDER BY m.ring",
        wide.params,
    )
    counts: dict[str, RingCount] = {}
    sums: dict[str, tuple[int, float, float]] = {}
    by_trust: dict[str, dict[str, int]] = {ring: {} for ring in RINGS}
    hidden = 0
    for ring, every, concealed, *waiting, salience, confidence in found:
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
    sql = (
        "SELECT m.id, m.ring, m.trust, m.created_at, m.summary FROM memories m"
        f" WHERE {clause.sql} AND m.ring = :ring ORDER BY m.created_at DESC, m.id DESC LIMIT :cap"
    )
    for ring in RINGS:
        params = {**clause.params, "ring": ring, "cap": cap}
        marks[ring] = [Mark(*row) for row in db.query(sql, params)] if counts[ring].total else []
    return Rings(counts, marks, cap, hidden)


@dataclass(frozen=True)
class Filters:
    """What the memories page narrows to; every one is applied in SQL."""

    ring: str | None = None
    trust: str | None = None  # None: accepted; "any": accepted, pending and disputed
    origin: str | None = None
    scope: str | None = None
    agent_profile: str | None = None
    created_from: str | None = None  # record time, inclusive
    created_to: str | None = None  # record time, exclusive


def memories_view(view: View, filters: Filters) -> View:
    unreviewed = filters.trust in ("any", *UNREVIEWED)
    return View(view.as_of, view.valid_at, view.include_sensitive, unreviewed, False)


# A filter to rows that wait, or to an agent's rows, also names the condition
# of the index that holds only those rows (the review queue's, the inbox's):
# SQLite reads a partial index only for a statement that names its condition,
# and without it a rare value is looked for through every live row.
WAITING = "m.trust IN ('pending', 'disputed')"


def page_sql(clause: live.Clause, filters: Filters) -> tuple[str, dict[str, Any]]:
    """The WHERE of a page of memories: the live clause, then each filter given."""
    params: dict[str, Any] = dict(clause.params)
    parts = [clause.sql]
    if filters.trust in UNREVIEWED:
        parts.append(WAITING)
    if filters.origin in inbox.AGENT_ORIGINS:
        parts.append(inbox.AGENT_ROWS)
    for column, value in (
        ("ring", filters.ring),
        ("origin", filters.origin),
        ("agent_profile", filters.agent_profile),
    ):
        if value:
            parts.append(f"m.{column} = :f_{column}")
            params[f"f_{column}"] = value
    if filters.trust in UNREVIEWED or filters.trust == "accepted":
        parts.append("m.trust = :f_trust")
        params["f_trust"] = filters.trust
    if filters.created_from:
        parts.append("m.created_at >= :f_from")
        params["f_from"] = filters.created_from
    if filters.created_to:
        parts.append("m.created_at < :f_to")
        params["f_to"] = filters.created_to
    return " AND ".join(parts), params


COUNT_CAP = 1000


@dataclass(frozen=True)
class Page:
    memories: list[Memory]
    total: int  # the rows that passed the filters, before paging (COUNT_CAP + 1: more)
    offset: int
    limit: int


def memories(
    db: Db,
    identity: Identity,
    view: View,
    filters: Filters,
    *,
    offset: int,
    limit: int,
    whole_project: bool = True,
) -> Page:
    """One page of live memories, newest first, and how many passed in all."""
    clause = live.where(
        identity, memories_view(view, filters), scope=filters.scope, whole_project=whole_project
    )
    where, params = page_sql(clause, filters)
    # Counted up to one past COUNT_CAP: an exact count of a hundred thousand
    # rows reads them all, and "more than 1,000" pages as well.
    total = int(
        db.scalar(
            f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {where} LIMIT :p_cap)",
            {**params, "p_cap": COUNT_CAP + 1},
        )
    )
    found = db.query(
        f"SELECT m.* FROM memories m WHERE {where}"
        " ORDER BY m.created_at DESC, m.id DESC LIMIT :p_limit OFFSET :p_offset",
        {**params, "p_limit": limit, "p_offset": offset},
    )
    return Page([rows.from_row(row) for row in found], total, offset, limit)


def withheld(memory: Memory) -> str | None:
    """Why a page shows none of this row's text, or None when it may."""
    if memory.redacted_at is not None:
        return "redacted: its text is forgotten"
    if memory.trust == "rejected":
        return "rejected in review: its content is tombstoned"
    return None


def tombstone_counts(db: Db, project: str, until: str | None = None) -> dict[str, tuple[int, int]]:
    """Per kind (forgotten, rejected): how many memories, and how many content hashes
    (one per claim of each); counts only, never a reason or any text."""
    sql = (
        "SELECT kind, count(DISTINCT memory_id), count(*) FROM content_tombstones"
        " WHERE project = :project"
    )
    params: dict[str, Any] = {"project": project}
    if until is not None:
        sql += " AND created_at <= :until"
        params["until"] = until
    found = db.query(sql + " GROUP BY kind ORDER BY kind", params)
    return {kind: (int(memories), int(hashes)) for kind, memories, hashes in found}


def activity(db: Db, *, limit: int, until: str | None = None) -> list[dict[str, Any]]:
    """The newest audit entries, oldest first: when, what, which id, by whom; no detail."""
    sql = "SELECT seq, at, action, target, actor, origin FROM audit_log"
    params: dict[str, Any] = {"limit": limit}
    if until is not None:
        sql += " WHERE at <= :until"
        params["until"] = until
    found = db.query(sql + " ORDER BY seq DESC LIMIT :limit", params)
    return [dict(row) for row in reversed(found)]
