"""List and show: the project's memories by id and by time, for the CLI and MCP alike.

Both read through `live.visible`, the clause recall uses. For an agent
(`whole_project` False) that is the project's shared scopes plus the caller's
own partitions, in SQL before the LIMIT, so no number of rows in other
partitions can push a visible one out of a page. A row outside them is "no
memory ID", worded exactly as an id that does not exist, so a read never tells
an agent that another partition holds something. A person sees every partition.

A listing of one store leaves out what the other store a project reads
forgot (`read/forgotten_here.py`), as the brief and recall do: the rows are
read in the listing's order a batch at a time and the hidden ones dropped
before the page is cut, so no number of them takes the place of a visible
row, and the count is of the rows left.
"""

from __future__ import annotations

from tree_ring.store import listing, live, rows
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db


class Page:
    """One page of a listing and how many rows matched in all; with `cap`,
    counted no further than one past it (a total over `cap`: "more than")."""

    __slots__ = ("cap", "memories", "total")

    def __init__(self, memories: list[Memory], total: int, cap: int | None = None) -> None:
        self.memories = memories
        self.total = total
        self.cap = cap

    @property
    def more_than(self) -> int | None:
        """The cap the total passed, or None when the total is exact."""
        return self.cap if self.cap is not None and self.total > self.cap else None


def list_page(
    store: Store,
    identity: Identity,
    view: View,
    *,
    whole_project: bool,
    limit: int,
    offset: int = 0,
    scope: str | None = None,
    ring: str | None = None,
    trust: str | None = None,
    origin: str | None = None,
    since: str | None = None,
    before: str | None = None,
    session: str | None = None,
    agent_profile: str | None = None,
    count_cap: int | None = None,
    source_type: str | None = None,
    total: int | None = None,
    forgotten: ForgottenHere | None = None,
) -> Page:
    """`limit` live rows the caller may see from `offset`, newest first, and
    the count of every row the same clause matches (the page's "of TOTAL").
    `trust` narrows to one state, `origin` to one writer, `since` to rows
    recorded at or after it, `before` to rows recorded before it, `session` to
    rows written in that session, `agent_profile` to one agent's, `source_type`
    to one kind of source (the terminal UI's evidence view). `count_cap`: count
    no further than one past it (an exact count of a hundred thousand rows reads
    them all; "more than CAP" pages as well). `total`: the count of these same
    rows where the caller has made it already (the terminal UI's ring panel, in
    its one pass), so the page runs no second count. `forgotten`: what the
    other store forgot, left out before the page is cut (None: nothing); the
    rows left are then counted no further than `count_cap`, or than
    `COUNTED_PAST_PAGE` past the page when the caller set none."""
    clause = live.where(identity, view, scope=scope, whole_project=whole_project)
    params: dict[str, Any] = {**clause.params, "limit": limit, "offset": offset}
    filters: list[str] = []
    named = (("ring", ring), ("trust", trust), ("origin", origin), ("since", since))
    for column, value in (
        *named,
        ("before", before),
        ("session", session),
        ("agent_profile", agent_profile),
        ("source_type", source_type),
    ):
        if value:
            filters.append(column)
            params[column] = value
    implied = listing.hints(trust, origin)
    if forgotten is not None:
        return _visible_page(store, forgotten, clause, tuple(filters), params, implied, count_cap)
    found = listing.page_rows(store.db, clause, tuple(filters), params, implied=implied)
    from tree_ring.govern import reasons

    # Each review reason as a read may show it (`govern/reasons.shown`).
    memories = list(reasons.rows_shown(store.db, found))
    if len(found) < limit and (found or not offset):
        # The page ends before its limit: it holds the last rows, so their
        # count is known without a second pass over the clause.
        return Page(memories, offset + len(found))
    if total is None:
        total = listing.count(
            store.db, clause, tuple(filters), params, implied=implied, count_cap=count_cap
        )
    return Page(memories, total, count_cap)


# Rows read at a time past the page, when hidden rows must be counted out.
BATCH = 1_000
# How far past the page hidden rows are counted out, when the caller set no
# cap: an exact count reads every row's claims (about 0.1 ms a row), so a
# hundred-thousand-row project's list would take seconds; past this it is
# "more than".
COUNTED_PAST_PAGE = 1_000


def _visible_page(
    store: Store,
    forgotten: ForgottenHere,
    clause: live.Clause,
    filters: tuple[str, ...],
    params: dict[str, Any],
    implied: tuple[str, ...],
    count_cap: int | None,
) -> Page:
    """The page of the rows `forgotten` leaves, and their count.

    The rows are read in the listing's order from the first, in batches that
    grow, until the page's last visible row is read; then on to the end (or
    past `count_cap` visible rows), counting, as the count must be of what
    is shown. Each batch costs one lookup of its keys (`ForgottenHere.hidden`)."""
    from tree_ring.govern import reasons

    limit, offset = int(params["limit"]), int(params["offset"])
    wanted = offset + limit
    if count_cap is None:
        count_cap = wanted + COUNTED_PAST_PAGE
    kept: list[Any] = []  # the visible rows up to the page's last
    counted = read = 0
    size = max(wanted, 1)
    while True:
        batch = listing.page_rows(
            store.db, clause, filters, {**params, "limit": size, "offset": read}, implied=implied
        )
        read += len(batch)
        gone = forgotten.hidden([rows.from_row(row) for row in batch])
        shown = [row for row in batch if row["id"] not in gone]
        counted += len(shown)
        kept += shown[: max(wanted - len(kept), 0)]
        if len(batch) < size or (len(kept) >= wanted and counted > count_cap):
            break
        # Past the page the rest is only counted, a batch at a time, no
        # further than one past the cap.
        size = (
            max(min(BATCH, count_cap + 1 - counted), 1)
            if len(kept) >= wanted
            else min(size * 2, BATCH)
        )
    return Page(
        list(reasons.rows_shown(store.db, kept[offset:])), min(counted, count_cap + 1), count_cap
    )


def show(db: Db, identity: Identity, memory_id: str, *, whole_project: bool) -> Memory:
    """One row, in any state, if the caller may see its partition."""
    if whole_project:
        return rows.get(db, memory_id)
    row = listing.visible_row(db, identity, memory_id)
    if row is None:
        raise rows.not_found(memory_id)
    return rows.from_row(row)
