"""Explicit recall: build safe FTS5 queries, fetch filtered candidates, rank.

User text never reaches MATCH. The query is split into words, filler words are
dropped, and each word is quoted on its own. Recall climbs down a ladder of
queries, stopping once it has enough candidates: the strict AND of all words,
variants without one ring-intent word each ("deploy failure" -> "deploy"), the
words widened to their word forms ("deploy" also as "deployments"), then
memories sharing any k of the words (k from all but one down to two), and last
an OR of the rarest words. A word no memory contains is left out of the ANDs,
so one stray word cannot empty a rung. Visibility and liveness are in the SQL,
before the candidate cap.

Cost: the FTS index drives every query (bm25 is computed only for rows that
match a rung), candidates carry only the columns ranking reads, and only the
hits are read whole. Word forms are a handful of exact terms, never a prefix
query: a prefix merges the postings of every indexed word that starts with it.
A rung that may match more than `OR_BUDGET` memories (its words are common)
is searched first among the newest `WINDOW` memories, then in windows `WIDEN`
times as wide, until it yields enough hits or covers the store: ranking every
one of a million matches of a common word costs most of a second, and the
newest matches of a word that common are what the ranking favours anyway. A
rung the counts prove narrow is searched whole at once.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Iterator
from datetime import datetime

from tree_ring.model.frozen import Frozen, field
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.read import ranking
from tree_ring.store import live, rows
from tree_ring.store.db import Store
from tree_ring.store.fts import quote
from tree_ring.store.live import View

FILLER = frozenset(
    {
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
    }
)
MAX_TERMS = 16
MAX_TERM_CHARS = 64
DEFAULT_LIMIT = 8
# The any-k-of-n rungs use at most this many words (C(5, 2) = 10 clauses):
# on the benchmark corpus six found nothing five did not, at more cost.
SUBSET_TERMS = 5
# The OR rung reads at most about this many memories (bm25 costs microseconds
# a row): the rarest words that fit, since common words add little to bm25.
OR_BUDGET = 1_000
# A broad rung is searched among the newest WINDOW memories first, then in
# windows WIDEN times as wide (at a million memories: 10k, 40k, 160k, 640k, then all).
WINDOW = 10_000
WIDEN = 4
# A widened word is searched as itself, without one of ENDINGS, and with each
# of SUFFIXES: the forms the porter stemmer does not bring to one stem
# ("deploy" and "deploying" stem to "deploi", "deployments" to "deploy").
ENDINGS = ("s", "es", "ed", "ing", "er", "ers", "ment", "ments", "ation", "ations")
SUFFIXES = ("er", "ment", "ation")


def terms(query: str) -> list[str]:
    """The words of a query worth searching for, in order, without repeats."""
    out: list[str] = []
    for word in re.findall(r"\w+", query.casefold()):
        word = word.strip("_")[:MAX_TERM_CHARS]
        if word and word not in FILLER and word not in out:
            out.append(word)
    return out[:MAX_TERMS]


def word_forms(term: str) -> list[str]:
    """The word, then its other forms, for the widened rung ("deploy" ->
    "deployments"); words under five letters are left as they are."""
    if len(term) < 5:
        return [term]
    base = term
    for ending in sorted(ENDINGS, key=len, reverse=True):
        if term.endswith(ending) and len(term) - len(ending) >= 4:
            base = term[: -len(ending)]
            break
    return list(dict.fromkeys([term, base, *(base + suffix for suffix in SUFFIXES)]))


# One word of a rung: the word, or the word and its forms.
Atom = tuple[str, ...]


def _atom(terms: Atom) -> str:
    return quote(terms[0]) if len(terms) == 1 else "(" + " OR ".join(map(quote, terms)) + ")"


class Rung(Frozen):
    """One query of the ladder: an OR of ANDs of atoms."""

    clauses: tuple[tuple[Atom, ...], ...]

    @property
    def match(self) -> str:
        if len(self.clauses) == 1:
            return " AND ".join(map(_atom, self.clauses[0]))
        return " OR ".join(
            _atom(c[0]) if len(c) == 1 else "(" + " AND ".join(map(_atom, c)) + ")"
            for c in self.clauses
        )


def ladder(words: list[str], counts: dict[str, int] | None = None) -> list[Rung]:
    """The rungs recall climbs down, strictest first; the last rung is an OR.

    `counts` says in how many memories each word occurs (capped at
    OR_BUDGET + 1; default: in plenty). A word no memory holds cannot help an
    AND, so the ANDs use only words that occur. Rungs: every word; without one ring-intent
    word each; the words widened to their forms; any k of the first five
    words, k from one fewer than all down to two; then an OR of the rarest
    words whose memories fit OR_BUDGET between them, so a broad OR never
    scores tens of thousands of one-word matches in a large store.
    """
    if not words:
        return []

    have = [(w,) for w in words if counts is None or counts.get(w, 0) > 0]
    widened = {w: tuple(word_forms(w)) for w in words}
    rungs: list[Rung] = []
    if have:
        rungs.append(Rung((tuple(have),)))
    intent_words = {w for ws in ranking.RING_INTENT.values() for w in ws}
    for dropped in have:
        if dropped[0] in intent_words:
            rest = tuple(w for w in have if w != dropped)
            if rest:
                rungs.append(Rung((rest,)))
    without_intent = tuple(w for w in have if w[0] not in intent_words)
    if without_intent and len(without_intent) < len(have) - 1:
        rungs.append(Rung((without_intent,)))
    rungs.append(Rung((tuple(widened.values()),)))
    head = have[:SUBSET_TERMS]
    for k in range(len(head) - 1, 1, -1):
        rungs.append(Rung(tuple(itertools.combinations(head, k))))
    if len(words) > 1:
        rungs.append(Rung(tuple((widened[w],) for w in _affordable(words, counts))))
    unique: dict[str, Rung] = {}
    for rung in rungs:
        unique.setdefault(rung.match, rung)
    return list(unique.values())


def _affordable(words: list[str], counts: dict[str, int] | None) -> list[str]:
    """The words for the OR rung, in query order: rarest first while their
    memories fit the budget, and always the rarest word that occurs at all
    (words that occur nowhere cost nothing and may still match widened)."""
    if counts is None:
        return words
    chosen: set[str] = set()
    spent = 0
    occurring = False
    for word in sorted(words, key=lambda w: counts.get(w, 0)):
        count = counts.get(word, 0)
        if occurring and spent + count > OR_BUDGET:
            break
        chosen.add(word)
        spent += count
        occurring = occurring or count > 0
    return [w for w in words if w in chosen]


def floors(matches: int, newest: int) -> Iterator[int]:
    """The rowid floors a rung is searched above, narrowest window first; the
    last is 0, the whole store. A rung with at most OR_BUDGET `matches` (as
    counted, no further than OR_BUDGET + 1) is searched whole at once."""
    if matches > OR_BUDGET:
        width = WINDOW
        while width < newest:
            yield newest - width
            width *= WIDEN
    yield 0


def candidate_cap(limit: int) -> int:
    """As in the original: 128 per wanted result, between 256 and 2,048."""
    return max(256, min(2048, 128 * limit))


class Hit(Frozen):
    memory: Memory
    score: float
    parts: dict[str, float] = field(default_factory=lambda: {})
    query: str = ""

    @property
    def label(self) -> str:
        """Rows that are not accepted truth say so wherever they are shown."""
        return "" if self.memory.trust == "accepted" else self.memory.trust.upper()


# What ranking needs of a candidate; the whole row is read only for the hits.
CANDIDATE_COLUMNS = (
    "m.rowid", "m.created_at", "m.salience", "m.confidence", "m.source_type", "m.ring",
    "m.summary", "m.details", "m.tags",
)  # fmt: skip
# How many memories hold a word, counted no further than the OR budget.
COUNT_SQL = (
    "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH :match LIMIT :bound)"
)


def candidate_sql(clause: live.Clause) -> str:
    return (
        f"SELECT {', '.join(CANDIDATE_COLUMNS)}, bm25(memory_fts, 10.0, 3.0, 4.0) AS bm "
        # CROSS JOIN keeps the FTS index as the outer loop: left to itself the
        # planner walks the project's rows and runs MATCH once per row.
        "FROM memory_fts CROSS JOIN memories m ON m.rowid = memory_fts.rowid "
        f"WHERE memory_fts MATCH :match AND memory_fts.rowid > :floor AND {clause.sql} "
        "ORDER BY bm LIMIT :cap"
    )


def hits_sql(count: int) -> str:
    """The winners, read whole, by rowid."""
    return f"SELECT rowid, * FROM memories WHERE rowid IN ({', '.join('?' * count)})"


def _age_days(created_at: str, now: datetime) -> float:
    try:
        then = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return 365.0
    return (now - then).total_seconds() / 86_400


def _matched(text: str, words: list[str]) -> int:
    text = text.casefold()
    # A crude stem keeps "deploys" matching "deploy" without a stemmer here.
    return sum(1 for w in words if w[: max(4, len(w) - 2)] in text)


def recall(
    store: Store,
    identity: Identity,
    query: str,
    *,
    limit: int = DEFAULT_LIMIT,
    view: View | None = None,
    scope: str | None = None,
    whole_project: bool = False,
) -> list[Hit]:
    """The best `limit` live memories for `query`; `whole_project`: a person's
    recall, over every partition of the project (`live.visible`)."""
    view = view or View()
    limit = max(1, min(limit, 256))
    words = terms(query)
    bound = OR_BUDGET + 1

    counted: dict[str, int] = {}

    def count(match: str) -> int:
        if match not in counted:
            counted[match] = store.query(COUNT_SQL, {"match": match, "bound": bound})[0][0]
        return counted[match]

    counts = {w: count(quote(w)) for w in words}
    clause = live.where(identity, view, scope=scope, whole_project=whole_project)
    sql = candidate_sql(clause)
    cap = candidate_cap(limit)
    # rowid -> (candidate columns, bm25 relative to its rung's best, the rung)
    found: dict[int, tuple[sqlite3.Row, float, str]] = {}
    newest = store.query("SELECT coalesce(max(rowid), 0) FROM memories")[0][0]
    for rung in ladder(words, counts):
        match = rung.match
        batch: list[sqlite3.Row] = []
        for floor in floors(count(match), newest):
            params = {**clause.params, "match": match, "cap": cap, "floor": floor}
            batch = store.query(sql, params)
            if len(found) + sum(1 for row in batch if row[0] not in found) >= limit:
                break
        best = min((row[-1] for row in batch), default=0.0)
        for row in batch:
            if row[0] not in found:
                found[row[0]] = (row, row[-1] / best if best < 0 else 0.0, match)
        if len(found) >= limit:
            break
    now = datetime.fromisoformat(view.record_time().replace("Z", "+00:00"))
    wanted = ranking.intents(words)
    scored: list[tuple[ranking.Score, str, int, str]] = []
    for row, relative, match in found.values():
        # In CANDIDATE_COLUMNS order, then bm25.
        rowid, created, salience, confidence, source_type, ring, summary, details, tags, _ = row
        candidate = ranking.Candidate(
            bm25=-relative,
            matched_terms=_matched(f"{summary} {details} {tags}", words),
            query_terms=len(words),
            salience=salience,
            confidence=confidence,
            age_days=_age_days(created, now),
            source_type=source_type,
            ring=ring,
        )
        scored.append((ranking.score(candidate, -1.0, wanted), created, rowid, match))
    scored.sort(key=lambda s: s[1], reverse=True)  # ties: newer first
    scored.sort(key=lambda s: -s[0].total)
    top = scored[:limit]
    if not top:
        return []
    full = store.query(hits_sql(len(top)), [t[2] for t in top])
    by_rowid = {row["rowid"]: rows.from_row(row) for row in full}
    return [
        Hit(by_rowid[rowid], result.total, result.parts, match) for result, _, rowid, match in top
    ]
