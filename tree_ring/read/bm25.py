"""How well a memory's words answer a question's: weighted BM25, in Python.

The index finds candidates; this scores them all on one scale, whichever
query of the ladder found them, so a memory found by a loose rung is not
ranked as if it had matched the strict one. Unlike the index's bm25 each
question word carries a weight (`query.Concept`): the question's own
content words 1, its grammar and ring-intent words less.

    lexical = sum over the question's concepts c (a word and its kin) of
              weight(c) * idf(c) * tf(c) * (K1 + 1) / (tf(c) + K1 * (1 - B + B * len / avg_len))

tf(c) counts the word itself, or where the memory lacks it, its related
words at `query.RELATED_WEIGHT`; idf(c) is that of the word or its kin, as the index
counts the memories holding any of them. A related word thus never scores
more than the word it stands for.

tf counts a word in the summary FIELD_WEIGHTS["summary"] times, in tags and
details less; idf comes from how many memories hold the word (counted by
the index, capped, see recall.py), so rare words count most.
"""

from __future__ import annotations

import math
from collections.abc import Container

from tree_ring.model.fold import searchable
from tree_ring.model.identifiers import with_words
from tree_ring.read.query import Concept, stem, words

K1 = 1.2
B = 0.3
FIELD_WEIGHTS = {"summary": 1.0, "tags": 0.6, "details": 0.4}
# Details can be long; only their opening is read when scoring.
DETAIL_CHARS = 600


def stems(text: str) -> list[str]:
    """The stems of `text`'s words, read as the index reads them: folded,
    each camelCase identifier followed by its words."""
    return [stem(w) for w in words(searchable(with_words(text)).casefold())]


def weighted_terms(
    summary: str,
    tags: str,
    details: str,
    only: Container[str] | None = None,
    runs: bool = False,
) -> tuple[dict[str, float], float]:
    """A memory's stems with their field-weighted counts (only those in
    `only`, when given), and its weighted length (every word). With `runs`,
    its runs of two and three stems too, joined by spaces, as a related
    phrase is weighed (`query.phrase_stem`)."""
    tf: dict[str, float] = {}
    length = 0.0
    for text, weight in (
        (summary, FIELD_WEIGHTS["summary"]),
        (tags, FIELD_WEIGHTS["tags"]),
        (details[:DETAIL_CHARS], FIELD_WEIGHTS["details"]),
    ):
        if not text:
            continue
        words = stems(text)
        for s in words:
            if only is None or s in only:
                tf[s] = tf.get(s, 0.0) + weight
        if runs:
            for at in range(len(words) - 1):
                for run in (words[at : at + 2], words[at : at + 3]):
                    joined = " ".join(run)
                    if len(run) > 1 and (only is None or joined in only):
                        tf[joined] = tf.get(joined, 0.0) + weight
        length += weight * len(words)
    return tf, length


def idf(holding: int, total: int) -> float:
    """BM25's idf: log(1 + (N - n + 0.5) / (n + 0.5)), never below a floor
    above zero, so a word every memory holds still counts a little."""
    n = min(max(holding, 0), total)
    return max(math.log(1 + (total - n + 0.5) / (n + 0.5)), 0.05)


def bm25(
    tf: dict[str, float],
    length: float,
    avg_length: float,
    concepts: tuple[Concept, ...],
    idfs: dict[str, float],
) -> tuple[float, float]:
    """The weighted BM25 of one memory, and the share of the question's
    content words' idf it covers (`covering`): a word held covers its part,
    a word's kin only as much as it is related (its share), and a question
    of no content word is covered by the words it has."""
    score = 0.0
    covered = 0.0
    whole = 0.0
    norm = K1 * (1 - B + B * length / avg_length) if avg_length > 0 else K1
    counted = covering(concepts)
    for concept, counts in zip(concepts, counted, strict=True):
        part = concept.weight * idfs.get(concept.word, 0.0)
        # The word itself, or failing it its kin: kin never add to the word.
        count = max(tf.get(s, 0.0) * share for s, share in concept.stems.items())
        if counts:
            whole += part
        if count:
            score += part * count * (K1 + 1) / (count + norm)
            if counts:
                covered += part * max(share for s, share in concept.stems.items() if tf.get(s))
    return score, (covered / whole if whole else 0.0)


def covering(concepts: tuple[Concept, ...]) -> list[bool]:
    """Which of a question's concepts its coverage is counted over: its
    content words; a question that has none ("outage", "any incidents?",
    words that also say what kind of memory is asked for) by all it has."""
    full = [c.weight >= 1.0 for c in concepts]
    return full if any(full) else [True] * len(concepts)


class Weigher:
    """`bm25` for one question, its side worked out once: recall weighs
    hundreds of memories against the same question, and a memory holds far
    fewer stems than the question's concepts and their kin, so each memory's
    stems are looked up, not each concept's. The same numbers as `bm25`,
    summed in the same order."""

    __slots__ = ("by_stem", "full", "own", "parts", "runs", "whole")

    def __init__(
        self,
        concepts: tuple[Concept, ...],
        idfs: dict[str, float],
        own: Container[str] = frozenset(),
    ) -> None:
        self.parts = [c.weight * idfs.get(c.word, 0.0) for c in concepts]
        self.full = covering(concepts)
        whole = 0.0
        for part, full in zip(self.parts, self.full, strict=True):
            if full:
                whole += part
        self.whole = whole
        self.by_stem: dict[str, list[tuple[int, float]]] = {}
        for i, concept in enumerate(concepts):
            for s, share in concept.stems.items():
                self.by_stem.setdefault(s, []).append((i, share))
        # The stems of the question's own searched words (`ranking`: literal first).
        self.own = own
        # Whether a related phrase is weighed: a memory's runs of words are then counted.
        self.runs = any(" " in s for s in self.by_stem)

    def literal(self, tf: dict[str, float]) -> bool:
        """Whether a memory of these weighed stems holds one of the
        question's own searched words."""
        return any(s in self.own for s in tf)

    def terms(self, summary: str, tags: str, details: str) -> tuple[dict[str, float], float]:
        """`weighted_terms` of a memory, counting only the stems this question
        weighs (the only ones `__call__` reads)."""
        return weighted_terms(summary, tags, details, self.by_stem, self.runs)

    def __call__(
        self, tf: dict[str, float], length: float, avg_length: float
    ) -> tuple[float, float]:
        counts: dict[int, float] = {}
        shares: dict[int, float] = {}  # how near the closest word held is: 1 for the word
        for s, n in tf.items():
            for i, share in self.by_stem.get(s, ()):
                if n * share > counts.get(i, 0.0):
                    counts[i] = n * share
                if share > shares.get(i, 0.0):
                    shares[i] = share
        if not counts:
            return 0.0, 0.0
        norm = K1 * (1 - B + B * length / avg_length) if avg_length > 0 else K1
        score = 0.0
        covered = 0.0
        for i in sorted(counts):
            count, part = counts[i], self.parts[i]
            score += part * count * (K1 + 1) / (count + norm)
            if self.full[i]:
                covered += part * shares[i]
        return score, (covered / self.whole if self.whole else 0.0)
