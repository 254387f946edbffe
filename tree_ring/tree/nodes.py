"""The summary tree's parts: trees, nodes, buffers, their budgets, and who may be a leaf.

A project's source tree is TinyCortex's bucket-seal tree, kept in the store
(`tree_trees`, `tree_nodes`, `tree_buffers`, `tree_leaves`). This module
reads and creates those rows; `seal` grows the tree and `repair` rebuilds it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from tree_ring.model.errors import UsageError
from tree_ring.model.record import (
    SHARED_SCOPES,
    Memory,
    canonical_json,
    sha256,
)
from tree_ring.model.text import whole_number
from tree_ring.store import settings
from tree_ring.store.sql import Db
from tree_ring.tree.summarise import (
    SummaryInput,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

KINDS = ("source", "topic", "global")


GLOBAL_SCOPE = "global"


# Source trees re-extract labels from each new summary; topic and global trees
# are already pinned to a theme by their scope (as in TinyCortex).
DEFAULT_LABELS = {"source": "extract", "topic": "empty", "global": "empty"}


@dataclass(frozen=True)
class TreeConfig:
    """The tree's budgets as the settings table holds them; the defaults are
    declared once, in `store/settings.TREE`."""

    input_token_budget: int
    output_token_budget: int
    summary_fanout: int
    flush_age_secs: int
    deferred: bool


# The range each number may take. The floors: a fan-out of one would seal
# every node into a chain of copies, and a budget of zero would seal empty
# nodes. The ceilings keep the arithmetic in range: token sums stay far inside
# SQLite's 64-bit integers, and "now minus the flush age" stays a date (a
# century, where Python's datetime would overflow past about two thousand years).
BOUNDS: dict[str, tuple[int, int]] = {
    "input_token_budget": (1, 1_000_000_000),
    "output_token_budget": (1, 1_000_000_000),
    "summary_fanout": (2, 1_000_000),
    "flush_age_secs": (0, 100 * 365 * 86_400),
}


def in_bounds(name: str, value: object) -> bool:
    """Whether `value` is a whole number `name` may take (booleans are not numbers)."""
    low, high = BOUNDS[name]
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def config(db: Db) -> TreeConfig:
    """The live budgets from the settings table; a missing key keeps its default.

    A stored number outside its range (written by hand or by an older version)
    is read as the nearest end of it, and anything else as the floor, so a
    seal never meets a value its arithmetic cannot hold."""
    values = settings.read_many(db, settings.TREE)

    def number(name: str) -> int:
        value, (low, high) = values[f"tree.{name}"], BOUNDS[name]
        if not isinstance(value, int | float) or value != value:  # not a number, or NaN
            return low
        return int(max(low, min(high, value)))

    return TreeConfig(
        input_token_budget=number("input_token_budget"),
        output_token_budget=number("output_token_budget"),
        summary_fanout=number("summary_fanout"),
        flush_age_secs=number("flush_age_secs"),
        deferred=bool(values["tree.deferred"]),
    )


def parse_number(name: str, raw: str) -> int:
    """A tree number from text, or UsageError naming its range."""
    text = raw.strip()
    value = int(text) if whole_number(text) and len(text) <= 20 else None
    if value is None or not in_bounds(name, value):
        low, high = BOUNDS[name]
        raise UsageError(
            f"{name} is a whole number of at least {low} and at most {high}, not {raw[:20]!r}"
        )
    return value


def set_config(db: Db, key: str, raw: str) -> TreeConfig:
    """Change one tree setting from text (`input_token_budget`, `deferred`, ...)."""
    name = key.removeprefix("tree.")
    full = f"tree.{name}"
    if full not in settings.TREE:
        known = ", ".join(k.removeprefix("tree.") for k in settings.TREE)
        raise UsageError(f"unknown tree setting {key[:40]!r}; use one of: {known}")
    value: int | bool
    if isinstance(settings.TREE[full], bool):
        if raw.strip().lower() not in ("true", "false", "1", "0", "on", "off", "yes", "no"):
            raise UsageError(f"{name} is true or false, not {raw[:20]!r}")
        value = raw.strip().lower() in ("true", "1", "on", "yes")
    else:
        value = parse_number(name, raw)
    settings.write(db, full, value)
    return config(db)


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


def get_tree(db: Db, kind: str, scope: str) -> Tree | None:
    row = db.execute("SELECT * FROM tree_trees WHERE kind = ? AND scope = ?", (kind, scope))
    found = row.fetchone()
    return tree_from_row(found) if found else None


def tree_by_id(db: Db, tree_id: str) -> Tree | None:
    found = db.execute("SELECT * FROM tree_trees WHERE id = ?", (tree_id,)).fetchone()
    return tree_from_row(found) if found else None


def get_or_create(db: Db, kind: str, scope: str, now: str) -> Tree:
    if kind not in KINDS:
        raise ValueError(f"unknown tree kind {kind!r}")
    found = get_tree(db, kind, scope)
    if found is not None:
        return found
    tree_id = tree_id_for(kind, scope)
    db.execute(
        "INSERT INTO tree_trees(id, kind, scope, created_at) VALUES (?, ?, ?, ?)",
        (tree_id, kind, scope, now),
    )
    db.execute("INSERT OR IGNORE INTO tree_buffers(tree_id, level) VALUES (?, 0)", (tree_id,))
    return Tree(tree_id, kind, scope, None, 0, "active", now, None)


def buffer(db: Db, tree_id: str, level: int) -> Buffer:
    row = db.execute(
        "SELECT * FROM tree_buffers WHERE tree_id = ? AND level = ?", (tree_id, level)
    ).fetchone()
    if row is None:
        return Buffer(tree_id, level, (), 0, 0, None)
    items = tuple(cast(list[str], json.loads(row["item_ids"])))
    return Buffer(tree_id, level, items, row["item_count"], row["token_sum"], row["oldest_at"])


def node(db: Db, node_id: str) -> Node | None:
    row = db.execute("SELECT * FROM tree_nodes WHERE id = ?", (node_id,)).fetchone()
    return node_from_row(row) if row else None


def eligible(memory: Memory) -> bool:
    """Only what every identity of the project may read: tree nodes are shared.
    And only what does not end: a sealed node keeps its text until a forget
    rebuilds it, so a memory that expires or stops being valid would outlive
    itself in the summary (the same for consolidations)."""
    return (
        memory.project is not None
        and memory.expires_at is None
        and memory.valid_to is None
        and memory.trust == "accepted"
        and memory.sensitivity == "normal"
        and memory.scope in SHARED_SCOPES
        and memory.source_type != "consolidation"
        and memory.redacted_at is None
        and memory.retired_at is None
        and memory.superseded_by is None
    )
