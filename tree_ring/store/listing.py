"""The listing's queries: the rows a reader may see, newest first, a page at
a time and counted, and one row by id if the reader may see it. The clause
of who sees what is `live.visible` (and `live.where` with liveness)."""

from __future__ import annotations

from tree_ring.store import live

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
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


def page(
    db: Db, clause: live.Clause, filters: tuple[str, ...], params: dict[str, Any]
) -> tuple[list[Any], int]:
    """The page's rows (`params` holds `limit` and `offset`) and how many match in all."""
    found = db.query(list_sql(clause, filters, offset=True), params)
    total = db.scalar(count_sql(clause, filters), params)
    return found, int(total or 0)


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
