"""Reading the summary tree: status, one node and its children, search, the root.

Only a project's source tree is read on a caller's behalf; its leaves are
memories every identity of the project may see (see `nodes.eligible`),
so a node never shows one agent's private partition to another. Stale nodes
are never shown (forgetting rebuilds them before its transaction commits).

Search never passes user text to MATCH: the query is split into words
(`recall.terms`, filler dropped) and each is looked for as a plain substring
of a node's content, entities and topics, with bound parameters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tree_ring.model.identity import Identity
from tree_ring.read.brief import flat  # the history line's form of a node, kept light there
from tree_ring.read.recall import terms
from tree_ring.store import live, rows
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.tree import nodes, seal
from tree_ring.tree.nodes import Node, Tree

SNIPPET_LINES = 3
SNIPPET_CHARS = 240
DEFAULT_LIMIT = 5


def source_tree(db: Db, project: str) -> Tree | None:
    return nodes.get_tree(db, "source", project)


def root_node(db: Db, project: str) -> Node | None:
    """The project's current root summary, once its history has sealed one."""
    tree = source_tree(db, project)
    if tree is None or tree.root_id is None:
        return None
    found = nodes.node(db, tree.root_id)
    return found if found is not None and not found.stale else None


def node_in_project(db: Db, project: str, node_id: str) -> Node | None:
    """A node of this project's source tree, or None (another project's is not shown)."""
    tree = source_tree(db, project)
    found = nodes.node(db, node_id)
    if tree is None or found is None or found.tree_id != tree.id or found.stale:
        return None
    return found


@dataclass(frozen=True)
class Child:
    id: str
    kind: str  # memory | node
    text: str  # a memory's summary, or the first entry of a node
    level: int = 0
    leaf_count: int = 1
    live: bool = True  # False: a memory not live now (superseded, expired, ...)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def children(db: Db, parent: Node, identity: Identity) -> list[Child]:
    """What a node was sealed over, in order: memories at L1, nodes above."""
    if parent.level > 1:
        out: list[Child] = []
        for child_id in parent.child_ids:
            child = nodes.node(db, child_id)
            if child is not None and not child.stale:
                first = flat(child.content).split(" | ")[0]
                out.append(Child(child.id, "node", first, child.level, child.leaf_count))
        return out
    clause = live.where(identity, View())
    sql = (
        "SELECT m.* FROM memories m WHERE m.id IN (SELECT value FROM json_each(:ids))"
        f" AND {clause.sql}"
    )
    params = {**clause.params, "ids": json.dumps(list(parent.child_ids))}
    shown = {row["id"]: rows.from_row(row) for row in db.execute(sql, params)}
    return [
        Child(i, "memory", shown[i].summary) if i in shown else Child(i, "memory", "", live=False)
        for i in parent.child_ids
    ]


@dataclass(frozen=True)
class TreeHit:
    node: Node
    matched: int  # query words found
    occurrences: int
    snippet: str

    def to_dict(self) -> dict[str, Any]:
        n = self.node
        return {
            "node": n.id,
            "level": n.level,
            "matched_terms": self.matched,
            "occurrences": self.occurrences,
            "snippet": self.snippet,
            "time_range": [n.time_range_start, n.time_range_end],
            "memories": n.leaf_count,
            "children": len(n.child_ids),
            "entities": list(n.entities),
            "topics": list(n.topics),
        }


def _stem(word: str) -> str:
    # The crude stem recall uses, so "deploys" finds "deploy" without a stemmer.
    return word[: max(4, len(word) - 2)]


def search_sql(words: list[str]) -> tuple[str, dict[str, Any]]:
    """The candidate query; ASCII words prefilter in SQL, the rest in Python."""
    params: dict[str, Any] = {}
    sql = (
        "SELECT n.* FROM tree_nodes n JOIN tree_trees t ON t.id = n.tree_id"
        " WHERE t.kind = 'source' AND t.scope = :project AND n.stale = 0"
    )
    if words and all(w.isascii() for w in words):
        # SQLite's lower() folds ASCII only, which is exactly when it agrees
        # with Python's casefold; otherwise every node goes to the scorer.
        haystack = "lower(n.content || ' ' || n.entities || ' ' || n.topics)"
        ors: list[str] = []
        for index, word in enumerate(words):
            params[f"w{index}"] = _stem(word)
            ors.append(f"instr({haystack}, :w{index}) > 0")
        sql += f" AND ({' OR '.join(ors)})"
    return sql, params


