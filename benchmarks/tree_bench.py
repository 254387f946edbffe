"""Summary-tree benchmark: build from scratch, one append, and the brief, at growing sizes.

    python3 benchmarks/tree_bench.py            # 1k, 10k, 100k memories (a few minutes)
    python3 benchmarks/tree_bench.py --quick    # 100, 1k, 10k, small budgets (seconds)

For each size the store is filled with that many memories of one project
(bulk-inserted, so the tree is not built yet), then:

- build: `repair.rebuild` builds the project's tree from scratch;
- append: `--appends` more memories, each in its own write transaction as the
  write path does it; `tree_us` times the tree hook alone
  (`seal.on_insert`, amortised seals included), `write_us` the row,
  hook and commit, `plain_write_us` the same write without the hook;
- brief: `brief.build_brief` with the tree's history line, and the line alone.

Figures are printed as one JSON document. What matters is how they move with
size in one run (`ratios`), never their absolute values: an append must stay
O(log n), so the append ratio between the largest and smallest size stays
near 1 while the size grows 100x.
"""

from __future__ import annotations

import argparse
import json
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, format_time
from tree_ring.read import brief
from tree_ring.store import rows, settings
from tree_ring.store.db import Store
from tree_ring.tree import nodes, repair, seal

WORDS = (
    *("cache", "index", "schema", "deploy", "rollback", "token", "budget", "retry"),
    *("backoff", "queue", "worker", "shard", "replica", "vacuum", "migration", "fixture"),
    *("parser", "lexer", "render", "socket", "proxy", "header", "cookie", "session"),
    *("ledger", "audit", "tombstone", "brief", "recall", "ranking", "sealing", "buffer"),
    *("fanout", "cascade"),
)


def summary_text(i: int) -> str:
    """About 120 characters (30 estimated tokens), different for every i."""
    picks = [WORDS[(i * k + k * k) % len(WORDS)] for k in (3, 5, 7, 11, 13, 17)]
    return (
        f"Item {i}: the {picks[0]} {picks[1]} step needs {picks[2]} before {picks[3]}; "
        f"see src/{picks[4]}/{picks[5]}_{i % 97}.py for the details."
    )


def memory(project_id: str, i: int, at: datetime) -> Memory:
    stamp = format_time(at)
    return Memory(
        id=f"mem_bench_{i:09d}",
        created_at=stamp,
        updated_at=stamp,
        summary=summary_text(i),
        event_type="note",
        project=project_id,
        valid_from=stamp,
        salience=((i * 37) % 100) / 100,
    ).with_hash()


