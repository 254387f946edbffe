"""How recall orders its candidates: one pure function, every part shown.

    score = 0.30 * relevance    the question's weighted BM25 (lexical.py), scaled
                                so the best candidate is 1
          + 0.20 * overlap      share of the question's words (by idf) the memory holds
          + 0.15 * salience     how much the writer said it matters
          + 0.10 * confidence   how sure the writer was
          + 0.15 * recency      exp(-age / 30 days): a fresher duplicate wins
          + 0.05 * authority    source type: user > evidence > manual > agent > other;
                                an imported row's, no more than an import's
                                (`authority`)
          + 0.10 * kind         the memory bears what the question's kind asks for:
                                a time for "when", a number for "how many",
                                a reason for "why", a place for "where";
                                times `KIND_SCALE`: a time 2.5, a place 2
          + 0.10 * subject      the memory opens with a name the question asks about
          + 0.30 * context      the relevance of the memories written up to two
                                before and after it (a question just before counts
                                whole: this memory may be its answer; a memory two
                                before, with a question between, 0.8; any other
                                just beside it 0.35; read/beside.py's `context`)
          + 0.10..1.50 * meaning
                                how near the memory is to the question in meaning
                                (model/vectors.py, read/meaning.py), scaled so
                                the nearest candidate is 1 (if any is nearer
                                than the floor, 0.2); it weighs 0.10 when
                                a candidate holds every word of the question and
                                rises with the cube of the share the best lacks,
                                to 1.50 when none holds any: when the words
                                find little, meaning is what is left
          + 0.50 * time         how near the memory was written to a date the
                                question names (read/dates.py): 1 within it,
                                halving each week outside
          - 0.15 * asking       the share of its relevance that lies in the questions
                                it asks (sentences ending in "?"): a turn that asks
                                "how long do you hold that pose?" holds the
                                question's words, the reply after it the answer
          + 0.25 * answered     that reply's side: the relevance, scaled to the
                                best candidate's, that the memory written just
                                before it holds in the questions it asks
                                (read/beside.py's `answered`)
          + ring_boost          0.20 when the query asks for this ring's genre
                                ("failure" -> scar, "decision" -> heartwood, ...)

Literal first: the total orders candidates within a tier, and a candidate
that holds one of the question's own searched words (or is the reply
written just after one that does), or is near it in meaning (at least
`meaning.TIER` of the nearest candidate's nearness, `meaning.near`), or
was written within a date it names (`dates`), ranks before every
candidate that is none of these
(`Score.literal`): one found through related words only, or through
a word form the scoring does not read as the word. Related words widen
what recall finds; they never put a memory above one that says what the
person asked. "timeout" thus ranks "The request timeout is 60s" above
"Cache warmup halves p95", whatever their salience, age or context.

Relevance is computed over every candidate on one scale, whichever query of
recall's ladder found it (recall.py), and scaled to the best of them.
`recall --json` prints each part, so a person can see why a memory ranked
where it did. The weights were measured on a conversational benchmark
(LoCoMo) and a coding paraphrase set; docs/BENCHMARKS.md gives what each part adds.
"""

from __future__ import annotations

import math

from tree_ring.model.frozen import Frozen

WEIGHTS = {
    "relevance": 0.30,
    "overlap": 0.20,
    "salience": 0.15,
    "confidence": 0.10,
    "recency": 0.15,
    "authority": 0.05,
    "kind": 0.10,
    "subject": 0.10,
    "context": 0.30,
    "meaning": 1.50,
    "time": 0.50,
    "asking": 0.15,
    "answered": 0.25,
}
# What meaning weighs when a candidate holds every word of the question; it
# rises to WEIGHTS["meaning"] as the cube of the share of the question's
# words the best candidate lacks: 0.15 at a third lacking, all of it at none held.
MEANING_LEAST = 0.10
MEANING_CURVE = 3
RING_BOOST = 0.20
RECENCY_DAYS = 30.0
# What bearing a kind's answer weighs, in `kind`s: a conversation's turns that
# tell of one event share its words, and the one that says when ("last
# Friday") or where ("in Chicago") is the answer. A coding note that gives a
# reason or a number is no likelier to answer (docs/RECALL-RANKING.md).
KIND_SCALE = {"when": 2.5, "where": 2.0}

AUTHORITY = {
    "user": 1.0,
    "person": 1.0,
    "evidence": 0.9,
    "manual": 0.8,
    "dox": 0.8,
    "revolve": 0.8,
    "consolidation": 0.6,
    "agent": 0.5,
    "import": 0.4,
}
DEFAULT_AUTHORITY = 0.3


def authority(source_type: str, origin: str) -> float:
    """What a row's source type weighs. An imported row's source type is the
    file's word, as its trust, origin and review are (`transfer/jsonl.py`, a
    team ledger claim in `team/provenance.py`): its origin is the import, and
    it weighs no more than an import, whatever type the file claims. A
    person's restore of their own export keeps the row's origin, so its type
    weighs what it says."""
    weight = AUTHORITY.get(source_type, DEFAULT_AUTHORITY)
    return min(weight, AUTHORITY["import"]) if origin == "import" else weight


