"""Growing the summary tree: leaves arrive, buffers seal, the cascade climbs.

Leaves are memories. A memory that every identity of its project may read
(accepted, normal sensitivity, a shared scope, not itself a consolidation)
joins its project's source tree as a leaf in the L0 buffer. When the buffered
tokens reach the input budget, L0 seals into one immutable L1 node; when
`summary_fanout` nodes wait at a level, they seal into one node a level up;
the cascade stops at `MAX_CASCADE_DEPTH`. A time flush force-seals an L0
buffer older than the flush age (never an upper level: that would make
single-child chains); `tree flush` runs it, and so does the next append to
that buffer, so a quiet project needs no scheduler. The root is the newest
unparented node at the top level (TinyCortex keeps the first one; the newest
is what a brief about the project's history should show).

Latency decision: the write hook seals inline by default. An append is one
small row plus a counter update; a seal hydrates one budget's worth of leaves
(about 2,000 memories at the default budget) and writes one node, so it is
paid once per budget and stays in the low milliseconds (see
`benchmarks/tree_bench.py`). Sealing inline keeps the tree as synchronous as
the rest of the write path. The `tree.deferred` setting stages appends only
and reports `seal_pending`; `tree flush` then seals. Use it for bulk loads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from tree_ring.model.record import (
    Memory,
    canonical_json,
    format_time,
    now_iso,
    sha256,
)
from tree_ring.store import live
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.tree.nodes import (
    DEFAULT_LABELS,
    AppendOutcome,
    Buffer,
    Tree,
    TreeConfig,
    buffer,
    config,
    eligible,
    get_or_create,
    node_from_row,
)
from tree_ring.tree.summarise import (
    Summariser,
    SummaryInput,
    concat_summary,
    extract_labels,
    one_line,
    resolve_labels,
    token_estimate,
)

MAX_CASCADE_DEPTH = 32


_FETCH = 512


def on_insert(db: Db, memory: Memory) -> AppendOutcome:
    """The write hook: a new memory becomes a leaf of its project's source tree."""
    return on_insert_many(db, [memory]).get(memory.project or "", AppendOutcome(False))


def on_insert_many(db: Db, memories: Iterable[Memory]) -> dict[str, AppendOutcome]:
    """The write hook for a batch: each project's eligible memories, in order.

    Projects' trees are independent, so appending project by project builds
    the same trees as appending the memories one at a time in their order.
    """
    leaves: dict[str, list[tuple[str, int]]] = {}
    for memory in memories:
        if eligible(memory) and memory.project is not None:
            leaves.setdefault(memory.project, []).append(
                (memory.id, token_estimate(memory.summary))
            )
    outcomes: dict[str, AppendOutcome] = {}
    for project, items in leaves.items():
        tree = get_or_create(db, "source", project, now_iso())
        outcomes[project] = append_leaves(db, tree, items)
    return outcomes


def stale_cutoff(now: str, age_secs: int) -> str:
    moment = datetime.fromisoformat(now.replace("Z", "+00:00"))
    return format_time(moment - timedelta(seconds=age_secs))


def append_leaves(
    db: Db,
    tree: Tree,
    leaves: Sequence[tuple[str, int]],
    now: str | None = None,
    *,
    cfg: TreeConfig | None = None,
    deferred: bool | None = None,
    summariser: Summariser = concat_summary,
) -> AppendOutcome:
    """Add (memory id, tokens) leaves to the L0 buffer in order, each followed
    by the seals its gates call for, exactly as appending them one at a time.

    Before each leaf, a buffer older than the flush age is sealed, so the leaf
    starts the next period rather than stretching an old one; after it, a
    reached budget seals. The gates are decided here from the buffer's
    counters, so the leaves between two seals are written with one statement
    and the buffer once, and only a seal reads the tree back. A leaf that is
    already in the tree is skipped (an idempotent retry). Deferred: stage only.

    With `now` given every leaf and seal carries it. Without, the clock is
    read at the start and again after each seal, as separate appends would
    read it, so each seal is newer than the last and the root is the newest.
    """
    if tree.status != "active":
        return AppendOutcome(False)
    cfg = cfg or config(db)
    deferred = cfg.deferred if deferred is None else deferred
    clock = now is None
    moment = now or now_iso()
    cutoff = stale_cutoff(moment, cfg.flush_age_secs)
    present = _present(db, tree.id, [memory_id for memory_id, _ in leaves])
    waiting: list[tuple[str, int]] = []  # appended since the last write
    sealed: list[str] = []
    appended = pending = False
    l0 = buffer(db, tree.id, 0)
    count, total, oldest = l0.item_count, l0.token_sum, l0.oldest_at

    def seal(force: bool) -> None:
        nonlocal moment, cutoff, count, total, oldest
        _write_leaves(db, tree.id, waiting, moment)
        sealed.extend(cascade(db, tree, moment, cfg=cfg, force=force, summariser=summariser))
        fresh = buffer(db, tree.id, 0)
        count, total, oldest = fresh.item_count, fresh.token_sum, fresh.oldest_at
        if clock:
            moment = now_iso()
            cutoff = stale_cutoff(moment, cfg.flush_age_secs)

    for memory_id, tokens in leaves:
        expired = count > 0 and (oldest or moment) <= cutoff
        if expired and not deferred:
            seal(force=True)
        if memory_id in present:
            continue
        present.add(memory_id)
        waiting.append((memory_id, tokens))
        count, total, oldest = count + 1, total + tokens, oldest or moment
        appended = True
        reached = total >= cfg.input_token_budget
        if deferred:
            pending = reached or expired
        elif reached:
            seal(force=False)
    _write_leaves(db, tree.id, waiting, moment)
    return AppendOutcome(appended, tuple(sealed), pending)


