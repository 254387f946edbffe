"""The review queue's queries: the rows that wait for a person (pending or
disputed, still on record), and the pending rows a person's selection names.

The queue is every partition's (a person's review), or with a `reader` (an
agent's identity) the rows that reader may read, by the clause its recall
reads through (`live.visible`), in SQL: no number of other partitions' rows
ahead of its own can push its own past a limit."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db, Rows

# The `memories_waiting` index (store/schema.py) holds exactly these rows.
QUEUE_SQL = (
    "SELECT m.* FROM memories m WHERE m.project IS :project AND {visible}"
    " AND m.trust IN ('pending', 'disputed') AND m.retired_at IS NULL"
    " AND m.redacted_at IS NULL ORDER BY m.created_at, m.id"
)


def queue_sql(project: str | None, reader: Identity | None = None) -> tuple[str, dict[str, Any]]:
    """`QUEUE_SQL` and its parameters, for every partition or for `reader`."""
    if reader is None:
        return QUEUE_SQL.format(visible="1"), {"project": project}
    from tree_ring.store import live

    clause = live.visible(reader)
    return QUEUE_SQL.format(visible=clause.sql), {**clause.params, "project": project}


def waiting(db: Db, project: str | None, reader: Identity | None = None) -> Rows:
    """The project's queue (`reader`'s part of it), oldest first."""
    return db.execute(*queue_sql(project, reader))


def size(db: Db, project: str | None, reader: Identity | None = None) -> int:
    sql, params = queue_sql(project, reader)
    found = db.execute(f"SELECT count(*) FROM ({sql})", params).fetchone()
    return int(found[0])


def selection_sql(
    *,
    origin: str | None = None,
    scope: str | None = None,
    ring: str | None = None,
    batch: str | None = None,
    since: str | None = None,
) -> tuple[str, dict[str, object]]:
    """The pending rows of a project a selection names, oldest first. Disputed
    rows are left out: a dispute is a person's doubt, not a wait."""
    sql = (
        "SELECT * FROM memories WHERE project IS :project AND trust = 'pending'"
        " AND retired_at IS NULL AND redacted_at IS NULL"
    )
    params: dict[str, object] = {}
    for column, value in (("origin", origin), ("scope", scope), ("ring", ring)):
        if value is not None:
            sql += f" AND {column} = :{column}"
            params[column] = value
    if batch is not None:
        # The rows that import wrote, as its audit entries name them, whatever
        # session a file's row names (its own, or another import's batch id).
        sql += (
            " AND origin = 'import' AND id IN"
            " (SELECT target FROM audit_log WHERE action = 'import' AND session = :batch)"
        )
        params["batch"] = batch
    if since is not None:
        sql += " AND created_at >= :since"
        params["since"] = since
    return sql + " ORDER BY created_at, id", params


def pending(db: Db, project: str | None, **selection: str | None) -> list[Any]:
    """The rows `selection_sql(**selection)` names in `project`."""
    sql, params = selection_sql(**selection)
    return db.query(sql, {**params, "project": project})
