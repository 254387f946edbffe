"""The summary tree: TinyCortex's bucket-seal tree, in the project's store.

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

Forgetting: `forget_memory` removes a memory's leaf, marks every node above
it stale (transitively to the root) and rebuilds those nodes from their
remaining children, in the caller's transaction, so the forgotten text never
outlives the commit that forgot it. A trigger refuses any other change to a
sealed node's content.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from tree_ring import live, schema
from tree_ring.errors import UsageError
from tree_ring.live import View
from tree_ring.record import SHARED_SCOPES, Memory, canonical_json, format_time, now_iso, sha256
from tree_ring.summarise import (
    Summariser,
    SummaryInput,
    concat_summary,
    extract_labels,
    one_line,
    resolve_labels,
    token_estimate,
)

KINDS = ("source", "topic", "global")
GLOBAL_SCOPE = "global"
MAX_CASCADE_DEPTH = 32
# Source trees re-extract labels from each new summary; topic and global trees
# are already pinned to a theme by their scope (as in TinyCortex).
DEFAULT_LABELS = {"source": "extract", "topic": "empty", "global": "empty"}
_FETCH = 512


@dataclass(frozen=True)
class TreeConfig:
    input_token_budget: int = 50_000
    output_token_budget: int = 5_000
    summary_fanout: int = 10
    flush_age_secs: int = 604_800
    deferred: bool = False


def config(conn: sqlite3.Connection) -> TreeConfig:
    """The live budgets from the settings table; a missing key keeps its default."""
    values: dict[str, Any] = dict(schema.TREE_SETTINGS)
    for key, raw in conn.execute("SELECT key, value FROM settings WHERE key LIKE 'tree.%'"):
        values[key] = json.loads(raw)

    def number(key: str, floor: int) -> int:
        value = values[key]
        return max(floor, int(value)) if isinstance(value, int | float) else floor

    return TreeConfig(
        input_token_budget=number("tree.input_token_budget", 1),
        output_token_budget=number("tree.output_token_budget", 1),
        # A fan-out of one would seal every node into a chain of copies.
        summary_fanout=number("tree.summary_fanout", 2),
        flush_age_secs=number("tree.flush_age_secs", 0),
        deferred=bool(values["tree.deferred"]),
    )


def set_config(conn: sqlite3.Connection, key: str, raw: str) -> TreeConfig:
    """Change one tree setting from text (`input_token_budget`, `deferred`, ...)."""
    name = key.removeprefix("tree.")
    full = f"tree.{name}"
    if full not in schema.TREE_SETTINGS:
        known = ", ".join(k.removeprefix("tree.") for k in schema.TREE_SETTINGS)
        raise UsageError(f"unknown tree setting {key[:40]!r}; use one of: {known}")
    value: int | bool
    if isinstance(schema.TREE_SETTINGS[full], bool):
        if raw.strip().lower() not in ("true", "false", "1", "0", "on", "off", "yes", "no"):
            raise UsageError(f"{name} is true or false, not {raw[:20]!r}")
        value = raw.strip().lower() in ("true", "1", "on", "yes")
    else:
        floor = 2 if name == "summary_fanout" else 0 if name == "flush_age_secs" else 1
        if not raw.strip().isdigit() or int(raw) < floor:
            raise UsageError(f"{name} is a whole number of at least {floor}, not {raw[:20]!r}")
        value = int(raw)
    conn.execute(
        "INSERT INTO settings(key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (full, json.dumps(value)),
    )
    return config(conn)


@dataclass(frozen=True)
class Tree:
    id: str
    kind: str
    scope: str
    root_id: str | None
    max_level: int
    status: str
    created_at: str
    last_sealed_at: str | None


@dataclass(frozen=True)
class Node:
    id: str
    tree_id: str
    level: int
    parent_id: str | None
    child_ids: tuple[str, ...]
    content: str
    token_count: int
    entities: tuple[str, ...]
    topics: tuple[str, ...]
    time_range_start: str
    time_range_end: str
    score: float
    leaf_count: int
    sealed_at: str
    stale: bool
    resealed_at: str | None

    def as_input(self) -> SummaryInput:
        return SummaryInput(
            self.id,
            self.content,
            self.score,
            self.time_range_start,
            self.time_range_end,
            self.entities,
            self.topics,
            self.leaf_count,
        )

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        for key in ("child_ids", "entities", "topics"):
            data[key] = list(data[key])
        return data


@dataclass(frozen=True)
class Buffer:
    tree_id: str
    level: int
    item_ids: tuple[str, ...]
    item_count: int
    token_sum: int
    oldest_at: str | None


@dataclass(frozen=True)
class AppendOutcome:
    appended: bool  # False: not eligible, archived tree, or already a leaf
    new_summary_ids: tuple[str, ...] = ()  # sealed by this call (none when deferred)
    seal_pending: bool = False  # a gate is reached and nothing sealed it yet


def tree_from_row(row: sqlite3.Row) -> Tree:
    return Tree(*(row[k] for k in Tree.__dataclass_fields__))


def node_from_row(row: sqlite3.Row) -> Node:
    return Node(
        id=row["id"],
        tree_id=row["tree_id"],
        level=row["level"],
        parent_id=row["parent_id"],
        child_ids=tuple(json.loads(row["child_ids"])),
        content=row["content"],
        token_count=row["token_count"],
        entities=tuple(json.loads(row["entities"])),
        topics=tuple(json.loads(row["topics"])),
        time_range_start=row["time_range_start"],
        time_range_end=row["time_range_end"],
        score=row["score"],
        leaf_count=row["leaf_count"],
        sealed_at=row["sealed_at"],
        stale=bool(row["stale"]),
        resealed_at=row["resealed_at"],
    )


def tree_id_for(kind: str, scope: str) -> str:
    return f"tree_{kind}_{sha256(canonical_json([kind, scope]))[7:23]}"


def get_tree(conn: sqlite3.Connection, kind: str, scope: str) -> Tree | None:
    row = conn.execute("SELECT * FROM tree_trees WHERE kind = ? AND scope = ?", (kind, scope))
    found = row.fetchone()
    return tree_from_row(found) if found else None


def tree_by_id(conn: sqlite3.Connection, tree_id: str) -> Tree | None:
    found = conn.execute("SELECT * FROM tree_trees WHERE id = ?", (tree_id,)).fetchone()
    return tree_from_row(found) if found else None


def get_or_create(conn: sqlite3.Connection, kind: str, scope: str, now: str) -> Tree:
    if kind not in KINDS:
        raise ValueError(f"unknown tree kind {kind!r}")
    found = get_tree(conn, kind, scope)
    if found is not None:
        return found
    tree_id = tree_id_for(kind, scope)
    conn.execute(
        "INSERT INTO tree_trees(id, kind, scope, created_at) VALUES (?, ?, ?, ?)",
        (tree_id, kind, scope, now),
    )
    conn.execute("INSERT OR IGNORE INTO tree_buffers(tree_id, level) VALUES (?, 0)", (tree_id,))
    return Tree(tree_id, kind, scope, None, 0, "active", now, None)


def buffer(conn: sqlite3.Connection, tree_id: str, level: int) -> Buffer:
    row = conn.execute(
        "SELECT * FROM tree_buffers WHERE tree_id = ? AND level = ?", (tree_id, level)
    ).fetchone()
    if row is None:
        return Buffer(tree_id, level, (), 0, 0, None)
    items = tuple(cast(list[str], json.loads(row["item_ids"])))
    return Buffer(tree_id, level, items, row["item_count"], row["token_sum"], row["oldest_at"])


def node(conn: sqlite3.Connection, node_id: str) -> Node | None:
    row = conn.execute("SELECT * FROM tree_nodes WHERE id = ?", (node_id,)).fetchone()
    return node_from_row(row) if row else None


# ------------------------------------------------------------------ append


def eligible(memory: Memory) -> bool:
    """Only what every identity of the project may read: tree nodes are shared."""
    return (
        memory.project is not None
        and memory.trust == "accepted"
        and memory.sensitivity == "normal"
        and memory.scope in SHARED_SCOPES
        and memory.source_type != "consolidation"
        and memory.redacted_at is None
        and memory.retired_at is None
        and memory.superseded_by is None
    )


def on_insert(conn: sqlite3.Connection, memory: Memory) -> AppendOutcome:
    """The write hook: a new memory becomes a leaf of its project's source tree."""
    return on_insert_many(conn, [memory]).get(memory.project or "", AppendOutcome(False))