def _present(db: Db, tree_id: str, memory_ids: Sequence[str]) -> set[str]:
    """Which of `memory_ids` are already leaves of the tree."""
    found = db.execute(
        "SELECT memory_id FROM tree_leaves WHERE tree_id = ?"
        " AND memory_id IN (SELECT value FROM json_each(?))",
        (tree_id, json.dumps(list(memory_ids))),
    )
    return {row[0] for row in found}


def _write_leaves(db: Db, tree_id: str, leaves: list[tuple[str, int]], now: str) -> None:
    """Write the leaves appended since the last write, and count them into L0; empties `leaves`."""
    if not leaves:
        return
    db.executemany(
        "INSERT INTO tree_leaves(tree_id, memory_id, token_count, added_at) VALUES (?, ?, ?, ?)",
        [(tree_id, memory_id, tokens, now) for memory_id, tokens in leaves],
    )
    db.execute(
        "UPDATE tree_buffers SET item_count = item_count + ?, token_sum = token_sum + ?,"
        " oldest_at = coalesce(oldest_at, ?) WHERE tree_id = ? AND level = 0",
        (len(leaves), sum(tokens for _, tokens in leaves), now, tree_id),
    )
    leaves.clear()


def gate_reached(buf: Buffer, cfg: TreeConfig) -> bool:
    if buf.item_count <= 0:
        return False
    if buf.level == 0:
        return buf.token_sum >= cfg.input_token_budget
    return buf.item_count >= cfg.summary_fanout


def cascade(
    db: Db,
    tree: Tree,
    now: str,
    *,
    cfg: TreeConfig | None = None,
    force: bool = False,
    summariser: Summariser = concat_summary,
) -> list[str]:
    """Seal every buffer whose gate is reached, level by level, upwards.

    A level seals repeatedly while its gate holds (a deferred backlog drains
    in budget-sized buckets, in arrival order). `force` seals L0 down to
    empty whatever its size; upper levels always wait for their fan-out.
    """
    cfg = cfg or config(db)
    sealed: list[str] = []
    for level in range(MAX_CASCADE_DEPTH):
        progressed = False
        while True:
            buf = buffer(db, tree.id, level)
            if not (gate_reached(buf, cfg) or (force and level == 0 and buf.item_count > 0)):
                break
            new_id = _seal_level(db, tree, buf, cfg, now, summariser)
            progressed = True
            if new_id is not None:
                sealed.append(new_id)
        if not progressed:
            break
    return sealed


def _memory_input(
    memory_id: str, summary: str, salience: float, created_at: str, with_labels: bool
) -> SummaryInput:
    text = one_line(summary)
    entities, topics = extract_labels(text) if with_labels else ((), ())
    return SummaryInput(memory_id, text, salience, created_at, created_at, entities, topics)


def memory_inputs(db: Db, ids: Sequence[str], with_labels: bool) -> list[SummaryInput]:
    """The live memories among `ids`, in the order given."""
    clause = live.live(View())
    found: dict[str, SummaryInput] = {}
    sql = (
        "SELECT m.id, m.summary, m.salience, m.created_at FROM memories m "
        f"WHERE m.id IN (SELECT value FROM json_each(:ids)) AND {clause.sql}"
    )
    for row in db.execute(sql, {**clause.params, "ids": json.dumps(list(ids))}):
        found[row["id"]] = _memory_input(
            row["id"], row["summary"], row["salience"], row["created_at"], with_labels
        )
    return [found[i] for i in ids if i in found]


