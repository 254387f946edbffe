"""Write-path benchmark: single writes as the store grows, and imports that stream.

    python3 benchmarks/write_path.py            # stores of 1k and 1M, imports of 10k/100k lines
    python3 benchmarks/write_path.py --quick    # stores of 1k and 10k, imports of 1k/5k lines

Three measurements, each printed beside its target, met or not, with the
measured reason:

- single writes: `pipeline.store_memory` of one memory at a time (governed:
  the write policy, review policy and contradiction search, as a person's
  `remember`), into a small and a large store built through the bulk path
  (`bulk.insert_many`, a trusted restore, as `benchmarks/scale.py` builds its
  stores). Writes alternate between the two stores in blocks, so load on the
  machine falls on both alike; rates are per CPU second (the machine is
  shared), wall rates beside them. Target: the large store's writes no slower
  than 3x the small store's. The time each write spends in each stage of the
  write path (decide, persist, after, commit) is recorded, and the stage that
  grows most is named as the reason.
- import peak RSS: `python3 -m tree_ring import` of files of ~6 KB lines,
  each run in a child process and measured with
  resource.getrusage(RUSAGE_CHILDREN). Target: under 150 MB at every size, and
  flat: the largest file's peak within 1.5x the smallest's, for a file ten
  times larger.
- import time of text with a small shared vocabulary: lines of 6 to 12 words
  drawn from 200, where every word is common and a search by single words
  grows with the square of the file. Target: 100,000 lines in under 60 s of
  the import process's CPU time (wall time beside it), and under 150 MB of
  peak RSS.
- growth of that import: the same text at 4,000, 8,000 and 16,000 lines,
  each run once after the other; the CPU time of each doubling, against the
  2x of linear time. Target: no doubling above x2.5 (a search that grows with
  the batch shows x3.5 to x4).

Prints one JSON document and a short table; `--json-out` also writes the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import SEED, Corpus  # noqa: E402

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model import project  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.model.record import Memory, format_time, new_memory_id  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.write import bulk, pipeline  # noqa: E402

FULL = {"stores": (1_000, 1_000_000), "writes": 600, "rss_lines": (10_000, 100_000)}
QUICK = {"stores": (1_000, 10_000), "writes": 120, "rss_lines": (1_000, 5_000)}
FULL_REPETITIVE = 100_000
QUICK_REPETITIVE = 5_000
FULL_GROWTH = (4_000, 8_000, 16_000)
QUICK_GROWTH = (500, 1_000, 2_000)
TARGET_DOUBLING = 2.5
BLOCK = 20  # writes to one store before switching to the other
BUILD_BATCH = 10_000
LINE_BYTES = 6_000
VOCABULARY = 200

TARGET_WRITE_RATIO = 3.0
TARGET_RSS_MB = 150.0
TARGET_RSS_GROWTH = 1.5
TARGET_REPETITIVE_S = 60.0
TARGET_REPETITIVE_LINES = 100_000

STAGES = ("decide", "persist", "after")


# ------------------------------------------------------------------ single writes


def build_store(root: Path, size: int, corpus: Corpus) -> str:
    """A store of `size` memories written through the bulk path in one call."""
    root.mkdir(parents=True)
    guidance.init_project(root)
    project_id = project.load_project_id(root)
    with Store.open(root) as store:
        written = bulk.insert_many(
            store,
            corpus.memories(size, project_id),
            Actor.person(),
            action="import",
            admit=False,
            batch=BUILD_BATCH,
        )
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert len(written) == size
    return project_id


def new_memories(corpus: Corpus, project_id: str, count: int, seed: int) -> list[Memory]:
    """What a person would remember: a sentence of the corpus, some details."""
    rng = random.Random(seed)
    out: list[Memory] = []
    for _ in range(count):
        now = format_time(datetime.now(UTC))
        out.append(
            Memory(
                id=new_memory_id(),
                created_at=now,
                updated_at=now,
                valid_from=now,
                summary=corpus.sentence(rng, rng.randint(6, 14)).capitalize(),
                details=corpus.sentence(rng, rng.randint(0, 30)),
                event_type="note",
                project=project_id,
            )
        )
    return out


class StageClock:
    """CPU time spent in each stage of the write path, by wrapping the stage
    functions `pipeline.insert_prepared_many` calls."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self._real: dict[str, Callable[..., Any]] = {}

    def __enter__(self) -> StageClock:
        for name in STAGES:
            real = self._real[name] = getattr(pipeline, name)
            setattr(pipeline, name, self._timed(name, real))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, real in self._real.items():
            setattr(pipeline, name, real)

    def _timed(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                self.seconds[name] += time.process_time() - start

        return timed


def single_writes(roots: dict[int, Path], projects: dict[int, str], writes: int) -> dict[str, Any]:
    corpus = Corpus(SEED)
    person = Actor.person()
    stores = {size: Store.open(root) for size, root in roots.items()}
    # The same sentences for every store, so the stores differ only in size.
    queue = {size: new_memories(corpus, projects[size], writes, SEED + 3) for size in stores}
    cpu = dict.fromkeys(stores, 0.0)
    wall = dict.fromkeys(stores, 0.0)
    clocks = {size: StageClock() for size in stores}
    try:
        for start in range(0, writes, BLOCK):
            for size, store in stores.items():
                block = queue[size][start : start + BLOCK]
                with clocks[size]:
                    began, began_cpu = time.perf_counter(), time.process_time()
                    for memory in block:
                        pipeline.store_memory(store, memory, person)
                    wall[size] += time.perf_counter() - began
                    cpu[size] += time.process_time() - began_cpu
    finally:
        for store in stores.values():
            store.close()
    results: dict[str, Any] = {}
    for size in stores:
        stages = {name: 1000 * s / writes for name, s in clocks[size].seconds.items()}
        stages["rest"] = 1000 * cpu[size] / writes - sum(stages.values())
        results[str(size)] = {
            "memories": size,
            "writes": writes,
            "per_cpu_s": writes / cpu[size],
            "per_s": writes / wall[size],
            "cpu_ms_per_write": 1000 * cpu[size] / writes,
            "stage_cpu_ms": stages,
        }
    small, large = (results[str(size)] for size in sorted(stores))
    ratio = small["per_cpu_s"] / large["per_cpu_s"]
    growth = {
        name: large["stage_cpu_ms"][name] - small["stage_cpu_ms"][name]
        for name in small["stage_cpu_ms"]
    }
    grew = max(growth, key=lambda name: growth[name])
    reason = (
        f"{small['cpu_ms_per_write']:.2f} ms of CPU a write at {small['memories']:,} memories, "
        f"{large['cpu_ms_per_write']:.2f} ms at {large['memories']:,}; most of the difference "
        f"({growth[grew]:+.2f} ms) is in {grew} "
        f"({small['stage_cpu_ms'][grew]:.2f} -> {large['stage_cpu_ms'][grew]:.2f} ms)"
    )
    return {
        "sizes": sorted(stores),
        "results": results,
        "ratio_cpu": ratio,
        "ratio_wall": small["per_s"] / large["per_s"],
        "target_ratio": TARGET_WRITE_RATIO,
        "met": ratio <= TARGET_WRITE_RATIO,
        "grew_most": grew,
        "reason": reason,
    }


# ------------------------------------------------------------------ imports

# Runs the import in a child and reports what it used: the child's peak RSS is
# the largest RUSAGE_CHILDREN has seen, as this wrapper has no other child.
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "code": done.returncode,
    "stderr": done.stderr.decode()[-500:],
    "wall_s": time.perf_counter() - start,
    "cpu_s": usage.ru_utime + usage.ru_stime,
    "peak_rss_mb": usage.ru_maxrss / 1024,
}))
"""


def run_import(path: Path, work: Path, name: str) -> dict[str, Any]:
    root = work / name
    root.mkdir()
    guidance.init_project(root)
    argv = [sys.executable, "-m", "tree_ring", "--root", str(root), "--json", "import", str(path)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TREE_RING_", "CLAUDE"))}
    env.pop("CODEX_SESSION_ID", None)
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=True,
    )
    measured: dict[str, Any] = json.loads(done.stdout)
    if measured.pop("code") != 0:
        raise RuntimeError(f"import of {path.name} failed: {measured['stderr']}")
    measured.pop("stderr")
    with sqlite3.connect(project.store_path(root)) as conn:
        measured["memories"] = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    shutil.rmtree(root)
    return measured


def long_lines(count: int, seed: int) -> Iterator[str]:
    """JSONL lines of about LINE_BYTES each: a summary and long details."""
    rng = random.Random(seed)
    words = Corpus(SEED).words
    for _ in range(count):
        summary = " ".join(rng.choices(words, k=rng.randint(8, 12))).capitalize()
        details: list[str] = []
        size = 0
        while size < LINE_BYTES - 200:
            word = rng.choice(words)
            details.append(word)
            size += len(word) + 1
        row = {"summary": summary, "details": " ".join(details), "event_type": "note"}
        yield json.dumps(row)


def repetitive_lines(count: int, seed: int) -> Iterator[str]:
    """Lines of 6 to 12 words, every one of them from the same 200."""
    rng = random.Random(seed)
    words = Corpus(SEED).words[:VOCABULARY]
    for _ in range(count):
        summary = " ".join(rng.choices(words, k=rng.randint(6, 12))).capitalize()
        yield json.dumps({"summary": summary, "event_type": "note"})


def write_file(path: Path, lines: Iterator[str]) -> int:
    with path.open("w", encoding="utf-8") as out:
        for chunk in iter(lambda: list(islice(lines, 1_000)), []):
            out.write("\n".join(chunk) + "\n")
    return path.stat().st_size


def import_rss(sizes: tuple[int, ...], work: Path) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for count in sizes:
        path = work / f"long-{count}.jsonl"
        file_bytes = write_file(path, long_lines(count, SEED + count))
        measured = run_import(path, work, f"rss-{count}")
        path.unlink()
        results.append({"lines": count, "file_mb": file_bytes / 2**20, **measured})
    small, large = results[0], results[-1]
    growth = large["peak_rss_mb"] / small["peak_rss_mb"]
    under = all(r["peak_rss_mb"] < TARGET_RSS_MB for r in results)
    flat = growth <= TARGET_RSS_GROWTH
    reason = (
        f"peak RSS {small['peak_rss_mb']:.0f} MB for {small['lines']:,} lines "
        f"({small['file_mb']:.0f} MB of file), {large['peak_rss_mb']:.0f} MB for "
        f"{large['lines']:,} ({large['file_mb']:.0f} MB): x{growth:.2f} for a file "
        f"x{large['file_mb'] / small['file_mb']:.0f}"
    )
    return {
        "results": results,
        "target_mb": TARGET_RSS_MB,
        "target_growth": TARGET_RSS_GROWTH,
        "growth": growth,
        "under_target": under,
        "flat": flat,
        "met": under and flat,
        "reason": reason,
    }


def import_repetitive(count: int, work: Path) -> dict[str, Any]:
    path = work / f"repetitive-{count}.jsonl"
    write_file(path, repetitive_lines(count, SEED + 11))
    measured = run_import(path, work, "repetitive")
    path.unlink()
    # The target is for 100,000 lines; a quick run scales it to its size.
    target = TARGET_REPETITIVE_S * count / TARGET_REPETITIVE_LINES
    reason = (
        f"{measured['cpu_s']:.1f} s of CPU ({measured['wall_s']:.1f} s wall) for {count:,} "
        f"lines of a {VOCABULARY}-word vocabulary, "
        f"{1e6 * measured['cpu_s'] / count:.0f} us a line"
    )
    return {
        "lines": count,
        "vocabulary": VOCABULARY,
        **measured,
        "us_per_line": 1e6 * measured["cpu_s"] / count,
        "target_s": target,
        "target_rss_mb": TARGET_RSS_MB,
        "met": measured["cpu_s"] < target and measured["peak_rss_mb"] < TARGET_RSS_MB,
        "reason": reason + f", peak RSS {measured['peak_rss_mb']:.0f} MB",
    }


def import_growth(sizes: tuple[int, ...], work: Path) -> dict[str, Any]:
    """The repetitive import at doubling sizes: linear time doubles with each."""
    results: list[dict[str, Any]] = []
    for count in sizes:
        path = work / f"growth-{count}.jsonl"
        write_file(path, repetitive_lines(count, SEED + 11))
        measured = run_import(path, work, f"growth-{count}")
        path.unlink()
        results.append({"lines": count, **measured})
    ratios = [later["cpu_s"] / earlier["cpu_s"] for earlier, later in pairwise(results)]
    reason = (
        ", ".join(
            f"{r['lines']:,} lines {r['cpu_s']:.2f} s cpu ({r['peak_rss_mb']:.0f} MB)"
            for r in results
        )
        + "; each doubling x"
        + ", x".join(f"{x:.2f}" for x in ratios)
    )
    return {
        "results": results,
        "doubling_cpu": ratios,
        "target_doubling": TARGET_DOUBLING,
        "met": all(x <= TARGET_DOUBLING for x in ratios),
        "reason": reason,
    }


# ------------------------------------------------------------------ report


def run(args: argparse.Namespace) -> dict[str, Any]:
    plan = QUICK if args.quick else FULL
    stores = tuple(int(s) for s in args.stores.split(",")) if args.stores else plan["stores"]
    writes = args.writes or plan["writes"]
    rss_lines = (
        tuple(int(n) for n in args.rss_lines.split(",")) if args.rss_lines else plan["rss_lines"]
    )
    repetitive = args.repetitive or (QUICK_REPETITIVE if args.quick else FULL_REPETITIVE)
    growth = (
        tuple(int(n) for n in args.growth.split(","))
        if args.growth
        else (QUICK_GROWTH if args.quick else FULL_GROWTH)
    )
    work = Path(tempfile.mkdtemp(prefix="tree-ring-write-", dir=args.work_dir))
    corpus = Corpus(SEED)
    try:
        roots: dict[int, Path] = {}
        projects: dict[int, str] = {}
        for size in stores:
            print(f"building a store of {size:,} memories ...", file=sys.stderr, flush=True)
            roots[size] = work / f"store-{size}"
            projects[size] = build_store(roots[size], size, corpus)
        print(f"{writes} single writes into each ...", file=sys.stderr, flush=True)
        writes_report = single_writes(roots, projects, writes)
        for root in roots.values():
            shutil.rmtree(root)
        print("imports ...", file=sys.stderr, flush=True)
        rss_report = import_rss(rss_lines, work)
        repetitive_report = import_repetitive(repetitive, work)
        growth_report = import_growth(growth, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "benchmark": "tree-ring write path",
        "quick": bool(args.quick),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "single_writes": writes_report,
        "import_rss": rss_report,
        "import_repetitive": repetitive_report,
        "import_growth": growth_report,
    }


def table(report: dict[str, Any]) -> str:
    writes = report["single_writes"]
    rss = report["import_rss"]
    rep = report["import_repetitive"]
    grow = report["import_growth"]
    small, large = (writes["results"][str(size)] for size in writes["sizes"])
    rows = [
        (
            f"single writes {small['memories']:,} -> {large['memories']:,}",
            f"{small['per_cpu_s']:,.0f} -> {large['per_cpu_s']:,.0f}/cpu-s "
            f"(x{writes['ratio_cpu']:.2f}; wall x{writes['ratio_wall']:.2f})",
            f"<= x{writes['target_ratio']:.0f}",
            writes["met"],
            writes["reason"],
        ),
        (
            "import peak RSS " + ", ".join(f"{r['lines']:,}" for r in rss["results"]) + " lines",
            ", ".join(f"{r['peak_rss_mb']:.0f} MB" for r in rss["results"]),
            f"< {rss['target_mb']:.0f} MB, x{rss['target_growth']}",
            rss["met"],
            rss["reason"],
        ),
        (
            f"import {rep['lines']:,} lines of {rep['vocabulary']} words",
            f"{rep['cpu_s']:.1f} s cpu ({rep['wall_s']:.1f} s wall), {rep['peak_rss_mb']:.0f} MB",
            f"< {rep['target_s']:.0f} s, < {rep['target_rss_mb']:.0f} MB",
            rep["met"],
            rep["reason"],
        ),
        (
            "import growth " + " -> ".join(f"{r['lines']:,}" for r in grow["results"]),
            ", ".join(f"x{x:.2f}" for x in grow["doubling_cpu"]) + " cpu a doubling",
            f"<= x{grow['target_doubling']}",
            grow["met"],
            grow["reason"],
        ),
    ]
    heads = ("measured", "result", "target", "met")
    cells = [(a, b, c, "yes" if d else "NO") for a, b, c, d, _ in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(heads)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True))]
    lines.append("-|-".join("-" * w for w in widths))
    lines += [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines += [f"  {row[0]}: {row[4]}" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a minute or two)")
    parser.add_argument("--stores", help="the two store sizes, e.g. 1000,1000000")
    parser.add_argument("--writes", type=int, help="single writes into each store")
    parser.add_argument("--repetitive", type=int, help="lines of the small-vocabulary import")
    parser.add_argument("--growth", help="line counts of the growth imports, e.g. 500,1000,2000")
    parser.add_argument("--rss-lines", help="line counts of the long-line imports, e.g. 1000,5000")
    parser.add_argument("--json-out", help="also write the JSON document here")
    parser.add_argument("--json-only", action="store_true", help="no table on stdout")
    parser.add_argument("--work-dir", help="where to build stores and files (default: temp)")
    args = parser.parse_args(argv)
    report = run(args)
    document = json.dumps(report, indent=1, sort_keys=True)
    if args.json_out:
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_out).write_text(document + "\n", encoding="utf-8")
    print(document)
    if not args.json_only:
        print(table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