def search(db: Db, project: str, query: str, *, limit: int = DEFAULT_LIMIT) -> list[TreeHit]:
    """Summary nodes that mention the query's words, best first."""
    words = terms(query)
    if not words:
        return []
    stems = [_stem(w) for w in words]
    sql, params = search_sql(words)
    hits: list[TreeHit] = []
    for row in db.execute(sql, {**params, "project": project}):
        found = nodes.node_from_row(row)
        labels = " ".join((*found.entities, *found.topics)).casefold()
        text = found.content.casefold()
        matched = sum(1 for s in stems if s in text or s in labels)
        if not matched:
            continue
        occurrences = sum(text.count(s) for s in stems)
        entries = [
            e for e in flat(found.content).split(" | ") if any(s in e.casefold() for s in stems)
        ]
        snippet = " | ".join(entries[:SNIPPET_LINES])
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 3] + "..."
        hits.append(TreeHit(found, matched, occurrences, snippet))
    # More words matched first; then the more specific (lower) node; then the
    # denser mention; then the newer history.
    hits.sort(key=lambda h: h.node.time_range_end, reverse=True)
    hits.sort(key=lambda h: (-h.matched, h.node.level, -h.occurrences))
    return hits[: max(1, min(limit, 100))]


# ------------------------------------------------------------------ status


def _levels(db: Db, tree: Tree, cfg: nodes.TreeConfig) -> list[dict[str, Any]]:
    counts = {
        level: (count, stale or 0)
        for level, count, stale in db.execute(
            "SELECT level, count(*), sum(stale) FROM tree_nodes WHERE tree_id = ? GROUP BY level",
            (tree.id,),
        )
    }
    buffers = {
        level: nodes.buffer(db, tree.id, level)
        for (level,) in db.execute("SELECT level FROM tree_buffers WHERE tree_id = ?", (tree.id,))
    }
    out: list[dict[str, Any]] = []
    for level in sorted(set(counts) | set(buffers)):
        buf = buffers.get(level) or nodes.Buffer(tree.id, level, (), 0, 0, None)
        if level == 0:
            gate: dict[str, Any] = {"budget_tokens": cfg.input_token_budget}
            fill = buf.token_sum / cfg.input_token_budget
        else:
            gate = {"fanout": cfg.summary_fanout}
            fill = buf.item_count / cfg.summary_fanout
        count, stale = counts.get(level, (0, 0))
        out.append(
            {
                "level": level,
                "nodes": count,
                "stale": stale,
                "buffer": {
                    "items": buf.item_count,
                    "token_sum": buf.token_sum,
                    "oldest_at": buf.oldest_at,
                    "fill": round(fill, 4),
                    "seal_pending": seal.gate_reached(buf, cfg),
                    **gate,
                },
            }
        )
    return out


def status(db: Db) -> dict[str, Any]:
    """Per tree: levels with node counts and buffer fill, leaves, the root; and the settings."""
    cfg = nodes.config(db)
    trees: list[dict[str, Any]] = []
    for row in db.execute("SELECT * FROM tree_trees ORDER BY kind, scope").fetchall():
        tree = nodes.tree_from_row(row)
        levels = _levels(db, tree, cfg)
        leaves, waiting = db.execute(
            "SELECT count(*), count(*) - count(parent_id) FROM tree_leaves WHERE tree_id = ?",
            (tree.id,),
        ).fetchone()
        trees.append(
            {
                **tree.__dict__,
                "levels": levels,
                "leaves": leaves,
                "waiting_leaves": waiting,
                # Deferred appends leave gates reached until `tree flush`.
                "seal_pending": any(lv["buffer"]["seal_pending"] for lv in levels),
            }
        )
    return {"settings": dict(cfg.__dict__), "trees": trees}
