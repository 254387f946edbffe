"""LoCoMo evidence retrieval: recall@1/5/10 of Tree Ring recall beside plain FTS5 bm25.

    python3 benchmarks/locomo.py DATA_DIR              # library and CLI
    python3 benchmarks/locomo.py DATA_DIR --no-cli     # library only (seconds, not minutes)
    python3 benchmarks/locomo.py locomo10.json --json-out out.json

LoCoMo (snap-research/locomo) is a set of long conversations between two
people, each with questions whose answer lies in named turns ("evidence").
DATA_DIR is a folder of per-conversation files (`speaker_a`, `speaker_b`,
`session_N`, `session_N_date_time`, `qa`), or the published `locomo10.json`
(a list of samples, each with `sample_id`, `conversation` and `qa`), or a
folder holding it. The data is not in the repository and this benchmark is
not part of the test suite.

The protocol, one conversation at a time:

- a fresh project and store (`tree-ring init`);
- every turn imported as one memory through `tree-ring import`: the summary is
  `speaker: text`, with the shared image's caption after it when there is one,
  on one line; the memory's time is its session's date (turns a second apart,
  in order); the turn's id is the memory's source ref;
- each question of categories 1-4 (category 5, the adversarial questions
  without an answer in the conversation, is skipped) asked of
  `tree-ring --json recall QUESTION --limit 10` as a separate process, and of
  `tree_ring.read.recall.recall` in this process over the same store;
- a hit at k: any of the question's evidence turns among the first k results.

The baseline, computed in the same run over the same store, is plain SQLite
FTS5: the question's content words (a fixed stop list, below) quoted and
OR-ed, ORDER BY bm25. Prints one JSON document and a table beside the
targets (R@5 >= 0.75 and R@1 >= 0.50 through the CLI, on the held-out conversations).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ablations import ABLATIONS  # noqa: E402

from tree_ring.model import project  # noqa: E402
from tree_ring.model.identity import resolve  # noqa: E402
from tree_ring.read import recall  # noqa: E402
from tree_ring.store import fts  # noqa: E402
from tree_ring.store.db import Options, Store  # noqa: E402

LAUNCHER = REPO / "bin" / "tree-ring"
KS = (1, 5, 10)
CATEGORIES = (1, 2, 3, 4)
TARGETS = {"recall@1": 0.50, "recall@5": 0.75}
# The baseline's stop list, fixed here so the baseline does not move when
# recall's own query handling changes.
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "at",
        "by",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "how",
        "why",
        "when",
        "where",
        "did",
        "do",
        "does",
        "we",
        "our",
        "us",
        "i",
        "me",
        "my",
        "you",
        "your",
        "about",
        "any",
        "there",
        "should",
        "can",
        "could",
        "would",
        "please",
        "tell",
        "remind",
    ]
)
BASELINE_SQL = (
    "SELECT m.source_ref FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid "
    "WHERE memory_fts MATCH :match ORDER BY bm25(memory_fts) LIMIT :limit"
)


@dataclass(frozen=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: list[dict[str, Any]]  # import rows
    questions: list[Question]


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> that moment, as UTC."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn.get('text', '')}"
    caption = turn.get("blip_caption")
    if caption:
        text += f" [shares an image: {caption}]"
    return " ".join(text.split())


def evidence(listed: list[Any]) -> frozenset[str]:
    """Turn ids; a few published entries hold two ids in one string ("D8:6; D9:17")."""
    return frozenset(i for item in listed for i in re.split(r"[;,\s]+", str(item)) if i)


def conversation(name: str, conv: dict[str, Any], qa: list[dict[str, Any]]) -> Conversation:
    rows: list[dict[str, Any]] = []
    numbers = sorted(
        int(m.group(1))
        for key in conv
        if (m := re.fullmatch(r"session_(\d+)", key)) and isinstance(conv[key], list)
    )
    for n in numbers:
        start = session_time(conv[f"session_{n}_date_time"])
        for i, turn in enumerate(conv[f"session_{n}"]):
            at = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            rows.append(
                {
                    "summary": turn_text(turn),
                    "created_at": at,
                    "valid_from": at,
                    "source": {"type": "import", "ref": turn["dia_id"]},
                }
            )
    questions = [
        Question(str(q["question"]), evidence(q.get("evidence", [])), q["category"])
        for q in qa
        if q.get("category") in CATEGORIES and evidence(q.get("evidence", []))
    ]
    return Conversation(name, rows, questions)


def load(path: Path) -> Iterator[Conversation]:
    """Per-conversation files in a folder, or the published single file."""
    if path.is_dir() and (path / "locomo10.json").exists():
        path = path / "locomo10.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        samples = data if isinstance(data, list) else [data]
        for i, sample in enumerate(samples):
            conv = sample.get("conversation", sample)
            yield conversation(str(sample.get("sample_id", i)), conv, sample["qa"])
        return
    for file in sorted(path.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        conv = data.get("conversation", data)
        yield conversation(file.stem, conv, data["qa"])


def clean_env(home: Path) -> dict[str, str]:
    """A person at a terminal: no harness, no Tree Ring variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TREE_RING_", "CLAUDE", "CODEX_")) and k != "AI_AGENT"
    }
    env["HOME"] = str(home)
    return env


