"""Keeping the summary tree whole: the time flush, a rebuild from scratch, and
rebuilding around a forgotten memory.

Forgetting: `forget_memory` removes a memory's leaf, marks every node above
it stale (transitively to the root) and rebuilds those nodes from their
remaining children, in the caller's transaction, so the forgotten text never
outlives the commit that forgot it. A trigger refuses any other change to a
sealed node's content.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tree_ring.model.record import (
    SHARED_SCOPES,
    now_iso,
)
from tree_ring.store import live
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.tree.nodes import (
    DEFAULT_LABELS,
    buffer,
    config,
    get_or_create,
    node_from_row,
    tree_by_id,
    tree_from_row,
)
from tree_ring.tree.seal import (
    RESEAL_NODE,
    append_leaves,
    build,
    cascade,
    memory_inputs,
    node_inputs,
    refresh_l0,
    refresh_root,
    set_items,
    stale_cutoff,
)
from tree_ring.tree.summarise import (
    Summariser,
    concat_summary,
    token_estimate,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.progress import Progress


@dataclass(frozen=True)
class Flushed:
    tree_id: str
    kind: str
    scope: str
    sealed: tuple[str, ...]
    forced: bool  # the L0 buffer was older than the flush age


def flush(
    db: Db,
    now: str | None = None,
    *,
    max_age_secs: int | None = None,
    summariser: Summariser = concat_summary,
) -> list[Flushed]:
    """Seal what deferred appends left pending, then force-seal stale L0 buffers."""
    now = now or now_iso()
    cfg = config(db)
    age = cfg.flush_age_secs if max_age_secs is None else max(0, max_age_secs)
    cutoff = stale_cutoff(now, age)
    report: list[Flushed] = []
    trees = [tree_from_row(r) for r in db.execute("SELECT * FROM tree_trees ORDER BY kind, scope")]
    for tree in trees:
        if tree.status != "active":
            continue
        reseal_stale(db, tree.id, now, summariser=summariser)
        sealed = cascade(db, tree, now, cfg=cfg, summariser=summariser)
        l0 = buffer(db, tree.id, 0)
        forced = l0.item_count > 0 and (l0.oldest_at or now) <= cutoff
        if forced:
            sealed += cascade(db, tree, now, cfg=cfg, force=True, summariser=summariser)
        report.append(Flushed(tree.id, tree.kind, tree.scope, tuple(sealed), forced))
    return report


# Leaves appended at a time by a rebuild, between two reports of its progress
# (appending in pieces seals exactly as appending them all at once).
REBUILD_BATCH = 1_000


def rebuild(
    db: Db, project: str, now: str | None = None, *, progress: Progress | None = None
) -> int:
    """Build a project's source tree from scratch out of its live memories;
    `progress` is told the memories placed of all."""
    now = now or now_iso()
    tree = get_or_create(db, "source", project, now)
    for table in ("tree_nodes", "tree_leaves", "tree_buffers"):
        db.execute(f"DELETE FROM {table} WHERE tree_id = ?", (tree.id,))
    db.execute(
        "UPDATE tree_trees SET root_id = NULL, max_level = 0, last_sealed_at = NULL WHERE id = ?",
        (tree.id,),
    )
    db.execute("INSERT INTO tree_buffers(tree_id, level) VALUES (?, 0)", (tree.id,))
    cfg = config(db)
    clause = live.live(View())
    shared = ", ".join(f"'{scope}'" for scope in SHARED_SCOPES)
    sql = (
        "SELECT m.id, m.summary FROM memories m WHERE m.project = :project"
        f" AND {clause.sql} AND m.scope IN ({shared}) AND m.source_type != 'consolidation'"
        " AND m.expires_at IS NULL AND m.valid_to IS NULL"  # as `nodes.eligible`
        " ORDER BY m.created_at, m.id"
    )
    found = db.execute(sql, {**clause.params, "project": project}).fetchall()
    leaves = [(row["id"], token_estimate(row["summary"])) for row in found]
    for start in range(0, len(leaves), REBUILD_BATCH):
        append_leaves(db, tree, leaves[start : start + REBUILD_BATCH], now, cfg=cfg)
        if progress is not None:
            progress("tree rebuild", min(start + REBUILD_BATCH, len(leaves)), len(leaves))
    return len(found)


def forget_memory(
    db: Db,
    memory_id: str,
    now: str,
    *,
    summariser: Summariser = concat_summary,
) -> dict[str, str]:
    """Take a forgotten memory out of every tree; returns the content each
    node it rebuilt or dropped held before, by node id."""
    touched: dict[str, str] = {}
    leaves = db.execute(
        "SELECT seq, tree_id, parent_id FROM tree_leaves WHERE memory_id = ?", (memory_id,)
    ).fetchall()
    for seq, tree_id, parent_id in leaves:
        db.execute("DELETE FROM tree_leaves WHERE seq = ?", (seq,))
        if parent_id is None:
            refresh_l0(db, tree_id)
            continue
        db.execute(
            "WITH RECURSIVE up(id) AS (SELECT ? UNION"
            " SELECT n.parent_id FROM tree_nodes n JOIN up ON n.id = up.id"
            " WHERE n.parent_id IS NOT NULL)"
            " UPDATE tree_nodes SET stale = 1 WHERE id IN (SELECT id FROM up)",
            (parent_id,),
        )
        stale = db.execute(
            "SELECT id, content FROM tree_nodes WHERE tree_id = ? AND stale = 1", (tree_id,)
        )
        touched.update((row[0], row[1]) for row in stale)
        reseal_stale(db, tree_id, now, summariser=summariser)
    return touched


def reseal_stale(
    db: Db,
    tree_id: str,
    now: str,
    *,
    summariser: Summariser = concat_summary,
) -> list[str]:
    """Rebuild every stale node of a tree from its remaining children, lowest first.

    A node left with no live child is deleted; its parent (stale too) drops
    it, or, if it was waiting in a buffer, the buffer does.
    """
    tree = tree_by_id(db, tree_id)
    stale = [
        node_from_row(r)
        for r in db.execute(
            "SELECT * FROM tree_nodes WHERE tree_id = ? AND stale = 1 ORDER BY level, sealed_at",
            (tree_id,),
        )
    ]
    if tree is None or not stale:
        return []
    cfg = config(db)
    for item in stale:
        if item.level == 1:
            kept = [
                r[0]
                for r in db.execute(
                    "SELECT memory_id FROM tree_leaves WHERE tree_id = ? AND parent_id = ?",
                    (tree_id, item.id),
                )
            ]
            waiting = set(kept)
            order = [i for i in item.child_ids if i in waiting]
            inputs = memory_inputs(db, order, DEFAULT_LABELS.get(tree.kind) == "inherit")
            dropped = sorted(set(kept) - {i.id for i in inputs})
            db.execute(
                "DELETE FROM tree_leaves WHERE tree_id = ? AND parent_id = ?"
                " AND memory_id IN (SELECT value FROM json_each(?))",
                (tree_id, item.id, json.dumps(dropped)),
            )
        else:
            inputs = node_inputs(db, item.child_ids)
        if not inputs:
            db.execute("DELETE FROM tree_nodes WHERE id = ?", (item.id,))
            continue
        built = build(inputs, tree, cfg, summariser)
        db.execute(RESEAL_NODE, {**built.params(), "id": item.id, "resealed_at": now})
    levels = db.execute(
        "SELECT level FROM tree_buffers WHERE tree_id = ? AND level > 0 AND item_count > 0",
        (tree_id,),
    ).fetchall()
    for (level,) in levels:
        set_items(db, tree_id, level, list(buffer(db, tree_id, level).item_ids))
    refresh_root(db, tree_id, now)
    return [item.id for item in stale]
