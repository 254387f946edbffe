"""Explicit recall: build safe FTS5 queries, fetch filtered candidates, rank.

User text never reaches MATCH. The query is split into words, filler words are
dropped, and each word is quoted on its own. Recall climbs down a ladder of
queries, stopping once it has enough candidates: the strict AND of all words,
variants without one ring-intent word each ("deploy failure" -> "deploy"), the
words loosened to their prefixes, then memories sharing any k of the words (k
from all but one down to two), and last an OR of the rarest words. A word no
memory contains is left out of the ANDs, so one stray word cannot empty a
rung. Visibility and liveness are in the SQL, before the candidate cap.

Cost: the FTS index drives every query (bm25 is computed only for rows that
match a rung), candidates carry only the columns ranking reads, and only the
hits are read whole. The any-k rungs and the budgeted OR replace a broad OR
that made recall score thousands of one-word matches in a large store.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime

from tree_ring import live, ranking, rows
from tree_ring.identity import Identity
from tree_ring.live import View
from tree_ring.record import Memory
from tree_ring.store import Store

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


def terms(query: str) -> list[str]:
    """The words of a query worth searching for, in order, without repeats."""
    out: list[str] = []
    for word in re.findall(r"\w+", query.casefold()):
        word = word.strip("_")[:MAX_TERM_CHARS]
        if word and word not in FILLER and word not in out:
            out.append(word)
    return out[:MAX_TERMS]


def quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def loose(term: str) -> str:
    """The word, or any word sharing its start: the porter stemmer alone does
    not match "deploy" to "deployments" (they stem to different tokens)."""
    if len(term) < 5:
        return quote(term)
    return f"({quote(term)} OR {quote(term[: max(4, len(term) - 3)])}*)"


def match_queries(words: list[str], counts: dict[str, int] | None = None) -> list[str]:
    """The ladder recall climbs down, strictest first; the last rung is OR.

    `counts` says in how many memories each word occurs (capped at
    OR_BUDGET + 1; default: in plenty). A word no memory holds cannot help
    an AND, so the ANDs use only words that occur. Rungs: every word; without
    one ring-intent word each; the words loosened to their prefixes; any k of
    the first five words, k from one fewer than all down to two; then an OR of
    the rarest words whose memories fit OR_BUDGET between them, so a broad OR
    never scores tens of thousands of one-word matches in a large store.
    """
    if not words:
        return []
    have = words if counts is None else [w for w in words if counts.get(w, 0) > 0]
    queries: list[str] = []
    if have:
        queries.append(" AND ".join(quote(w) for w in have))
    intent_words = {w for ws in ranking.RING_INTENT.values() for w in ws}
    for dropped in have:
        if dropped in intent_words:
            rest = [w for w in have if w != dropped]
            if rest:
                queries.append(" AND ".join(quote(w) for w in rest))
    without_intent = [w for w in have if w not in intent_words]
    if without_intent and len(without_intent) < len(have) - 1:
        queries.append(" AND ".join(quote(w) for w in without_intent))
    loosened = " AND ".join(loose(w) for w in words)
    if not queries or loosened != queries[0]:
        queries.append(loosened)
    head = have[:SUBSET_TERMS]
    for k in range(len(head) - 1, 1, -1):
        subsets = itertools.combinations(head, k)
        queries.append(" OR ".join("(" + " AND ".join(map(quote, s)) + ")" for s in subsets))
    if len(words) > 1:
        queries.append(" OR ".join(loose(w) for w in _affordable(words, counts)))
    return list(dict.fromkeys(queries))


def _affordable(words: list[str], counts: dict[str, int] | None) -> list[str]:
    """The words for the OR rung, in query order: rarest first while their
    memories fit the budget, and always the rarest word that occurs at all
    (words that occur nowhere cost nothing and may still match loosened)."""
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


def candidate_cap(limit: int) -> int:
    """As in the original: 128 per wanted result, between 256 and 2,048."""
    return max(256, min(2048, 128 * limit))


@dataclass(frozen=True)
class Hit:
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
        f"WHERE memory_fts MATCH :match AND {clause.sql} "
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
) -> list[Hit]:
    view = view or View()
    limit = max(1, min(limit, 256))
    words = terms(query)
    bound = OR_BUDGET + 1
    counts = {w: store.query(COUNT_SQL, {"match": quote(w), "bound": bound})[0][0] for w in words}
    clause = live.where(identity, view, scope=scope)
    sql = candidate_sql(clause)
    cap = candidate_cap(limit)
    # rowid -> (candidate columns, bm25 relative to its rung's best, the rung)
    found: dict[int, tuple[sqlite3.Row, float, str]] = {}
    for match in match_queries(words, counts):
        batch = store.query(sql, {**clause.params, "match": match, "cap": cap})
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
