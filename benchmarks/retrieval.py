"""Retrieval quality: recall@1/5/10 of `tree_ring.read.recall.recall` against plain FTS5.

    python3 benchmarks/retrieval.py            # 10,000 memories, 500 queries
    python3 benchmarks/retrieval.py --quick    # 2,000 memories, 100 queries
    python3 benchmarks/retrieval.py --memories 50000 --queries 1000 --seed 3

Both systems search the same rows in the same run. The baseline is what a
store without Tree Ring's read path would do: the query's words (the same
words recall searches, filler dropped) quoted and OR-ed, ORDER BY bm25, with
the same project filter and no liveness predicate, so it also returns
superseded, expired, pending and private rows. A second baseline is the
trivial known-item search: the AND of the same words, then their OR to
fill. Prints one JSON document; exit 1 when recall is worse than either
baseline at @5 or @10.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus

from tree_ring.read import recall
from tree_ring.store import fts
from tree_ring.store.db import Store

KS = (1, 5, 10)

BASELINE_SQL = (
    "SELECT m.id FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid "
    "WHERE memory_fts MATCH :match AND m.project = :project "
    "ORDER BY bm25(memory_fts) LIMIT :limit"
)


def baseline(store: Store, query: str, limit: int) -> list[str]:
    words = recall.terms(query)
    if not words:
        return []
    match = " OR ".join(fts.quote(w) for w in words)
    params = {"match": match, "project": corpus.PROJECT, "limit": limit}
    return [row[0] for row in store.query(BASELINE_SQL, params)]


def and_then_or(store: Store, query: str, limit: int) -> list[str]:
    """The trivial known-item search: the AND of the words, then the OR to fill."""
    words = recall.terms(query)
    if not words:
        return []
    out: list[str] = []
    for joiner in (" AND ", " OR "):
        match = joiner.join(fts.quote(w) for w in words)
        params = {"match": match, "project": corpus.PROJECT, "limit": limit}
        for row in store.query(BASELINE_SQL, params):
            if row[0] not in out:
                out.append(row[0])
        if len(out) >= limit:
            break
    return out[:limit]


def tree_ring(store: Store, query: str, limit: int) -> list[str]:
    return [hit.memory.id for hit in recall.recall(store, corpus.IDENTITY, query, limit=limit)]


def score(
    search: Callable[[Store, str, int], list[str]],
    store: Store,
    queries: list[corpus.Query],
) -> dict[str, Any]:
    found = {k: 0 for k in KS}
    by_kind: dict[str, dict[int, int]] = {}
    ranks: list[int] = []
    started = time.perf_counter()
    for q in queries:
        ids = search(store, q.text, max(KS))
        rank = ids.index(q.answer) + 1 if q.answer in ids else 0
        ranks.append(rank)
        kind = by_kind.setdefault(q.kind, {k: 0 for k in (0, *KS)})
        kind[0] += 1
        for k in KS:
            if 0 < rank <= k:
                found[k] += 1
                kind[k] += 1
    elapsed = time.perf_counter() - started
    n = len(queries)
    mrr = sum(1 / r for r in ranks if r) / n
    return {
        **{f"recall@{k}": round(found[k] / n, 4) for k in KS},
        "mrr@10": round(mrr, 4),
        "by_kind": {
            kind: {f"recall@{k}": round(c[k] / c[0], 4) for k in KS} | {"queries": c[0]}
            for kind, c in sorted(by_kind.items())
        },
        "mean_ms": round(1000 * elapsed / n, 3),
    }


def run(memories: int, queries: int, seed: int) -> dict[str, Any]:
    data = corpus.build(memories, queries, seed)
    with (
        tempfile.TemporaryDirectory(prefix="tree-ring-bench-") as tmp,
        corpus.open_store(Path(tmp)) as store,
    ):
        corpus.seed(store, data.memories)
        ours = score(tree_ring, store, data.queries)
        plain = score(baseline, store, data.queries)
        known = score(and_then_or, store, data.queries)
    return {
        "benchmark": "retrieval",
        "seed": seed,
        "corpus": data.counts(),
        "tree_ring": ours,
        "baseline_fts5_bm25": plain,
        "baseline_and_then_or": known,
        "not_worse_at_5_and_10": all(
            ours[f"recall@{k}"] >= base[f"recall@{k}"] for k in (5, 10) for base in (plain, known)
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="2,000 memories, 100 queries")
    args = parser.parse_args(argv)
    if args.quick:
        args.memories, args.queries = 2_000, 100
    result = run(args.memories, args.queries, args.seed)
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0 if result["not_worse_at_5_and_10"] else 1


if __name__ == "__main__":
    sys.exit(main())
