"""Scale benchmark: stores of 1k, 10k, 100k and 1M memories, measured in one run.

    python3 benchmarks/scale.py                    # every size (the 1M store takes minutes)
    python3 benchmarks/scale.py --quick            # 1k and 10k only
    python3 benchmarks/scale.py --sizes 1000,100000 --json-out benchmarks/out/scale.json

For each size it builds a fresh store through `tree_ring.write.bulk.insert_many` (the
guard, validation, operation claims, FTS index and one hash-chained audit entry
per memory, as a trusted restore of an export: trust states kept, so no
contradiction search) and measures:

- bulk import throughput, beside a plain FTS5 table fed the same text,
  beside SQLite alone writing the rows the import wrote (`sqlite_floor`), and
  beside the ceiling those rows and the Python no write may skip set
  (`required_s_per_memory`);
- `transfer.import_lines` on 1,000 JSONL lines into that store (the public
  import path, governance and contradiction search included);
- once per run, the same path taking the original Tree Ring's JSONL export of
  10,000 memories into a new project (`original_export`);
- one `remember` through the CLI as a separate process;
- recall p50/p95 (library, a fixed query mix) beside a plain FTS5 MATCH;
- brief p50/p95 (library);
- the SessionStart hook as a whole process, run as `hooks/hooks.json` wires
  it (payload on stdin, JSON out), each run between a `python3 -c pass` and
  a bare interpreter with the hook's own flags (`python3 -I -S -c pass`),
  after the benchmark's own writes are flushed to disk;
- database bytes per memory and the peak RSS of this process (its high-water
  mark over the sizes measured so far, taken before the FTS5 baseline).

Times are only compared with each other inside one run (the ratios); the
targets (import at least 20,000 memories/s, recall p95 under 100 ms and the
hook under 100 ms median at 1M) are reported, never asserted. Prints one JSON document and a table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from itertools import islice
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from wired import hook_command, interpreter_flags  # noqa: E402

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model import project  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.model.identity import Identity  # noqa: E402
from tree_ring.model.record import Memory, format_time, sha256  # noqa: E402
from tree_ring.read import brief, recall  # noqa: E402
from tree_ring.store import fts  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.transfer import jsonl as transfer  # noqa: E402
from tree_ring.write import (  # noqa: E402
    bulk,
    pipeline,
)

ALL_SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 10_000)
SEED = 20261129
VOCABULARY = 20_000
BATCH = 10_000
LAUNCHER = REPO / "bin" / "tree-ring"
START_PAYLOAD = REPO / "tests" / "fixtures" / "hooks" / "claude-code-session-start.json"
TARGET_RECALL_P95_MS = 100.0
TARGET_HOOK_MEDIAN_MS = 100.0
TARGET_IMPORT_PER_S = 20_000.0
# Memories whose per-row work `required_s_per_memory` times.
REQUIRED_SAMPLE = 2_000
RINGS = ("cambium",) * 6 + ("outer", "inner", "seed", "scar", "heartwood")
EVENTS = ("note", "lesson", "decision", "warning", "preference", "observation")
SYLLABLES = [
    "ka",
    "te",
    "ri",
    "mo",
    "su",
    "na",
    "lo",
    "vi",
    "de",
    "pa",
    "ge",
    "zu",
    "ban",
    "tor",
    "mil",
    "sen",
    "dar",
    "quo",
    "lex",
    "fin",
    "rot",
    "gal",
    "pum",
    "ser",
    "vok",
    "nel",
    "jas",
    "tib",
    "cor",
    "hun",
]


def vocabulary(rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Corpus:
    """Deterministic memories with a Zipf-like word distribution."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        weights = [1.0 / (rank + 1) for rank in range(len(self.words))]
        total = 0.0
        self.cumulative: list[float] = []
        for weight in weights:
            total += weight
            self.cumulative.append(total)

    def sentence(self, rng: random.Random, length: int) -> str:
        return " ".join(rng.choices(self.words, cum_weights=self.cumulative, k=length))

    def memories(self, count: int, project_id: str) -> Iterator[Memory]:
        rng = random.Random(SEED + count)
        start = datetime(2025, 1, 1, tzinfo=UTC)
        for n in range(count):
            moment = format_time(start + timedelta(seconds=n * 37 % 60_000_000 + n))
            summary = self.sentence(rng, rng.randint(6, 14)).capitalize()
            yield Memory(
                id=f"mem_20250101_000000_{n:012x}",
                created_at=moment,
                updated_at=moment,
                valid_from=moment,
                summary=summary,
                details=self.sentence(rng, rng.randint(0, 30)),
                event_type=rng.choice(EVENTS),
                ring=rng.choice(RINGS),
                project=project_id,
                scope="project",
                tags=tuple(rng.sample(self.words[:200], rng.randint(0, 3))),
                salience=round(rng.random(), 3),
                confidence=round(rng.random(), 3),
                operation_id=f"bench-{n}",
                origin="import",
            )

    def queries(self, count: int) -> list[str]:
        rng = random.Random(SEED - 1)
        out: list[str] = []
        for n in range(count):
            kind = n % 4
            if kind == 0:  # one common word
                out.append(rng.choice(self.words[:50]))
            elif kind == 1:  # two mid-frequency words
                out.append(" ".join(rng.sample(self.words[50:2_000], 2)))
            elif kind == 2:  # a rare word and a common one
                out.append(f"{rng.choice(self.words[5_000:])} {rng.choice(self.words[:200])}")
            else:  # three words, as an agent would ask
                out.append(" ".join(rng.sample(self.words[:5_000], 3)))
        return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds per call."""
    out: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        out.append((time.perf_counter() - start) * 1000)
    return out


def clean_env() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TREE_RING_", "CLAUDE", "CODEX_"))
    }


def process_ms(argv: list[str], repeat: int, stdin: bytes = b"") -> tuple[list[float], bytes]:
    env = clean_env()
    times: list[float] = []
    last = b""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv[1]} failed: {proc.stderr.decode()[-400:]}")
        last = proc.stdout
    return times, last


def store_bytes(root: Path) -> int:
    folder = project.store_path(root).parent
    return sum(p.stat().st_size for p in folder.glob(project.STORE + "*") if p.is_file())


def plain_fts(
    summaries: Iterator[tuple[str, str]], queries: list[str], path: Path
) -> dict[str, float]:
    """The same text in a bare FTS5 table: the floor for insert and MATCH.

    The text is generated a batch at a time, untimed, so only the inserts are
    measured and the benchmark's own memory stays small.
    """
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(
        "CREATE VIRTUAL TABLE f USING fts5(summary, details, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    insert_s = 0.0
    count = 0
    while chunk := list(islice(summaries, BATCH)):
        start = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO f VALUES (?, ?)", chunk)
        conn.execute("COMMIT")
        insert_s += time.perf_counter() - start
        count += len(chunk)
    matches = [
        " AND ".join(f'"{w}"' for w in q.split()) for q in queries
    ]  # the same quoting recall uses

    def one(match: str) -> Callable[[], object]:
        sql = "SELECT rowid, bm25(f) AS r FROM f WHERE f MATCH ? ORDER BY r LIMIT 64"
        return lambda: conn.execute(sql, (match,)).fetchall()

    times = [t for match in matches for t in timed(one(match), 1)]
    conn.close()
    return {
        "insert_per_s": count / insert_s,
        "match_p50_ms": percentile(times, 0.5),
        "match_p95_ms": percentile(times, 0.95),
    }


# The tables a bulk import writes rows into, in the order it writes them.
FLOOR_TABLES = ("memories", "operation_claims", "audit_log", "tree_leaves", "tree_nodes")


def sqlite_floor(source: Path, work: Path, batches: int) -> float:
    """Seconds for SQLite alone to write what a bulk import wrote into `source`.

    A fresh store of the same schema, opened as Tree Ring opens one, takes the
    source's rows of every table a bulk import writes, copied by INSERT ...
    SELECT in as many transactions as the import used, each batch of memories
    indexed by one FTS statement as bulk indexes them. No Python touches a
    row: this is what the import would cost if validation, the guard, the
    hashes and binding the values were free.
    """
    target = work / "floor"
    target.mkdir()
    guidance.init_project(target)
    with Store.open(target) as store:
        conn = store.conn
        conn.execute("ATTACH DATABASE ? AS src", (str(project.store_path(source)),))
        for trigger in fts.INSERT_TRIGGERS:
            conn.execute(f"DROP TRIGGER {trigger}")
        for table in FLOOR_TABLES:
            conn.execute(f"DELETE FROM main.{table}")
        spans = {
            table: conn.execute(f"SELECT coalesce(max(rowid), 0) FROM src.{table}").fetchone()[0]
            for table in FLOOR_TABLES
        }
        start = time.perf_counter()
        with bulk.page_cache(conn, bulk.CACHE_KIB):
            for k in range(batches):
                with store.write():
                    before = conn.execute("SELECT coalesce(max(rowid), 0) FROM memories")
                    indexed = before.fetchone()[0]
                    for table in FLOOR_TABLES:
                        low, high = (spans[table] * n // batches for n in (k, k + 1))
                        conn.execute(
                            f"INSERT INTO main.{table} SELECT * FROM src.{table}"
                            " WHERE rowid > ? AND rowid <= ?",
                            (low, high),
                        )
                        if table == "memories":
                            for index in fts.DEFERRED.values():
                                conn.execute(index, (indexed,))
        seconds = time.perf_counter() - start
    shutil.rmtree(target)
    return seconds


def required_s_per_memory(memories: list[Memory], repeat: int = 3) -> float:
    """Seconds a memory costs in Python work no write may skip, at the least.

    Validation and the guard over every text field (`pipeline.prepare`), the
    operation claim and its retry hash, and the audit entry's detail and hash
    (approximated by one sha256 over the detail, id and time). Binding the
    row, the loop, the summary tree and every object the write builds are
    left out. The best of `repeat` passes: load on the machine only ever adds
    time, and the ceiling below should be one the import cannot pass.
    """
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for memory in memories:
            prepared = pipeline.prepare(memory)
            pipeline.claim_key(prepared)
            pipeline.payload_hash(prepared)
            sha256(pipeline.audit_detail(prepared) + prepared.id + prepared.created_at)
        best = min(best, (time.perf_counter() - start) / len(memories))
    return best


def measure(size: int, corpus: Corpus, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    root = work / f"store-{size}"
    root.mkdir()
    guidance.init_project(root)
    project_id = project.load_project_id(root)
    identity = Identity(project_id)
    person = Actor.person()
    result: dict[str, Any] = {"memories": size}

    with Store.open(root) as store:
        # The corpus is generated a batch at a time outside the clock: only
        # the import itself is timed.
        seconds = cpu_seconds = 0.0
        written = 0
        memories = corpus.memories(size, project_id)
        while chunk := list(islice(memories, BATCH)):
            start, cpu = time.perf_counter(), time.process_time()
            written += len(
                bulk.insert_many(store, chunk, person, action="import", admit=False, batch=BATCH)
            )
            seconds += time.perf_counter() - start
            cpu_seconds += time.process_time() - cpu
        assert written == size
        result["bulk_import_per_s"] = size / seconds
        # CPU time is what a shared, busy machine cannot inflate.
        result["bulk_import_per_cpu_s"] = size / max(cpu_seconds, 1e-9)
        result["bulk_import_s"] = seconds
        os.sync()  # the import's writes, flushed now, do not slow the floor
        floor_s = sqlite_floor(root, work, batches=-(-size // BATCH))
        result["sqlite_floor_per_s"] = size / floor_s
        result["import_vs_sqlite_floor"] = floor_s / seconds
        # SQLite alone plus the Python no write may skip: the most this write
        # path could import a second on this machine.
        sample = list(islice(corpus.memories(size, project_id), REQUIRED_SAMPLE))
        os.sync()  # the floor's store, flushed now, is not written back during the timing
        required = required_s_per_memory(sample)
        result["required_python_us_per_memory"] = required * 1e6
        result["import_ceiling_per_s"] = 1 / (floor_s / size + required)
        result["import_vs_ceiling"] = result["bulk_import_per_s"] / result["import_ceiling_per_s"]
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        result["db_bytes_per_memory"] = store_bytes(root) / size

        rng = random.Random(SEED + 7)
        lines = [
            json.dumps({"summary": corpus.sentence(rng, 9).capitalize(), "event_type": "note"})
            for _ in range(args.import_lines)
        ]
        start = time.perf_counter()
        transfer.import_lines(store, lines, project=project_id, actor=person)
        result["import_lines_per_s"] = len(lines) / (time.perf_counter() - start)

        queries = corpus.queries(args.queries)
        recall_ms = [
            t for q in queries for t in timed(lambda q=q: recall.recall(store, identity, q), 1)
        ]
        result["recall_p50_ms"] = percentile(recall_ms, 0.5)
        result["recall_p95_ms"] = percentile(recall_ms, 0.95)
        brief_ms = timed(lambda: brief.build_brief(store, identity), args.briefs)
        result["brief_p50_ms"] = percentile(brief_ms, 0.5)
        result["brief_p95_ms"] = percentile(brief_ms, 0.95)

    # The library's high-water mark, before the baseline's own work.
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = ((m.summary, m.details) for m in corpus.memories(size, project_id))
    floor = plain_fts(text, queries, work / f"plain-{size}.sqlite")
    result["plain_fts_insert_per_s"] = floor["insert_per_s"]
    result["plain_fts_match_p95_ms"] = floor["match_p95_ms"]
    result["import_vs_plain_fts"] = result["bulk_import_per_s"] / floor["insert_per_s"]
    result["recall_p95_vs_plain_match"] = result["recall_p95_ms"] / max(floor["match_p95_ms"], 1e-3)

    # The stores and the FTS5 baseline above wrote up to gigabytes; flushed
    # now, their writeback cannot land inside the process timings below.
    os.sync()
    remember_ms, _ = process_ms(
        [
            sys.executable,
            str(LAUNCHER),
            "--root",
            str(root),
            "remember",
            "Benchmark note: the nightly job rotates the cache keys",
        ],
        args.processes,
    )
    result["cli_remember_median_ms"] = statistics.median(remember_ms)

    payload = json.loads(START_PAYLOAD.read_text(encoding="utf-8"))
    payload["cwd"] = str(root)
    hook = hook_command(sys.executable)
    flags = interpreter_flags(sys.executable)
    # Each hook run sits between its two baselines, so the ratios compare
    # runs made under the same load.
    hook_ms: list[float] = []
    startup: list[float] = []
    bare: list[float] = []
    out = b""
    for _ in range(args.processes):
        startup += process_ms([sys.executable, "-c", "pass"], 1)[0]
        once, out = process_ms(hook, 1, json.dumps(payload).encode())
        hook_ms += once
        bare += process_ms([sys.executable, *flags, "-c", "pass"], 1)[0]
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    result["hook_median_ms"] = statistics.median(hook_ms)
    result["hook_p95_ms"] = percentile(hook_ms, 0.95)
    result["hook_brief_bytes"] = len(context.encode("utf-8"))
    result["python_startup_median_ms"] = statistics.median(startup)
    result["python_startup_hook_flags_median_ms"] = statistics.median(bare)
    # Against the interpreter the hook starts on (its own flags, -I -S): the
    # tightest honest baseline. Plain `python3 -c pass` pays for site, which
    # the hook does not, so a ratio to it can fall below 1 on a machine whose
    # site imports much.
    result["hook_vs_bare_startup"] = result["hook_median_ms"] / statistics.median(bare)
    if not args.keep:
        shutil.rmtree(root)
        for path in work.glob(f"plain-{size}.sqlite*"):
            path.unlink()
    return result


def baseline(args: argparse.Namespace) -> dict[str, float]:
    repeat = max(args.processes, 5)
    times, _ = process_ms([sys.executable, "-c", "pass"], repeat)
    flags = interpreter_flags(sys.executable)
    bare, _ = process_ms([sys.executable, *flags, "-c", "pass"], repeat)
    return {
        "python_startup_median_ms": statistics.median(times),
        # With the hook's own flags (-I -S): the interpreter the hook starts on.
        "python_startup_hook_flags_median_ms": statistics.median(bare),
    }


# Fields of a Tree Ring export that the original Tree Ring's export lacks.
TREE_RING_ONLY = (
    "trust",
    "valid_from",
    "valid_to",
    "retired_at",
    "redacted_at",
    "origin",
    "origin_session",
    "content_hash",
)


def original_export(corpus: Corpus, count: int, work: Path) -> dict[str, float]:
    """`tree-ring import`'s path for the original Tree Ring's JSONL export of
    `count` memories into a new project: every line through governance (the
    original has no trust states to keep), contradiction search included."""
    root = work / "original-export"
    root.mkdir()
    guidance.init_project(root)
    project_id = project.load_project_id(root)
    lines: list[str] = []
    for memory in corpus.memories(count, project_id):
        row = memory.to_dict()
        for key in TREE_RING_ONLY:
            del row[key]
        lines.append(json.dumps(row))
    with Store.open(root) as store:
        start = time.perf_counter()
        transfer.import_lines(store, lines, project=project_id, actor=Actor.person())
        seconds = time.perf_counter() - start
    shutil.rmtree(root)
    return {"memories": count, "seconds": seconds, "lines_per_s": count / seconds}


def run(args: argparse.Namespace) -> dict[str, Any]:
    sizes = QUICK_SIZES if args.quick else tuple(int(s) for s in args.sizes.split(","))
    corpus = Corpus(SEED)
    work = Path(tempfile.mkdtemp(prefix="tree-ring-scale-", dir=args.work_dir))
    try:
        base = baseline(args)
        print(f"importing the original's export of {args.original:,} ...", file=sys.stderr)
        original = original_export(corpus, args.original, work)
        results: dict[str, Any] = {}
        for size in sizes:
            print(f"measuring {size:,} memories ...", file=sys.stderr, flush=True)
            results[str(size)] = measure(size, corpus, args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    largest = results[str(max(sizes))]
    return {
        "benchmark": "tree-ring scale",
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "sizes": [int(s) for s in results],
        "baseline": base,
        "original_export": original,
        "results": results,
        "targets": {
            "recall_p95_ms": TARGET_RECALL_P95_MS,
            "hook_median_ms": TARGET_HOOK_MEDIAN_MS,
            "recall_p95_met": largest["recall_p95_ms"] < TARGET_RECALL_P95_MS,
            "hook_median_met": (largest.get("hook_median_ms") or 1e9) < TARGET_HOOK_MEDIAN_MS,
            "import_per_s": TARGET_IMPORT_PER_S,
            # The sizes at which the import, and at which its ceiling, reach it.
            "import_met_at": [
                int(size)
                for size, r in results.items()
                if r["bulk_import_per_s"] >= TARGET_IMPORT_PER_S
            ],
            "import_ceiling_reaches_at": [
                int(size)
                for size, r in results.items()
                if r["import_ceiling_per_s"] >= TARGET_IMPORT_PER_S
            ],
            "at": max(sizes),
        },
    }


COLUMNS = (
    ("memories", "memories", "{:,}"),
    ("bulk_import_per_s", "import/s", "{:,.0f}"),
    ("bulk_import_per_cpu_s", "import/cpu-s", "{:,.0f}"),
    ("import_vs_plain_fts", "vs FTS5", "{:.2f}"),
    ("sqlite_floor_per_s", "SQLite alone/s", "{:,.0f}"),
    ("import_vs_sqlite_floor", "vs SQLite", "{:.2f}"),
    ("required_python_us_per_memory", "required us", "{:.1f}"),
    ("import_ceiling_per_s", "ceiling/s", "{:,.0f}"),
    ("import_vs_ceiling", "vs ceiling", "{:.2f}"),
    ("import_lines_per_s", "lines/s", "{:,.0f}"),
    ("cli_remember_median_ms", "remember ms", "{:.0f}"),
    ("recall_p50_ms", "recall p50", "{:.1f}"),
    ("recall_p95_ms", "recall p95", "{:.1f}"),
    ("brief_p50_ms", "brief p50", "{:.2f}"),
    ("brief_p95_ms", "brief p95", "{:.2f}"),
    ("hook_median_ms", "hook p50", "{:.0f}"),
    ("hook_vs_bare_startup", "hook/bare", "{:.2f}"),
    ("db_bytes_per_memory", "bytes/mem", "{:,.0f}"),
    ("peak_rss_mb", "RSS MB", "{:.0f}"),
)


def table(report: dict[str, Any]) -> str:
    heads = [head for _, head, _ in COLUMNS]
    body: list[list[str]] = []
    for result in report["results"].values():
        row: list[str] = []
        for key, _, fmt in COLUMNS:
            value = result.get(key)
            row.append("-" if value is None else fmt.format(value))
        body.append(row)
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(heads)]
    lines = [" | ".join(h.rjust(w) for h, w in zip(heads, widths, strict=True))]
    lines.append("-|-".join("-" * w for w in widths))
    lines += [" | ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in body]
    startup = report["baseline"]["python_startup_median_ms"]
    bare = report["baseline"].get("python_startup_hook_flags_median_ms", 0.0)
    lines.append(
        f"python3 -c pass: {startup:.0f} ms median; with the hook's flags: {bare:.0f} ms "
        "(latencies in ms)"
    )
    original = report["original_export"]
    lines.append(
        f"the original's export of {original['memories']:,} memories into a new project: "
        f"{original['seconds']:.1f} s ({original['lines_per_s']:,.0f} lines/s)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in ALL_SIZES))
    parser.add_argument("--quick", action="store_true", help="1k and 10k only")
    parser.add_argument("--queries", type=int, default=200, help="recall queries per size")
    parser.add_argument("--briefs", type=int, default=50, help="briefs per size")
    parser.add_argument("--processes", type=int, default=15, help="CLI and hook runs per size")
    parser.add_argument("--import-lines", type=int, default=1_000)
    parser.add_argument(
        "--original", type=int, default=10_000, help="lines of the original's export to import"
    )
    parser.add_argument("--json-out", help="also write the JSON document here")
    parser.add_argument("--json-only", action="store_true", help="no table on stdout")
    parser.add_argument("--work-dir", help="where to build the stores (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the stores afterwards")
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
