"""Explicit recall: build safe FTS5 queries, fetch filtered candidates, rank.

User text never reaches MATCH. The query is split into words, filler words are
dropped, and each word is quoted on its own. Recall tries the strict AND of all
words, then variants without one ring-intent word each ("deploy failure" ->
"deploy"), then an OR of the words, stopping once it has enough candidates.
Visibility and liveness are in the SQL, before the candidate cap.
"""

from __future__ import annotations

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


def match_queries(words: list[str]) -> list[str]:
    """Strict first, then variants without a ring-intent word, then the
    same words loosened to their prefixes, then OR."""
    if not words:
        return []
    queries = [" AND ".join(quote(w) for w in words)]
    intent_words = {w for ws in ranking.RING_INTENT.values() for w in ws}
    for dropped in words:
        if dropped in intent_words:
            rest = [w for w in words if w != dropped]
            if rest:
                queries.append(" AND ".join(quote(w) for w in rest))
    without_intent = [w for w in words if w not in intent_words]
    if without_intent and len(without_intent) < len(words) - 1:
        queries.append(" AND ".join(quote(w) for w in without_intent))
    loosened = " AND ".join(loose(w) for w in words)
    if loosened != queries[0]:
        queries.append(loosened)
    if len(words) > 1:
        queries.append(" OR ".join(loose(w) for w in words))
    return list(dict.fromkeys(queries))


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


def candidate_sql(clause: live.Clause) -> str:
    return (
        "SELECT m.*, bm25(memory_fts, 10.0, 3.0, 4.0) AS bm "
        # CROSS JOIN keeps the FTS index as the outer loop: left to itself the
        # planner walks the project's rows and runs MATCH once per row.
        "FROM memory_fts CROSS JOIN memories m ON m.rowid = memory_fts.rowid "
        f"WHERE memory_fts MATCH :match AND {clause.sql} "
        "ORDER BY bm LIMIT :cap"
    )


def _age_days(created_at: str, now: datetime) -> float:
    try:
        then = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return 365.0
    return (now - then).total_seconds() / 86_400


def _matched(memory: Memory, words: list[str]) -> int:
    text = f"{memory.summary} {memory.details} {' '.join(memory.tags)}".casefold()
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
    clause = live.where(identity, view, scope=scope)
    sql = candidate_sql(clause)
    cap = candidate_cap(limit)
    found: dict[str, tuple[sqlite3.Row, float, str]] = {}
    for match in match_queries(words):
        batch = store.query(sql, {**clause.params, "match": match, "cap": cap})
        best = min((row["bm"] for row in batch), default=0.0)
        for row in batch:
            if row["id"] not in found:
                found[row["id"]] = (row, row["bm"] / best if best < 0 else 0.0, match)
        if len(found) >= limit:
            break
    now = datetime.fromisoformat(view.record_time().replace("Z", "+00:00"))
    wanted = ranking.intents(words)
    hits: list[Hit] = []
    for row, relative, match in found.values():
        memory = rows.from_row(row)
        candidate = ranking.Candidate(
            bm25=-relative,
            matched_terms=_matched(memory, words),
            query_terms=len(words),
            salience=memory.salience,
            confidence=memory.confidence,
            age_days=_age_days(memory.created_at, now),
            source_type=memory.source_type,
            ring=memory.ring,
        )
        result = ranking.score(candidate, -1.0, wanted)
        hits.append(Hit(memory, result.total, result.parts, match))
    hits.sort(key=lambda h: h.memory.created_at, reverse=True)  # ties: newer first
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]