# Words that name a ring's genre. A query that uses one boosts that ring, and
# recall also tries the query without it, so "deploy failure" still finds a
# scar that only says "deploy".
RING_INTENT: dict[str, frozenset[str]] = {
    "scar": frozenset(
        {
            "fail",
            "failed",
            "failure",
            "failures",
            "failing",
            "error",
            "errors",
            "bug",
            "bugs",
            "broke",
            "broken",
            "break",
            "mistake",
            "mistakes",
            "regression",
            "crash",
            "crashed",
            "incident",
            "outage",
            "pitfall",
            "pitfalls",
            "gotcha",
            "warning",
            "warnings",
            "scar",
            "scars",
            "avoid",
            "wrong",
        }
    ),
    "heartwood": frozenset(
        {
            "decision",
            "decisions",
            "decided",
            "rule",
            "rules",
            "constraint",
            "constraints",
            "convention",
            "conventions",
            "policy",
            "standard",
            "must",
            "always",
            "heartwood",
            "principle",
            "principles",
        }
    ),
    "seed": frozenset(
        {
            "idea",
            "ideas",
            "roadmap",
            "future",
            "hypothesis",
            "maybe",
            "someday",
            "later",
            "todo",
            "seed",
            "seeds",
            "proposal",
            "option",
            "options",
        }
    ),
    "outer": frozenset({"evidence", "evaluation", "eval", "result", "results", "observed"}),
    "cambium": frozenset({"recent", "latest", "new", "current", "today"}),
}


def intents(terms: list[str]) -> set[str]:
    return {ring for ring, words in RING_INTENT.items() if any(t in words for t in terms)}


class Candidate(Frozen):
    bm25: float  # FTS5 bm25: lower (more negative) is better
    matched_terms: int  # query terms present in the memory's text
    query_terms: int
    salience: float
    confidence: float
    age_days: float
    source_type: str
    ring: str
    # The memory bears what the question's kind asks for: the kind's `KIND_SCALE`, or 1.
    kind_match: float = 0.0
    subject: float = 0.0  # 1: the memory opens with a name the question asks about
    context: float = 0.0  # the best relevance of the memories written beside it
    # It holds one of the question's own searched words, or replies to one that does.
    literal: bool = True
    # Found through related words only (its line says so, whatever its tier).
    related: bool = False
    # Holding none of the question's words, near it in meaning (its line says so).
    near: bool = False
    # Its nearness to the question (model/vectors.py), the nearest candidate's being 1.
    meaning: float = 0.0
    # The share of the question's words (by idf) the candidate holding most of them lacks.
    unmatched: float = 0.0
    # How near its record time lies to the dates the question names (`dates`).
    time: float = 0.0
    # Who wrote it (`Memory.origin`): an import's source type is only a claim (`authority`).
    origin: str = ""
    # The share of its relevance that lies in the questions it asks (`recall._asking`).
    asking: float = 0.0
    # The relevance that the memory just before it holds in its questions,
    # scaled to the best candidate's (`beside.answered`).
    answered: float = 0.0


class Score(Frozen):
    total: float
    parts: dict[str, float]
    literal: bool = True  # False: ranked after every literal candidate
    related: bool = False  # found through related words only (`Candidate.related`)
    near: bool = False  # near the question in meaning, holding none of its words

    @property
    def key(self) -> tuple[bool, float]:
        """What ranking sorts by, best first when sorted in reverse."""
        return (self.literal, self.total)


def score(candidate: Candidate, best_bm25: float, wanted_rings: set[str]) -> Score:
    """Pure: the same inputs always give the same score."""
    c, w = candidate, WEIGHTS
    relevance = c.bm25 / best_bm25 if best_bm25 < 0 else 0.0
    overlap = c.matched_terms / c.query_terms if c.query_terms else 0.0
    unmatched = max(0.0, min(c.unmatched, 1.0))
    meaning = MEANING_LEAST + (w["meaning"] - MEANING_LEAST) * unmatched**MEANING_CURVE
    # Written out rather than looped: recall scores every candidate with this.
    parts = {
        "relevance": round(w["relevance"] * max(0.0, min(relevance, 1.0)), 6),
        "overlap": round(w["overlap"] * min(overlap, 1.0), 6),
        "salience": round(w["salience"] * c.salience, 6),
        "confidence": round(w["confidence"] * c.confidence, 6),
        "recency": round(w["recency"] * math.exp(-max(c.age_days, 0.0) / RECENCY_DAYS), 6),
        "authority": round(w["authority"] * authority(c.source_type, c.origin), 6),
        "kind": round(w["kind"] * c.kind_match, 6),
        "subject": round(w["subject"] * c.subject, 6),
        "context": round(w["context"] * max(0.0, min(c.context, 1.0)), 6),
        "meaning": round(meaning * max(0.0, min(c.meaning, 1.0)), 6),
        "time": round(w["time"] * max(0.0, min(c.time, 1.0)), 6),
        "asking": round(-w["asking"] * max(0.0, min(c.asking, 1.0)), 6),
        "answered": round(w["answered"] * max(0.0, min(c.answered, 1.0)), 6),
        "ring_boost": RING_BOOST if c.ring in wanted_rings else 0.0,
    }
    return Score(round(sum(parts.values()), 6), parts, c.literal, c.related, c.near)
