"""Helpers shared by the summary-tree, consolidation and forgetting tests."""

from __future__ import annotations

from typing import Any

from conftest import PERSON, make_memory

from tree_ring.model.actor import Actor
from tree_ring.store import settings
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.tree import seal
from tree_ring.tree.nodes import Tree
from tree_ring.tree.seal import AppendOutcome
from tree_ring.write import pipeline

SYLLABLES = ("ka", "lo", "mi", "ru", "te", "zo", "pa", "ne", "vi", "su")


def word(i: int) -> str:
    """A made-up word per number, so no two memories share content words
    (the contradiction finder would otherwise link similar test sentences)."""
    out = ""
    for _ in range(4):
        out += SYLLABLES[i % len(SYLLABLES)]
        i //= len(SYLLABLES)
    return out + "x"


def sentence(i: int) -> str:
    return f"{word(i).capitalize()} {word(i + 5000)} {word(i + 9000)}"


def tune(store: Store, **budgets: Any) -> None:
    """Small budgets for tests: tune(store, input_token_budget=20, summary_fanout=3)."""
    with store.write() as conn:
        for key, value in budgets.items():
            settings.write(conn, f"tree.{key}", value)


def append_leaf(
    db: Db, tree: Tree, memory_id: str, tokens: int, now: str, *, deferred: bool | None = None
) -> AppendOutcome:
    """One leaf into the L0 buffer, then the seals its gates call for."""
    return seal.append_leaves(db, tree, [(memory_id, tokens)], now, deferred=deferred)


def remember(store: Store, project: str, summary: str, actor: Actor = PERSON, **fields: Any) -> str:
    """Store through the one write path (so the tree hook runs)."""
    return pipeline.store_memory(store, make_memory(project, summary, **fields), actor).id


def all_text(store: Store) -> list[tuple[str, str, str]]:
    """(table, column, text) for every text or blob value in every table."""
    found: list[tuple[str, str, str]] = []
    tables = [
        r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    ]
    for table in tables:
        cursor = store.conn.execute(f'SELECT * FROM "{table}"')
        columns = [d[0] for d in cursor.description]
        for row in cursor:
            for column, value in zip(columns, tuple(row), strict=True):
                if isinstance(value, bytes):
                    found.append((table, column, value.decode("latin-1")))
                elif isinstance(value, str):
                    found.append((table, column, value))
    return found
