"""Imports that scale: peak memory whatever the number of rows, CPU time linear in it.

    python3 benchmarks/imports.py            # the full run (some minutes of CPU)
    python3 benchmarks/imports.py --quick    # small sizes, to check the script

Every import is `python3 -m tree_ring import FILE` into a fresh project (a
git repository after `tree-ring init`, so the team ledger is written after
the import as it is for a person), run as a child process and measured with
`os.wait4`: its own peak RSS and CPU time (user + system), not wall time, as
the machine is shared.

- peak RSS: files of rows with ~1.3 KB of details (10,000 rows: 14 MB;
  40,000: 58 MB; 100,000: 130 MB) and of short rows without details.
  Target: at most 150 MB at every size.
- CPU growth: lines that share all their words but a number ("Repetitive
  line N alpha beta gamma alpha beta."), at 2,000 to 32,000 lines, each size
  twice the last. Target: no doubling above x2.3 (linear time is x2).
- a shared vocabulary: 100,000 lines of 6 to 12 words drawn from the 200
  commonest of the scale corpus (as `write_path.py` draws them). Target:
  under 60 s of CPU.

Prints a table beside the targets, and one JSON document with `--json-out`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import SEED, Corpus  # noqa: E402

TARGET_RSS_MB = 150.0
TARGET_DOUBLING = 2.3
TARGET_VOCABULARY_S = 60.0
VOCABULARY = 200
FULL = {
    "rss": [("details", 10_000), ("details", 40_000), ("details", 100_000), ("short", 100_000)],
    "growth": (2_000, 4_000, 8_000, 16_000, 32_000),
    "vocabulary": 100_000,
}
QUICK = {
    "rss": [("details", 1_000), ("details", 4_000), ("short", 4_000)],
    "growth": (500, 1_000, 2_000),
    "vocabulary": 5_000,
}


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(count))


_VOCAB = [f"{stem}{n}" for n, stem in enumerate(["pine", "oak", "elm", "ash", "yew"] * 40)]


def details_rows(count: int) -> Iterator[str]:
    rng = random.Random(7)
    for n in range(count):
        yield json.dumps(
            {
                "summary": f"Row {n}: " + _words(rng, 10),
                "details": _words(rng, 220),
                "event_type": "note",
            }
        )


def short_rows(count: int) -> Iterator[str]:
    rng = random.Random(11)
    for n in range(count):
        yield json.dumps({"summary": f"Short row {n}: " + _words(rng, 8), "event_type": "note"})


def repetitive_rows(count: int) -> Iterator[str]:
    for n in range(count):
        line = f"Repetitive line {n} alpha beta gamma alpha beta."
        yield json.dumps({"summary": line, "event_type": "note"})


def vocabulary_rows(count: int) -> Iterator[str]:
    """Lines of 6 to 12 words, each of the 200 most common of the scale
    corpus (`write_path.py`'s text, English words with a Zipf spread)."""
    rng = random.Random(13)
    vocabulary = Corpus(SEED).words[:VOCABULARY]
    for _ in range(count):
        words = rng.choices(vocabulary, k=rng.randint(6, 12))
        yield json.dumps({"summary": " ".join(words).capitalize(), "event_type": "note"})


KINDS: dict[str, Callable[[int], Iterator[str]]] = {
    "details": details_rows,
    "short": short_rows,
}


def run_import(lines: Iterator[str], work: Path) -> dict[str, Any]:
    """Write the file, make a fresh project, import it in a child; its peak RSS and CPU."""
    project = work / "project"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    path = work / "in.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(line + "\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(work / "home")}
    for variable in ("CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CODEX_SESSION_ID", "CODEX_THREAD_ID"):
        env.pop(variable, None)
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    tree_ring = [sys.executable, "-m", "tree_ring", "--root", str(project)]
    subprocess.run([*tree_ring, "init"], check=True, env=env, capture_output=True)
    child = subprocess.Popen(
        [*tree_ring, "import", str(path)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        error = child.stderr.read().decode() if child.stderr else ""
        raise SystemExit(f"import failed ({child.returncode}): {error}")
    return {
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # KB on Linux
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
    }


def measure(sizes: dict[str, Any], work: Path) -> dict[str, Any]:
    rss: list[dict[str, Any]] = []
    for kind, count in sizes["rss"]:
        got = run_import(KINDS[kind](count), work)
        rss.append({"rows": count, "kind": kind, **got})
        print(f"rss {kind} {count}: {got}", file=sys.stderr)
    growth: list[dict[str, Any]] = []
    for count in sizes["growth"]:
        got = run_import(repetitive_rows(count), work)
        growth.append({"lines": count, **got})
        print(f"repetitive {count}: {got}", file=sys.stderr)
    ratios = [round(b["cpu_s"] / a["cpu_s"], 2) for a, b in pairwise(growth)]
    vocabulary = {
        "lines": sizes["vocabulary"],
        **run_import(vocabulary_rows(sizes["vocabulary"]), work),
    }
    print(f"vocabulary: {vocabulary}", file=sys.stderr)
    worst_rss = max(r["peak_rss_mb"] for r in rss)
    return {
        "rss": rss,
        "rss_target_mb": TARGET_RSS_MB,
        "rss_met": worst_rss <= TARGET_RSS_MB,
        "growth": growth,
        "doublings": ratios,
        "doubling_target": TARGET_DOUBLING,
        "growth_met": all(r <= TARGET_DOUBLING for r in ratios),
        "vocabulary": vocabulary,
        "vocabulary_target_s": TARGET_VOCABULARY_S,
        "vocabulary_met": vocabulary["cpu_s"] < TARGET_VOCABULARY_S,
    }


def table(report: dict[str, Any]) -> str:
    def met(ok: bool) -> str:
        return "met" if ok else "MISSED"

    lines = [f"peak RSS of `import` (target <= {TARGET_RSS_MB:.0f} MB): {met(report['rss_met'])}"]
    for r in report["rss"]:
        lines.append(
            f"  {r['rows']:>7,} rows {r['kind']:<8} {r['file_mb']:>6} MB file  "
            f"{r['peak_rss_mb']:>6} MB peak  {r['cpu_s']:>7} s CPU"
        )
    lines.append(
        f"CPU per doubling of repetitive lines (target <= x{TARGET_DOUBLING}): "
        f"{met(report['growth_met'])}"
    )
    growth = report["growth"]
    for i, g in enumerate(growth):
        ratio = f"x{report['doublings'][i - 1]}" if i else ""
        lines.append(f"  {g['lines']:>7,} lines  {g['cpu_s']:>7} s CPU  {ratio}")
    v = report["vocabulary"]
    lines.append(
        f"{v['lines']:,} lines of a {VOCABULARY}-word vocabulary: {v['cpu_s']} s CPU, "
        f"{v['peak_rss_mb']} MB peak (target < {TARGET_VOCABULARY_S:.0f} s): "
        f"{met(report['vocabulary_met'])}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--json-out", type=Path, help="also write the JSON report here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tree-ring-imports-") as tmp:
        report = measure(QUICK if args.quick else FULL, Path(tmp))
    text = json.dumps(report, indent=2)
    print(text)
    print(table(report))
    if args.json_out:
        args.json_out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
