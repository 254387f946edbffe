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
    "before": " AND m.created_at < :before",
    "session": " AND (m.session_id = :session OR m.origin_session = :session)",
}

# A filter to rows that wait, or to an agent's rows, also names the condition
# of the partial index that holds only those rows (`memories_waiting`,
# `memories_inbox` in store/schema.py), in its very words: SQLite reads a
# partial index only for a statement that names its condition, and without it
# a rare value is looked for through every live row.
WAITING = ("pending", "disputed")
WAITING_ROWS = "m.trust IN ('pending', 'disputed')"
AGENT_ORIGINS = ("claude-code", "codex", "agent")
AGENT_ROWS = f"m.origin IN ({', '.join(repr(origin) for origin in AGENT_ORIGINS)})"


def hints(trust: str | None, origin: str | None) -> tuple[str, ...]:
    """The partial indexes' conditions a filter to `trust` and `origin` implies."""
    return (
        *((WAITING_ROWS,) if trust in WAITING else ()),
        *((AGENT_ROWS,) if origin in AGENT_ORIGINS else ()),
    )


def list_sql(
    clause: live.Clause,
    filters: tuple[str, ...],
    *,
    offset: bool = False,
    implied: tuple[str, ...] = (),
) -> str:
    extra = _filtered(filters, implied)
    return (
        f"SELECT m.* FROM memories m WHERE {clause.sql}{extra}"
        " ORDER BY m.created_at DESC, m.id DESC LIMIT :limit"
        + (" OFFSET :offset" if offset else "")
    )


def _filtered(filters: tuple[str, ...], implied: tuple[str, ...] = ()) -> str:
    return "".join(f" AND {term}" for term in implied) + "".join(
        _FILTER_SQL.get(column, f" AND m.{column} = :{column}") for column in filters
    )


def count_sql(
    clause: live.Clause,
    filters: tuple[str, ...],
    *,
    capped: bool = False,
    implied: tuple[str, ...] = (),
) -> str:
    """The count of the rows a listing matches; `capped`: up to `:count_cap`."""
    extra = _filtered(filters, implied)
    if capped:
        return (
            f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {clause.sql}{extra}"
            " LIMIT :count_cap)"
        )
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
    before: str | None = None,
    session: str | None = None,
    agent_profile: str | None = None,
    count_cap: int | None = None,
) -> Page:
    """`limit` live rows the caller may see from `offset`, newest first, and
    the count of every row the same clause matches (the page's "of TOTAL").
    `trust` narrows to one state, `origin` to one writer, `since` to rows
    recorded at or after it, `before` to rows recorded before it, `session` to
    rows written in that session, `agent_profile` to one agent's. `count_cap`:
    count no further than one past it (an exact count of a hundred thousand rows
    reads them all; "more than CAP" pages as well)."""
    clause = live.where(identity, view, scope=scope, whole_project=whole_project)
    params: dict[str, Any] = {**clause.params, "limit": limit, "offset": offset}
    filters: list[str] = []
    named = (("ring", ring), ("trust", trust), ("origin", origin), ("since", since))
    for column, value in (
        *named,
        ("before", before),
        ("session", session),
        ("agent_profile", agent_profile),
    ):
        if value:
            filters.append(column)
            params[column] = value
    implied = hints(trust, origin)
    found = store.query(list_sql(clause, tuple(filters), offset=True, implied=implied), params)
    if count_cap is not None:
        params["count_cap"] = count_cap + 1
    counting = count_sql(clause, tuple(filters), capped=count_cap is not None, implied=implied)
    total = store.db.scalar(counting, params)
    return Page([rows.from_row(row) for row in found], int(total or 0))


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
