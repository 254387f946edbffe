"""The consolidation's queries: a period's candidate rows, and the summaries
already written for a source ref (`upkeep/consolidate.py` decides what they are)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from tree_ring.store import live
    from tree_ring.store.sql import Db


def candidates_sql(
    clause: live.Clause,
    *,
    dated: bool,
    min_salience: float,
    kept_rings: Sequence[str],
    kept_retentions: Sequence[str],
) -> str:
    """The project's rows `clause` admits that are no consolidation, no
    secret and have no end (expiry or validity's end), weighty enough
    (`min_salience`, or a kept ring or retention), in [:start, :end) when
    `dated`, by id."""
    rings = ", ".join(f"'{r}'" for r in kept_rings)
    retentions = ", ".join(f"'{r}'" for r in kept_retentions)
    sql = (
        f"SELECT m.* FROM memories m WHERE m.project = :project AND {clause.sql}"
        " AND m.source_type != 'consolidation' AND m.sensitivity != 'secret'"
        # A summary is not rewritten when time passes: what ends is not summarised.
        " AND m.expires_at IS NULL AND m.valid_to IS NULL"
        f" AND (m.salience >= {min_salience} OR m.ring IN ({rings})"
        f" OR m.retention IN ({retentions}))"
    )
    if dated:
        sql += " AND m.created_at >= :start AND m.created_at < :end"
    return sql + " ORDER BY m.id"


def candidates(
    db: Db,
    clause: live.Clause,
    project: str,
    start: str | None,
    end: str | None,
    **weighty: Any,
) -> list[Any]:
    """The rows of `candidates_sql(clause, **weighty)` in `project`, in [start, end)
    when `start` is given."""
    sql = candidates_sql(clause, dated=start is not None, **weighty)
    return db.query(sql, {**clause.params, "project": project, "start": start, "end": end})


def existing(db: Db, clause: live.Clause, project: str, ref: str) -> list[str]:
    """The ids of the project's consolidations of `ref` that `clause` admits, oldest first."""
    sql = (
        "SELECT m.id FROM memories m WHERE m.project = :project"
        " AND m.source_type = 'consolidation' AND m.source_ref = :ref"
        f" AND {clause.sql} ORDER BY m.created_at, m.id"
    )
    return [r[0] for r in db.execute(sql, {**clause.params, "project": project, "ref": ref})]