def stats_us(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {
        "median": round(statistics.median(ordered) * 1e6, 1),
        "p95": round(p95 * 1e6, 1),
        "max": round(ordered[-1] * 1e6, 1),
        "mean": round(statistics.fmean(ordered) * 1e6, 1),
    }


def one_size(size: int, appends: int, budgets: dict[str, int], brief_runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tree-bench-") as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        guidance.init_project(root)
        project_id = project.load_project_id(root)
        start = datetime(2026, 1, 1, tzinfo=UTC)
        with Store.open(root) as store:
            with store.write() as conn:
                for key, value in budgets.items():
                    settings.write(conn, f"tree.{key}", value)
                for i in range(size):
                    rows.insert(conn, memory(project_id, i, start + timedelta(seconds=i)))
            began = time.perf_counter()
            with store.write() as conn:
                repair.rebuild(conn, project_id)
            build = time.perf_counter() - began

            tree_times: list[float] = []
            write_times: list[float] = []
            plain_times: list[float] = []
            for n in range(appends):
                i = size + n
                fresh = memory(project_id, i, start + timedelta(seconds=i))
                began = time.perf_counter()
                with store.write() as conn:
                    rows.insert(conn, fresh)
                    hook = time.perf_counter()
                    seal.on_insert(conn, fresh)
                    tree_times.append(time.perf_counter() - hook)
                write_times.append(time.perf_counter() - began)
                # The same write without the hook, as a baseline in the same run.
                plain = memory(project_id, i + 10**8, start + timedelta(seconds=i))
                began = time.perf_counter()
                with store.write() as conn:
                    rows.insert(conn, plain)
                plain_times.append(time.perf_counter() - began)

            identity = Identity(project_id)
            brief_times: list[float] = []
            line_times: list[float] = []
            shown = brief.build_brief(store, identity)
            for _ in range(brief_runs):
                began = time.perf_counter()
                brief.build_brief(store, identity)
                brief_times.append(time.perf_counter() - began)
                began = time.perf_counter()
                brief.history_line(store, identity)
                line_times.append(time.perf_counter() - began)
            tree = nodes.get_tree(store.conn, "source", project_id)
            levels = dict(
                store.conn.execute("SELECT level, count(*) FROM tree_nodes GROUP BY level")
            )
    return {
        "memories": size,
        "build": {
            "seconds": round(build, 3),
            "per_memory_us": round(build / max(1, size) * 1e6, 1),
        },
        "append": {
            "tree_us": stats_us(tree_times),
            "write_us": stats_us(write_times),
            "plain_write_us": stats_us(plain_times),
        },
        "brief": {
            "median_ms": round(statistics.median(brief_times) * 1e3, 3),
            "p95_ms": round(sorted(brief_times)[int(len(brief_times) * 0.95)] * 1e3, 3),
            "history_line_median_ms": round(statistics.median(line_times) * 1e3, 3),
            "has_history_line": "[history]" in shown.text,
            "bytes": len(shown.text.encode("utf-8")),
        },
        "tree": {
            "max_level": tree.max_level if tree else 0,
            "nodes_per_level": {str(k): v for k, v in sorted(levels.items())},
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Summary-tree benchmark (prints JSON).")
    parser.add_argument("--quick", action="store_true", help="small sizes, small budgets")
    parser.add_argument("--sizes", help="comma-separated memory counts")
    parser.add_argument("--appends", type=int, help="appends timed per size")
    parser.add_argument("--input-budget", type=int, help="tree.input_token_budget")
    parser.add_argument("--output-budget", type=int, help="tree.output_token_budget")
    parser.add_argument("--fanout", type=int, help="tree.summary_fanout")
    args = parser.parse_args(argv)
    if args.quick:
        sizes, appends, budget, brief_runs = [100, 1_000, 10_000], 300, 600, 10
    else:
        sizes, appends, budget, brief_runs = [1_000, 10_000, 100_000], 2_000, 50_000, 100
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    budgets = {
        "input_token_budget": args.input_budget or budget,
        "output_token_budget": args.output_budget or 5_000,
        "summary_fanout": args.fanout or 10,
        "flush_age_secs": 604_800,
    }
    appends = args.appends or appends
    runs = [one_size(size, appends, budgets, brief_runs) for size in sizes]
    first, last = runs[0], runs[-1]

    def ratio(path: tuple[str, str]) -> float:
        a = first["append"][path[0]][path[1]]
        b = last["append"][path[0]][path[1]]
        return round(b / a, 3) if a else 0.0

    report = {
        "quick": args.quick,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "config": {**budgets, "appends": appends, "sizes": sizes},
        "runs": runs,
        "ratios": {
            "size": round(last["memories"] / first["memories"], 3),
            "tree_append_median": ratio(("tree_us", "median")),
            "tree_append_mean": ratio(("tree_us", "mean")),
            "write_median": ratio(("write_us", "median")),
            "hook_share_of_write_median": round(
                last["append"]["tree_us"]["median"] / last["append"]["write_us"]["median"], 3
            ),
            "brief_median": round(last["brief"]["median_ms"] / first["brief"]["median_ms"], 3),
        },
    }
    print(json.dumps(report, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
