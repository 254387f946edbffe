"""List and show: the project's memories by id and by time, for the CLI and MCP alike.

Both read through `live.visible`, the clause recall uses. For an agent
(`whole_project` False) that is the project's shared scopes plus the caller's
own partitions, in SQL before the LIMIT, so no number of rows in other
partitions can push a visible one out of a page. A row outside them is "no
memory ID", worded exactly as an id that does not exist, so a read never tells
an agent that another partition holds something. A person sees every partition.
"""

from __future__ import annotations

from tree_ring.store import live, rows
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db


# A filter's SQL when it is not `column = :column`.
_FILTER_SQL = {
    "since": " AND m.created_at >= :since",
    "session": " AND (m.session_id = :session OR m.origin_session = :session)",
}


def list_sql(clause: live.Clause, filters: tuple[str, ...], *, offset: bool = False) -> str:
    extra = _filtered(filters)
    return (
        f"SELECT m.* FROM memories m WHERE {clause.sql}{extra}"
        " ORDER BY m.created_at DESC, m.id DESC LIMIT :limit"
        + (" OFFSET :offset" if offset else "")
    )


def _filtered(filters: tuple[str, ...]) -> str:
    return "".join(_FILTER_SQL.get(column, f" AND m.{column} = :{column}") for column in filters)


def count_sql(clause: live.Clause, filters: tuple[str, ...]) -> str:
    extra = _filtered(filters)
    return f"SELECT count(*) FROM memories m WHERE {clause.sql}{extra}"


class Page:
    """One page of a listing and how many rows matched in all."""

    __slots__ = ("memories", "total")

    def __init__(self, memories: list[Memory], total: int) -> None:
        self.memories = memories
        self.total = total


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
    session: str | None = None,
    agent_profile: str | None = None,
    source_type: str | None = None,
    total: int | None = None,
) -> Page:
    """`limit` live rows the caller may see from `offset`, newest first, and
    the count of every row the same clause matches (the page's "of TOTAL").
    `trust` narrows to one state, `origin` to one writer, `since` to rows
    recorded at or after it, `session` to rows written in that session,
    `agent_profile` to one agent's, `source_type` to one kind of source (the
    terminal UI's evidence view). `total`: the count of these same rows where
    the caller has made it already (the terminal UI's ring panel, in its one
    pass), so the page runs no second count."""
    clause = live.where(identity, view, scope=scope, whole_project=whole_project)
    params: dict[str, Any] = {**clause.params, "limit": limit, "offset": offset}
    filters: list[str] = []
    named = (("ring", ring), ("trust", trust), ("origin", origin), ("since", since))
    for column, value in (
        *named,
        ("session", session),
        ("agent_profile", agent_profile),
        ("source_type", source_type),
    ):
        if value:
            filters.append(column)
            params[column] = value
    found = store.query(list_sql(clause, tuple(filters), offset=True), params)
    memories = [rows.from_row(row) for row in found]
    if len(found) < limit and (found or not offset):
        # The page ends before its limit: it holds the last rows, so their
        # count is known without a second pass over the clause.
        return Page(memories, offset + len(found))
    if total is None:
        total = int(store.db.scalar(count_sql(clause, tuple(filters)), params) or 0)
    return Page(memories, total)


SHOW_SQL = "SELECT m.* FROM memories m WHERE m.id = :id AND {clause}"


def show(db: Db, identity: Identity, memory_id: str, *, whole_project: bool) -> Memory:
    """One row, in any state, if the caller may see its partition."""
    if whole_project:
        return rows.get(db, memory_id)
    clause = live.visible(identity)
    found = db.execute(SHOW_SQL.format(clause=clause.sql), {**clause.params, "id": memory_id})
    row = found.fetchone()
    if row is None:
        raise rows.not_found(memory_id)
    return rows.from_row(row)
