"""The coding paraphrase set as figures: how many questions find their memory at 1 and 5.

    python3 benchmarks/paraphrase.py
    python3 benchmarks/paraphrase.py --without lexicon     # recall without related words
    python3 benchmarks/paraphrase.py --without relations   # without the derived ones
    python3 benchmarks/paraphrase.py --without meaning     # without the word vectors

`fixtures/paraphrase/coding.json` holds forty memories of one project and
questions phrased unlike the memory that answers them; `tuned` questions were
used while recall's word relations were chosen, `unseen` ones never were.
The sets others wrote (`fixtures/paraphrase/others-*.json`, notes with
distractors) are measured too, beside their target of 90% in the top five.
tests/read/test_paraphrase.py asks that each is found in the top five (bar
its listed misses); this prints the counts, for the `tuned` and `unseen`
questions apart, beside plain FTS5 bm25 (the question's content words OR-ed)
over the same store.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ablations import ABLATIONS  # noqa: E402

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model import project  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.model.identity import Identity  # noqa: E402
from tree_ring.model.record import Memory, new_memory_id, now_iso  # noqa: E402
from tree_ring.read import query  # noqa: E402
from tree_ring.read.recall import recall  # noqa: E402
from tree_ring.store import fts  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.write import pipeline  # noqa: E402

SET = REPO / "fixtures" / "paraphrase" / "coding.json"
KS = (1, 5)
# Counts at 5 when the brief of issue 34 was written (hand-grown lexicon).
BASELINE = {"tuned": 26, "unseen": 33}


# The sets others wrote (tests/read/test_paraphrase_others.py), and the share
# of their questions recall should find in the top five.
OTHERS = sorted((REPO / "fixtures" / "paraphrase").glob("others-*.json"))
OTHERS_TARGET = 0.90


def baseline(store: Store, question: str, limit: int) -> list[int]:
    words = [w for w in query.terms(question) if w not in query.QUESTION_WORDS]
    if not words:
        return []
    sql = (
        "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? "
        "ORDER BY bm25(memory_fts, 10.0, 3.0, 4.0) LIMIT ?"
    )
    return [r[0] for r in store.query(sql, [" OR ".join(map(fts.quote, words)), limit])]


def _measure(
    work: Path,
    name: str,
    notes: list[tuple[str, str]],
    distractors: list[str],
    rounds: dict[str, list[dict[str, str]]],
) -> dict[str, Any]:
    """A fresh project holding `notes` and `distractors`; each round's
    questions asked of recall and of plain FTS5 bm25 over the same store."""
    root = work / name
    root.mkdir()
    guidance.init_project(root)
    identity = Identity(project.load_project_id(root), "claude-code", "bench", "bench")
    report: dict[str, Any] = {}
    with Store.open(root) as store:
        ids: dict[str, str] = {}
        with store.write() as conn:
            for key, summary in [*notes, *((None, text) for text in distractors)]:
                now = now_iso()
                memory = Memory(
                    id=new_memory_id(),
                    created_at=now,
                    updated_at=now,
                    summary=summary,
                    event_type="note",
                    project=identity.project,
                    valid_from=now,
                ).with_hash()
                pipeline.insert_prepared(conn, memory, Actor.person())
                if key is not None:
                    ids[key] = memory.id
        rowids = {row[1]: row[0] for row in store.query("SELECT rowid, id FROM memories", [])}
        for kind, cases in rounds.items():
            got = {
                "recall": dict.fromkeys(map(str, KS), 0),
                "fts5_bm25": dict.fromkeys(map(str, KS), 0),
            }
            missed: list[str] = []
            for case in cases:
                want = ids[case["memory"]]
                found = [
                    h.memory.id for h in recall(store, identity, case["question"], limit=max(KS))
                ]
                plain = baseline(store, case["question"], max(KS))
                for k in KS:
                    got["recall"][str(k)] += want in found[:k]
                    got["fts5_bm25"][str(k)] += rowids[want] in plain[:k]
                if want not in found[: max(KS)]:
                    missed.append(case["question"])
            report[kind] = {"questions": len(cases), **got, "missed_at_5": missed}
    return report


def run(work: Path) -> dict[str, Any]:
    os.environ["HOME"] = str(work)
    data = json.loads(SET.read_text(encoding="utf-8"))
    rounds = {kind: data[kind] for kind in ("tuned", "unseen")}
    report = _measure(work, "coding", list(data["memories"].items()), [], rounds)
    for path in OTHERS:
        other = json.loads(path.read_text(encoding="utf-8"))
        notes = [(key, text) for key, text in other["memories"]]
        measured = _measure(
            work, path.stem, notes, other["distractors"], {path.stem: other["questions"]}
        )
        report.update(measured)
    return report


def table(report: dict[str, Any]) -> str:
    lines = ["set      questions  bm25@1  bm25@5  recall@1  recall@5  before@5", "-" * 66]
    for kind in ("tuned", "unseen"):
        r = report[kind]
        lines.append(
            f"{kind:<8} {r['questions']:>9}  {r['fts5_bm25']['1']:>6}  {r['fts5_bm25']['5']:>6}"
            f"  {r['recall']['1']:>8}  {r['recall']['5']:>8}  {BASELINE[kind]:>8}"
        )
    others = [report[path.stem] for path in OTHERS]
    for path, r in zip(OTHERS, others, strict=True):
        lines.append(
            f"{path.stem:<8} {r['questions']:>9}  {r['fts5_bm25']['1']:>6}  "
            f"{r['fts5_bm25']['5']:>6}  {r['recall']['1']:>8}  {r['recall']['5']:>8}"
        )
    asked = sum(r["questions"] for r in others)
    found = sum(r["recall"]["5"] for r in others)
    plain = sum(r["fts5_bm25"]["5"] for r in others)
    share = found / max(asked, 1)
    lines.append(
        f"others' sets: recall {found} of {asked} in the top 5 ({share:.1%}), "
        f"bm25 {plain}; target {OTHERS_TARGET:.0%}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--without", action="append", default=[], choices=sorted(ABLATIONS))
    args = parser.parse_args(argv)
    for name in args.without:
        ABLATIONS[name]()
    with tempfile.TemporaryDirectory(prefix="tree-ring-paraphrase-") as tmp:
        report = run(Path(tmp))
    print(json.dumps(report, indent=2, sort_keys=True))
    print(table(report), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