def node_inputs(db: Db, ids: Sequence[str]) -> list[SummaryInput]:
    found: dict[str, SummaryInput] = {}
    sql = "SELECT * FROM tree_nodes WHERE id IN (SELECT value FROM json_each(?)) AND stale = 0"
    for row in db.execute(sql, (json.dumps(list(ids)),)):
        found[row["id"]] = node_from_row(row).as_input()
    return [found[i] for i in ids if i in found]


@dataclass(frozen=True)
class _Built:
    """A node's content and what is derived from it, named as the columns."""

    child_ids: str  # JSON
    content: str
    token_count: int
    entities: str  # JSON
    topics: str  # JSON
    time_range_start: str
    time_range_end: str
    score: float
    leaf_count: int

    def params(self) -> dict[str, Any]:
        return dict(self.__dict__)


_BUILT = tuple(_Built.__dataclass_fields__)


def build(
    inputs: Sequence[SummaryInput], tree: Tree, cfg: TreeConfig, summariser: Summariser
) -> _Built:
    content = summariser(inputs, cfg.output_token_budget).strip() or concat_summary(
        inputs, cfg.output_token_budget
    )
    strategy = DEFAULT_LABELS.get(tree.kind, "empty")
    entities, topics = resolve_labels(strategy, inputs, content)
    return _Built(
        child_ids=json.dumps([item.id for item in inputs]),
        content=content,
        token_count=token_estimate(content),
        entities=json.dumps(list(entities), ensure_ascii=False),
        topics=json.dumps(list(topics), ensure_ascii=False),
        time_range_start=min(item.start for item in inputs),
        time_range_end=max(item.end for item in inputs),
        score=max(0.0, *(item.score for item in inputs)),
        leaf_count=sum(item.leaves for item in inputs),
    )


_INSERT_NODE = (
    f"INSERT INTO tree_nodes(id, tree_id, level, sealed_at, {', '.join(_BUILT)})"
    f" VALUES (:id, :tree_id, :level, :sealed_at, {', '.join(':' + c for c in _BUILT)})"
)


# Only a stale node may be rebuilt (the tree_nodes_sealed trigger enforces it).
RESEAL_NODE = (
    f"UPDATE tree_nodes SET {', '.join(f'{c} = :{c}' for c in _BUILT)},"
    " stale = 0, resealed_at = :resealed_at WHERE id = :id"
)


def _pending_leaves(
    db: Db, tree_id: str, budget: int, with_labels: bool
) -> tuple[list[str], int, list[SummaryInput]]:
    """The oldest waiting leaves whose tokens first reach `budget` (or all):
    their memory ids, the seq of the last, and the live memories among them.

    The leaves and their memories are read together, in arrival order, since a
    seal takes a whole budget of them (thousands)."""
    clause = live.live(View())
    cursor = db.execute(
        "SELECT l.seq, l.memory_id, l.token_count, m.summary, m.salience, m.created_at"
        f" FROM tree_leaves l LEFT JOIN memories m ON m.id = l.memory_id AND {clause.sql}"
        " WHERE l.tree_id = :tree AND l.parent_id IS NULL ORDER BY l.seq",
        {**clause.params, "tree": tree_id},
    )
    taken: list[str] = []
    inputs: list[SummaryInput] = []
    last_seq = total = 0
    while total < budget and (batch := cursor.fetchmany(_FETCH)):
        for seq, memory_id, tokens, summary, salience, created_at in batch:
            taken.append(memory_id)
            last_seq = seq
            if summary is not None:  # live
                inputs.append(_memory_input(memory_id, summary, salience, created_at, with_labels))
            total += tokens
            if total >= budget:
                break
    return taken, last_seq, inputs