def cli(root: Path, env: dict[str, str], *args: str) -> dict[str, Any]:
    argv = [sys.executable, str(LAUNCHER), "--root", str(root), "--json", *args]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(args[:1])} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def refs(document: dict[str, Any]) -> list[str]:
    """Source refs of a recall's results, under `items` or the older `results`."""
    listed = document.get("items", document.get("results", []))
    return [str(item.get("source", {}).get("ref", "")) for item in listed]


def baseline(store: Store, question: str, limit: int) -> list[str]:
    words = [w for w in re.findall(r"\w+", question.casefold()) if w not in STOP]
    if not words:
        return []
    match = " OR ".join(fts.quote(w) for w in dict.fromkeys(words))
    return [row[0] for row in store.query(BASELINE_SQL, {"match": match, "limit": limit})]


class Tally:
    def __init__(self) -> None:
        self.n = 0
        self.hits = {k: 0 for k in KS}
        self.by_category: dict[int, list[int]] = {}
        self.ms: list[float] = []

    def add(self, ranked: list[str], q: Question, ms: float = 0.0) -> None:
        self.n += 1
        self.ms.append(ms)
        cat = self.by_category.setdefault(q.category, [0] * (len(KS) + 1))
        cat[0] += 1
        for i, k in enumerate(KS):
            if q.evidence & set(ranked[:k]):
                self.hits[k] += 1
                cat[i + 1] += 1

    def report(self) -> dict[str, Any]:
        n = max(self.n, 1)
        out: dict[str, Any] = {f"recall@{k}": round(self.hits[k] / n, 4) for k in KS}
        out["questions"] = self.n
        out["by_category"] = {
            str(c): {f"recall@{k}": round(v[i + 1] / v[0], 4) for i, k in enumerate(KS)}
            | {"questions": v[0]}
            for c, v in sorted(self.by_category.items())
        }
        if any(self.ms):
            ordered = sorted(self.ms)
            out["p50_ms"] = round(ordered[len(ordered) // 2], 2)
            out["p95_ms"] = round(ordered[int(len(ordered) * 0.95)], 2)
        return out


def run(data: Path, use_cli: bool, work: Path) -> dict[str, Any]:
    tallies = {"fts5_bm25": Tally(), "library": Tally()}
    if use_cli:
        tallies["cli"] = Tally()
    misses: list[dict[str, Any]] = []
    for conv in load(data):
        root = work / conv.name
        home = work / f"{conv.name}-home"
        root.mkdir()
        home.mkdir()
        env = clean_env(home)
        cli(root, env, "init")
        lines = root / "turns.jsonl"
        lines.write_text("".join(json.dumps(r) + "\n" for r in conv.turns), encoding="utf-8")
        imported = cli(root, env, "import", str(lines))
        # `imported` counts the rows written (older outputs listed them as `created`).
        written = imported.get("imported", len(imported.get("created", [])))
        # A turn in the very words of an earlier one is that memory again, as
        # an import with no ids takes it ("John: Take care, bye!" twice in
        # conversation 47): one memory, under the earlier turn's reference.
        if written + imported.get("unchanged", 0) != len(conv.turns):
            raise SystemExit(f"{conv.name}: imported {written} of {len(conv.turns)} turns")
        identity = resolve(project.load_project_id(root), env)
        with Store.open(root, options=Options.from_environ(env)) as store:
            for q in conv.questions:
                tallies["fts5_bm25"].add(baseline(store, q.text, max(KS)), q)
                started = time.perf_counter()
                hits = recall.recall(store, identity, q.text, limit=max(KS))
                ms = (time.perf_counter() - started) * 1000
                ranked = [h.memory.source_ref or "" for h in hits]
                tallies["library"].add(ranked, q, ms)
                if not q.evidence & set(ranked[:5]):
                    misses.append({"conversation": conv.name, "question": q.text})
                if use_cli:
                    started = time.perf_counter()
                    found = refs(cli(root, env, "recall", q.text, "--limit", str(max(KS))))
                    tallies["cli"].add(found, q, (time.perf_counter() - started) * 1000)
    report: dict[str, Any] = {name: t.report() for name, t in tallies.items()}
    report["targets"] = TARGETS
    report["missed_at_5"] = len(misses)
    return report


def table(report: dict[str, Any]) -> str:
    lines = ["system        R@1     R@5     R@10    questions", "-" * 50]
    for name in ("fts5_bm25", "library", "cli"):
        if name in report:
            r = report[name]
            lines.append(
                f"{name:<12}  {r['recall@1']:.3f}   {r['recall@5']:.3f}   "
                f"{r['recall@10']:.3f}   {r['questions']}"
            )
    lines.append(f"target        {TARGETS['recall@1']:.3f}   {TARGETS['recall@5']:.3f}   (CLI)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder of conversations, or locomo10.json")
    parser.add_argument("--no-cli", action="store_true", help="library and baseline only")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        choices=sorted(ABLATIONS),
        help="switch one of recall's techniques off in the library run (repeatable)",
    )
    args = parser.parse_args(argv)
    for name in args.without:
        ABLATIONS[name]()
    if not args.data.exists():
        parser.error(f"{args.data} does not exist; pass the LoCoMo folder or locomo10.json")
    with tempfile.TemporaryDirectory(prefix="tree-ring-locomo-") as tmp:
        report = run(args.data, not args.no_cli, Path(tmp))
    text = json.dumps(report, indent=2, sort_keys=True)
    if args.json_out:
        args.json_out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print(table(report), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