def on_insert_many(
    conn: sqlite3.Connection, memories: Iterable[Memory]
) -> dict[str, AppendOutcome]:
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
        tree = get_or_create(conn, "source", project, now_iso())
        outcomes[project] = append_leaves(conn, tree, items)
    return outcomes


def _stale_cutoff(now: str, age_secs: int) -> str:
    moment = datetime.fromisoformat(now.replace("Z", "+00:00"))
    return format_time(moment - timedelta(seconds=age_secs))


def append_leaf(
    conn: sqlite3.Connection,
    tree: Tree,
    memory_id: str,
    tokens: int,
    now: str,
    *,
    cfg: TreeConfig | None = None,
    deferred: bool | None = None,
    summariser: Summariser = concat_summary,
) -> AppendOutcome:
    """Add one leaf to the L0 buffer, then seal what its gates call for."""
    return append_leaves(
        conn,
        tree,
        [(memory_id, tokens)],
        now,
        cfg=cfg,
        deferred=deferred,
        summariser=summariser,
    )


def append_leaves(
    conn: sqlite3.Connection,
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
    cfg = cfg or config(conn)
    deferred = cfg.deferred if deferred is None else deferred
    clock = now is None
    moment = now or now_iso()
    cutoff = _stale_cutoff(moment, cfg.flush_age_secs)
    present = _present(conn, tree.id, [memory_id for memory_id, _ in leaves])
    waiting: list[tuple[str, int]] = []  # appended since the last write
    sealed: list[str] = []
    appended = pending = False
    l0 = buffer(conn, tree.id, 0)
    count, total, oldest = l0.item_count, l0.token_sum, l0.oldest_at

    def seal(force: bool) -> None:
        nonlocal moment, cutoff, count, total, oldest
        _write_leaves(conn, tree.id, waiting, moment)
        sealed.extend(cascade(conn, tree, moment, cfg=cfg, force=force, summariser=summariser))
        fresh = buffer(conn, tree.id, 0)
        count, total, oldest = fresh.item_count, fresh.token_sum, fresh.oldest_at
        if clock:
            moment = now_iso()
            cutoff = _stale_cutoff(moment, cfg.flush_age_secs)

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
    _write_leaves(conn, tree.id, waiting, moment)
    return AppendOutcome(appended, tuple(sealed), pending)


def _present(conn: sqlite3.Connection, tree_id: str, memory_ids: Sequence[str]) -> set[str]:
    """Which of `memory_ids` are already leaves of the tree."""
    found = conn.execute(
        "SELECT memory_id FROM tree_leaves WHERE tree_id = ?"
        " AND memory_id IN (SELECT value FROM json_each(?))",
        (tree_id, json.dumps(list(memory_ids))),
    )
    return {row[0] for row in found}


def _write_leaves(
    conn: sqlite3.Connection, tree_id: str, leaves: list[tuple[str, int]], now: str
) -> None:
    """Write the leaves appended since the last write, and count them into L0; empties `leaves`."""
    if not leaves:
        return
    conn.executemany(
        "INSERT INTO tree_leaves(tree_id, memory_id, token_count, added_at) VALUES (?, ?, ?, ?)",
        [(tree_id, memory_id, tokens, now) for memory_id, tokens in leaves],
    )
    conn.execute(
        "UPDATE tree_buffers SET item_count = item_count + ?, token_sum = token_sum + ?,"
        " oldest_at = coalesce(oldest_at, ?) WHERE tree_id = ? AND level = 0",
        (len(leaves), sum(tokens for _, tokens in leaves), now, tree_id),
    )
    leaves.clear()


# -------------------------------------------------------------------- seal


def gate_reached(buf: Buffer, cfg: TreeConfig) -> bool:
    if buf.item_count <= 0:
        return False
    if buf.level == 0:
        return buf.token_sum >= cfg.input_token_budget
    return buf.item_count >= cfg.summary_fanout


def cascade(
    conn: sqlite3.Connection,
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
    cfg = cfg or config(conn)
    sealed: list[str] = []
    for level in range(MAX_CASCADE_DEPTH):
        progressed = False
        while True:
            buf = buffer(conn, tree.id, level)
            if not (gate_reached(buf, cfg) or (force and level == 0 and buf.item_count > 0)):
                break
            new_id = _seal_level(conn, tree, buf, cfg, now, summariser)
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


def _memory_inputs(
    conn: sqlite3.Connection, ids: Sequence[str], with_labels: bool
) -> list[SummaryInput]:
    """The live memories among `ids`, in the order given."""
    clause = live.live(View())
    found: dict[str, SummaryInput] = {}
    sql = (
        "SELECT m.id, m.summary, m.salience, m.created_at FROM memories m "
        f"WHERE m.id IN (SELECT value FROM json_each(:ids)) AND {clause.sql}"
    )
    for row in conn.execute(sql, {**clause.params, "ids": json.dumps(list(ids))}):
        found[row["id"]] = _memory_input(
            row["id"], row["summary"], row["salience"], row["created_at"], with_labels
        )
    return [found[i] for i in ids if i in found]


def _node_inputs(conn: sqlite3.Connection, ids: Sequence[str]) -> list[SummaryInput]:
    found: dict[str, SummaryInput] = {}
    sql = "SELECT * FROM tree_nodes WHERE id IN (SELECT value FROM json_each(?)) AND stale = 0"
    for row in conn.execute(sql, (json.dumps(list(ids)),)):
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


def _build(
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
_RESEAL_NODE = (
    f"UPDATE tree_nodes SET {', '.join(f'{c} = :{c}' for c in _BUILT)},"
    " stale = 0, resealed_at = :resealed_at WHERE id = :id"
)


def _pending_leaves(
    conn: sqlite3.Connection, tree_id: str, budget: int, with_labels: bool
) -> tuple[list[str], int, list[SummaryInput]]:
    """The oldest waiting leaves whose tokens first reach `budget` (or all):
    their memory ids, the seq of the last, and the live memories among them.

    The leaves and their memories are read together, in arrival order, since a
    seal takes a whole budget of them (thousands)."""
    clause = live.live(View())
    cursor = conn.cursor()
    cursor.row_factory = None
    cursor.execute(
        "SELECT l.seq, l.memory_id, l.token_count, m.summary, m.salience, m.created_at"
        f" FROM tree_leaves l LEFT JOIN memories m ON m.id = l.memory_id AND {clause.sql}"
        " WHERE l.tree_id = :tree AND l.parent_id IS NULL ORDER BY l.seq",
        {**clause.params, "tree": tree_id},
    )
    taken: list[str] = []
    inputs: list[SummaryInput] = []
    last_seq = total = 0
    try:
        while total < budget and (batch := cursor.fetchmany(_FETCH)):
            for seq, memory_id, tokens, summary, salience, created_at in batch:
                taken.append(memory_id)
                last_seq = seq
                if summary is not None:  # live
                    inputs.append(
                        _memory_input(memory_id, summary, salience, created_at, with_labels)
                    )
                total += tokens
                if total >= budget:
                    break
    finally:
        cursor.close()
    return taken, last_seq, inputs


def _seal_level(
    conn: sqlite3.Connection,
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
        taken, last_seq, inputs = _pending_leaves(
            conn, tree.id, cfg.input_token_budget, with_labels
        )
    else:
        taken = list(buf.item_ids[: cfg.summary_fanout])
        inputs = _node_inputs(conn, taken)
    node_id: str | None = None
    if inputs:
        built = _build(inputs, tree, cfg, summariser)
        node_id = f"node_{level + 1}_{sha256(canonical_json([tree.id, level + 1, taken]))[7:23]}"
        conn.execute(
            _INSERT_NODE,
            {**built.params(), "id": node_id, "tree_id": tree.id, "level": level + 1}
            | {"sealed_at": now},
        )
        _push(conn, tree.id, level + 1, node_id, built.token_count, now)
    if level == 0:
        # Leaves that stopped being live before their seal leave the tree
        # without ever being summarised. The bucket is the waiting leaves up
        # to its last, so what waits up to there now are the children, and
        # they get their backlink.
        gone = sorted(set(taken) - {item.id for item in inputs})
        if gone:
            conn.execute(
                "DELETE FROM tree_leaves WHERE tree_id = ? AND parent_id IS NULL"
                " AND memory_id IN (SELECT value FROM json_each(?))",
                (tree.id, json.dumps(gone)),
            )
        if node_id is not None:
            conn.execute(
                "UPDATE tree_leaves SET parent_id = ? WHERE tree_id = ? AND parent_id IS NULL"
                " AND seq <= ?",
                (node_id, tree.id, last_seq),
            )
        _refresh_l0(conn, tree.id)
    else:
        conn.execute(
            "UPDATE tree_nodes SET parent_id = ? WHERE id IN (SELECT value FROM json_each(?))"
            " AND parent_id IS NULL",
            (node_id, json.dumps([item.id for item in inputs])),
        )
        _set_items(conn, tree.id, level, list(buf.item_ids[len(taken) :]))
    if node_id is not None:
        _refresh_root(conn, tree.id, now)
    return node_id


def _push(
    conn: sqlite3.Connection, tree_id: str, level: int, node_id: str, tokens: int, now: str
) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO tree_buffers(tree_id, level) VALUES (?, ?)", (tree_id, level)
    )
    conn.execute(
        "UPDATE tree_buffers SET item_ids = json_insert(item_ids, '$[#]', ?),"
        " item_count = item_count + 1, token_sum = token_sum + ?,"
        " oldest_at = coalesce(oldest_at, ?) WHERE tree_id = ? AND level = ?",
        (node_id, tokens, now, tree_id, level),
    )


def _refresh_l0(conn: sqlite3.Connection, tree_id: str) -> None:
    """Recount the L0 buffer from its waiting leaves (after a seal or a forget)."""
    conn.execute(
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


def _set_items(conn: sqlite3.Connection, tree_id: str, level: int, items: list[str]) -> None:
    """Rewrite an upper buffer to exactly those of `items` that still exist, in order."""
    present = {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            "SELECT id, token_count, sealed_at FROM tree_nodes"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(items),),
        )
    }
    kept = [i for i in items if i in present]
    conn.execute(
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


def _refresh_root(conn: sqlite3.Connection, tree_id: str, now: str) -> None:
    """The root is the newest unparented node at the top level."""
    top = conn.execute(
        "SELECT id, level FROM tree_nodes WHERE tree_id = ? AND parent_id IS NULL AND stale = 0"
        " ORDER BY level DESC, sealed_at DESC, id DESC LIMIT 1",
        (tree_id,),
    ).fetchone()
    conn.execute(
        "UPDATE tree_trees SET root_id = ?, max_level = ?, last_sealed_at = ? WHERE id = ?",
        (top[0] if top else None, top[1] if top else 0, now, tree_id),
    )


# ------------------------------------------------------------------- flush


@dataclass(frozen=True)
class Flushed:
    tree_id: str
    kind: str
    scope: str
    sealed: tuple[str, ...]
    forced: bool  # the L0 buffer was older than the flush age


def flush(
    conn: sqlite3.Connection,
    now: str | None = None,
    *,
    max_age_secs: int | None = None,
    summariser: Summariser = concat_summary,
) -> list[Flushed]:
    """Seal what deferred appends left pending, then force-seal stale L0 buffers."""
    now = now or now_iso()
    cfg = config(conn)
    age = cfg.flush_age_secs if max_age_secs is None else max(0, max_age_secs)
    cutoff = _stale_cutoff(now, age)
    report: list[Flushed] = []
    trees = [
        tree_from_row(r) for r in conn.execute("SELECT * FROM tree_trees ORDER BY kind, scope")
    ]
    for tree in trees:
        if tree.status != "active":
            continue
        reseal_stale(conn, tree.id, now, summariser=summariser)
        sealed = cascade(conn, tree, now, cfg=cfg, summariser=summariser)
        l0 = buffer(conn, tree.id, 0)
        forced = l0.item_count > 0 and (l0.oldest_at or now) <= cutoff
        if forced:
            sealed += cascade(conn, tree, now, cfg=cfg, force=True, summariser=summariser)
        report.append(Flushed(tree.id, tree.kind, tree.scope, tuple(sealed), forced))
    return report


def rebuild(conn: sqlite3.Connection, project: str, now: str | None = None) -> int:
    """Build a project's source tree from scratch out of its live memories."""
    now = now or now_iso()
    tree = get_or_create(conn, "source", project, now)
    for table in ("tree_nodes", "tree_leaves", "tree_buffers"):
        conn.execute(f"DELETE FROM {table} WHERE tree_id = ?", (tree.id,))
    conn.execute(
        "UPDATE tree_trees SET root_id = NULL, max_level = 0, last_sealed_at = NULL WHERE id = ?",
        (tree.id,),
    )
    conn.execute("INSERT INTO tree_buffers(tree_id, level) VALUES (?, 0)", (tree.id,))
    cfg = config(conn)
    clause = live.live(View())
    shared = ", ".join(f"'{scope}'" for scope in SHARED_SCOPES)
    sql = (
        "SELECT m.id, m.summary FROM memories m WHERE m.project = :project"
        f" AND {clause.sql} AND m.scope IN ({shared}) AND m.source_type != 'consolidation'"
        " ORDER BY m.created_at, m.id"
    )
    found = conn.execute(sql, {**clause.params, "project": project}).fetchall()
    append_leaves(
        conn, tree, [(row["id"], token_estimate(row["summary"])) for row in found], now, cfg=cfg
    )
    return len(found)


# -------------------------------------------------------------- forgetting


def forget_memory(
    conn: sqlite3.Connection,
    memory_id: str,
    now: str,
    *,
    summariser: Summariser = concat_summary,
) -> list[str]:
    """Take a forgotten memory out of every tree; returns the node ids rebuilt or dropped."""
    touched: list[str] = []
    leaves = conn.execute(
        "SELECT seq, tree_id, parent_id FROM tree_leaves WHERE memory_id = ?", (memory_id,)
    ).fetchall()
    for seq, tree_id, parent_id in leaves:
        conn.execute("DELETE FROM tree_leaves WHERE seq = ?", (seq,))
        if parent_id is None:
            _refresh_l0(conn, tree_id)
            continue
        conn.execute(
            "WITH RECURSIVE up(id) AS (SELECT ? UNION"
            " SELECT n.parent_id FROM tree_nodes n JOIN up ON n.id = up.id"
            " WHERE n.parent_id IS NOT NULL)"
            " UPDATE tree_nodes SET stale = 1 WHERE id IN (SELECT id FROM up)",
            (parent_id,),
        )
        touched += reseal_stale(conn, tree_id, now, summariser=summariser)
    return touched


def reseal_stale(
    conn: sqlite3.Connection,
    tree_id: str,
    now: str,
    *,
    summariser: Summariser = concat_summary,
) -> list[str]:
    """Rebuild every stale node of a tree from its remaining children, lowest first.

    A node left with no live child is deleted; its parent (stale too) drops
    it, or, if it was waiting in a buffer, the buffer does.
    """
    tree = tree_by_id(conn, tree_id)
    stale = [
        node_from_row(r)
        for r in conn.execute(
            "SELECT * FROM tree_nodes WHERE tree_id = ? AND stale = 1 ORDER BY level, sealed_at",
            (tree_id,),
        )
    ]
    if tree is None or not stale:
        return []
    cfg = config(conn)
    for item in stale:
        if item.level == 1:
            kept = [
                r[0]
                for r in conn.execute(
                    "SELECT memory_id FROM tree_leaves WHERE tree_id = ? AND parent_id = ?",
                    (tree_id, item.id),
                )
            ]
            waiting = set(kept)
            order = [i for i in item.child_ids if i in waiting]
            inputs = _memory_inputs(conn, order, DEFAULT_LABELS.get(tree.kind) == "inherit")
            dropped = sorted(set(kept) - {i.id for i in inputs})
            conn.execute(
                "DELETE FROM tree_leaves WHERE tree_id = ? AND parent_id = ?"
                " AND memory_id IN (SELECT value FROM json_each(?))",
                (tree_id, item.id, json.dumps(dropped)),
            )
        else:
            inputs = _node_inputs(conn, item.child_ids)
        if not inputs:
            conn.execute("DELETE FROM tree_nodes WHERE id = ?", (item.id,))
            continue
        built = _build(inputs, tree, cfg, summariser)
        conn.execute(_RESEAL_NODE, {**built.params(), "id": item.id, "resealed_at": now})
    levels = conn.execute(
        "SELECT level FROM tree_buffers WHERE tree_id = ? AND level > 0 AND item_count > 0",
        (tree_id,),
    ).fetchall()
    for (level,) in levels:
        _set_items(conn, tree_id, level, list(buffer(conn, tree_id, level).item_ids))
    _refresh_root(conn, tree_id, now)
    return [item.id for item in stale]
