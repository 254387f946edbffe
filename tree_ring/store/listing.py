"""The listing's queries: the rows a reader may see, newest first, a page at
a time and counted, and one row by id if the reader may see it. The clause
of who sees what is `live.visible` (and `live.where` with liveness)."""

from __future__ import annotations

from tree_ring.store import live
from tree_ring.store.inbox import AGENT_ORIGINS, AGENT_ROWS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
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


def page_rows(
    db: Db,
    clause: live.Clause,
    filters: tuple[str, ...],
    params: dict[str, Any],
    *,
    implied: tuple[str, ...] = (),
) -> list[Any]:
    """The page's rows; `params` holds `limit` and `offset`."""
    return db.query(list_sql(clause, filters, offset=True, implied=implied), params)


def count(
    db: Db,
    clause: live.Clause,
    filters: tuple[str, ...],
    params: dict[str, Any],
    *,
    implied: tuple[str, ...] = (),
    count_cap: int | None = None,
) -> int:
    """How many rows the listing matches in all; `count_cap`: counted no further
    than one past it."""
    if count_cap is not None:
        params = {**params, "count_cap": count_cap + 1}
    counting = count_sql(clause, filters, capped=count_cap is not None, implied=implied)
    return int(db.scalar(counting, params) or 0)


def in_order(db: Db, clause: live.Clause) -> list[Any]:
    """Every row `clause` admits, oldest first: what an export writes."""
    sql = f"SELECT m.* FROM memories m WHERE {clause.sql} ORDER BY m.created_at"
    return db.query(sql, clause.params)


SHOW_SQL = "SELECT m.* FROM memories m WHERE m.id = :id AND {clause}"


def visible_row(db: Db, identity: Identity, memory_id: str) -> Any:
    """The row, in any state, if `identity` may see its partition; else None."""
    clause = live.visible(identity)
    found = db.execute(SHOW_SQL.format(clause=clause.sql), {**clause.params, "id": memory_id})
    return found.fetchone()


def sees(db: Db, identity: Identity, memory_id: str) -> bool:
    """Whether the row exists in a partition `identity` may see."""
    clause = live.visible(identity)
    sql = f"SELECT 1 FROM memories m WHERE m.id = :id AND {clause.sql}"
    return db.execute(sql, {**clause.params, "id": memory_id}).fetchone() is not None