def _seal_level(
    db: Db,
    tree: Tree,
    buf: Buffer,
    cfg: TreeConfig,
    now: str,
    summariser: Summariser,
) -> str | None:
    """Seal one bucket of `buf` into a node one level up; None if nothing was live."""
    level = buf.level
    last_seq = 0
    if level == 0:
        with_labels = DEFAULT_LABELS.get(tree.kind) == "inherit"
        taken, last_seq, inputs = _pending_leaves(db, tree.id, cfg.input_token_budget, with_labels)
    else:
        taken = list(buf.item_ids[: cfg.summary_fanout])
        inputs = node_inputs(db, taken)
    node_id: str | None = None
    if inputs:
        built = build(inputs, tree, cfg, summariser)
        node_id = f"node_{level + 1}_{sha256(canonical_json([tree.id, level + 1, taken]))[7:23]}"
        db.execute(
            _INSERT_NODE,
            {**built.params(), "id": node_id, "tree_id": tree.id, "level": level + 1}
            | {"sealed_at": now},
        )
        _push(db, tree.id, level + 1, node_id, built.token_count, now)
    if level == 0:
        # Leaves that stopped being live before their seal leave the tree
        # without ever being summarised. The bucket is the waiting leaves up
        # to its last, so what waits up to there now are the children, and
        # they get their backlink.
        gone = sorted(set(taken) - {item.id for item in inputs})
        if gone:
            db.execute(
                "DELETE FROM tree_leaves WHERE tree_id = ? AND parent_id IS NULL"
                " AND memory_id IN (SELECT value FROM json_each(?))",
                (tree.id, json.dumps(gone)),
            )
        if node_id is not None:
            db.execute(
                "UPDATE tree_leaves SET parent_id = ? WHERE tree_id = ? AND parent_id IS NULL"
                " AND seq <= ?",
                (node_id, tree.id, last_seq),
            )
        refresh_l0(db, tree.id)
    else:
        db.execute(
            "UPDATE tree_nodes SET parent_id = ? WHERE id IN (SELECT value FROM json_each(?))"
            " AND parent_id IS NULL",
            (node_id, json.dumps([item.id for item in inputs])),
        )
        set_items(db, tree.id, level, list(buf.item_ids[len(taken) :]))
    if node_id is not None:
        refresh_root(db, tree.id, now)
    return node_id


def _push(db: Db, tree_id: str, level: int, node_id: str, tokens: int, now: str) -> None:
    db.execute("INSERT OR IGNORE INTO tree_buffers(tree_id, level) VALUES (?, ?)", (tree_id, level))
    db.execute(
        "UPDATE tree_buffers SET item_ids = json_insert(item_ids, '$[#]', ?),"
        " item_count = item_count + 1, token_sum = token_sum + ?,"
        " oldest_at = coalesce(oldest_at, ?) WHERE tree_id = ? AND level = ?",
        (node_id, tokens, now, tree_id, level),
    )


def refresh_l0(db: Db, tree_id: str) -> None:
    """Recount the L0 buffer from its waiting leaves (after a seal or a forget)."""
    db.execute(
        "UPDATE tree_buffers SET"
        " item_count = (SELECT count(*) FROM tree_leaves"
        "   WHERE tree_id = :t AND parent_id IS NULL),"
        " token_sum = (SELECT coalesce(sum(token_count), 0) FROM tree_leaves"
        "   WHERE tree_id = :t AND parent_id IS NULL),"
        " oldest_at = (SELECT added_at FROM tree_leaves"
        "   WHERE tree_id = :t AND parent_id IS NULL ORDER BY seq LIMIT 1)"
        " WHERE tree_id = :t AND level = 0",
        {"t": tree_id},
    )


def set_items(db: Db, tree_id: str, level: int, items: list[str]) -> None:
    """Rewrite an upper buffer to exactly those of `items` that still exist, in order."""
    present = {
        row[0]: (row[1], row[2])
        for row in db.execute(
            "SELECT id, token_count, sealed_at FROM tree_nodes"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(items),),
        )
    }
    kept = [i for i in items if i in present]
    db.execute(
        "UPDATE tree_buffers SET item_ids = ?, item_count = ?, token_sum = ?, oldest_at = ?"
        " WHERE tree_id = ? AND level = ?",
        (
            json.dumps(kept),
            len(kept),
            sum(present[i][0] for i in kept),
            min((present[i][1] for i in kept), default=None),
            tree_id,
            level,
        ),
    )


def refresh_root(db: Db, tree_id: str, now: str) -> None:
    """The root is the newest unparented node at the top level."""
    top = db.execute(
        "SELECT id, level FROM tree_nodes WHERE tree_id = ? AND parent_id IS NULL AND stale = 0"
        " ORDER BY level DESC, sealed_at DESC, id DESC LIMIT 1",
        (tree_id,),
    ).fetchone()
    db.execute(
        "UPDATE tree_trees SET root_id = ?, max_level = ?, last_sealed_at = ? WHERE id = ?",
        (top[0] if top else None, top[1] if top else 0, now, tree_id),
    )
