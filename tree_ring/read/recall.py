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

Recall reads the question first (`query.understand`). The ladder of its own
words runs first; the same ladder with each word widened by its kin from the
lexicon runs only while the candidates number fewer than `POOL`, since a
related word widens every rung it joins. Every candidate is then scored on
one scale (`bm25.bm25`, the question's words and kin, weighted), whichever
rung found it, and ranked by `ranking.score`. The best candidates that ask a
question bring the memory written just after them, read by rowid under the
same visibility and liveness predicate: a reply answers in its own words.
A day the question names ("on 3 March 2025", `dates.py`) brings the
memories written that day, at most `DATED`, newest first, under the same
predicate, whatever words they hold; every candidate is weighed by how near
its record time lies to the dates the question names.

Cost: the FTS index drives every query, candidates carry only the columns
ranking reads, and only the hits are read whole. A rung's matches, when they
are all its matches (in the store, or above a window's floor) and no more
than the cap, are its candidates, read by rowid under the liveness
predicate. When they are more, the best are kept by bm25: the index's, if
every word of the question is in fewer memories than the budget or the
store holds fewer than `INDEX_BM25_BELOW`; otherwise the question's weighted
BM25 of `bm25.py` over the live matches, since the index's bm25 reads
every posting of every word of a rung to weigh it (tens of milliseconds for
common words in a million memories).
An any-k-of-n rung writes each word a few times, not once per subset of k
(`fts.at_least`): FTS5 reads a word's postings each time it is written.
bm25 also weighs a word each time it is written, so two of an odd number
of words, where halving writes some words more often and the rung has the
most matches to rank, pairs each word with its next neighbours around a
circle instead, which writes every word alike. Word forms are a
handful of exact terms, never a prefix query: a prefix merges the postings of
every indexed word that starts with it. A rung with more than `OR_BUDGET`
matches (its words are common) is searched first among the newest `WINDOW`
memories, then in windows `WIDEN` times as wide, until it yields enough hits
or covers the store: ranking every one of a million matches of a common word
costs most of a second, and the newest matches of a word that common are what
the ranking favours anyway. A rung the counts prove narrow is searched whole
at once.

A rung is first read in the index's order, which FTS5 reads faster than
newest first, without bm25 and no further than one match past the cap: a
rung within the cap needs no weighing, and its matches are all candidates,
however old. A rung past the cap, in a store wider than a window, is
weighed as a broad rung is, newest window first: bm25 reads every posting of
every word a rung writes and then weighs each match, so weighing a rung of
some hundreds of matches whole cost more than all the rest of a recall at
100,000 memories, and its newest matches are the ones the ranking favours.
Where the index does not weigh, a word's count also says how common it is
(how far its first counted memories reach), and a rung of plain words
expected to match fewer than the budget, as its words would if held
independently, is read in the index's order first.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from tree_ring.model import jsontext
from tree_ring.model.frozen import Frozen, field
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, seconds_of
from tree_ring.read import beside, bm25, meaning, ranking, rungs
from tree_ring.read.forms import indexed_forms, word_forms
from tree_ring.read.query import (
    FILLER,
    MAX_TERMS,
    Question,
    bears,
    stem,
    terms,
    understand,
)

__all__ = ["FILLER", "MAX_TERMS", "Hit", "candidate_cap", "recall", "terms", "word_forms"]
from tree_ring.store import fts, live, rows
from tree_ring.store.db import Store
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

DEFAULT_LIMIT = 8
# Below this many memories the index's bm25 chooses among a rung's many
# matches at no more cost than weighing them in Python (about 10 ms either
# way for common words at 100,000 memories); at a million it costs three
# to four times as much (its document frequencies read every posting).
INDEX_BM25_BELOW = 250_000
# Ranking scores at least this many candidates when the ladder can find
# them: a strict rung's few matches are not always the best answers.
POOL = 40
# At most this many memories written on the days the question names join
# the candidates, the newest of each day first.
DATED = 32
DATED_MATCH = "written on a day the question names"


def candidate_cap(limit: int) -> int:
    """As in the original: 128 per wanted result, between 256 and 2,048."""
    return max(256, min(2048, 128 * limit))


class Hit(Frozen):
    memory: Memory
    score: float
    parts: dict[str, float] = field(default_factory=lambda: {})
    query: str = ""
    # False: found through related words only, ranked after every literal hit.
    literal: bool = True
    # Found through related words only, ranked by score with the rest where
    # nothing holds the question's words: its line says so all the same.
    related: bool = False
    # Holding none of the question's words, it ranks with those that do for
    # being near it in meaning: its line says so, however it was found.
    near: bool = False

    @property
    def key(self) -> tuple[bool, float]:
        """How hits from more than one store are ordered, best first when
        sorted in reverse: literal first, then by score (`ranking`)."""
        return (self.literal, self.score)

    @property
    def label(self) -> str:
        """Rows that are not accepted truth say so wherever they are shown."""
        return "" if self.memory.trust == "accepted" else self.memory.trust.upper()


class Scale(Frozen):
    """What one recall reads its candidates' meaning against (`_score_all`):
    the nearest candidate's nearness, and the largest share of the
    question's words (by idf) that one candidate holds. A recall over two
    stores reads both stores' (`joined`), so a store whose memories hold none
    of the question's words does not weigh its nearest one as if meaning
    were all there was to go on. (Relevance stays each store's own: two
    indexes' word counts are not one scale.)"""

    nearest: float = 0.0
    covered: float = 0.0

    def joined(self, other: Scale | None) -> Scale:
        if other is None:
            return self
        return Scale(
            nearest=max(self.nearest, other.nearest), covered=max(self.covered, other.covered)
        )


# What ranking needs of a candidate; the whole row is read only for the hits.
CANDIDATE_COLUMNS = (
    "m.rowid", "m.created_at", "m.salience", "m.confidence", "m.source_type", "m.ring",
    "m.summary", "m.details", "m.tags", "m.origin",
)  # fmt: skip
# How many memories hold a word, counted no further than the OR budget, and
# the last rowid counted: how far that many reach tells how common a
# commoner word is.
COUNT_SQL = (
    "SELECT count(*), max(rowid) FROM (SELECT rowid FROM memory_fts "
    "WHERE memory_fts MATCH :match LIMIT :bound)"
)
# A rung's newest matches, no more than the OR budget: their number says
# whether the rung is narrow, and those above a window's floor are all its
# matches there whenever the list reaches below the floor; they are then the
# candidates themselves, read by rowid, with no second search of the index
# and no bm25 (whose document frequencies read every posting of every word).
MATCHES_SQL = (
    "SELECT rowid, 0.0 FROM memory_fts WHERE memory_fts MATCH :match "
    "ORDER BY rowid DESC LIMIT :bound"
)
# The same, each match with its bm25 (as `candidate_sql` weighs it), when the
# index's bm25 is cheap: a rung is then searched once, and its best are
# chosen among its matches without a second search of the index.
SCORED_MATCHES_SQL = (
    "SELECT rowid, bm25(memory_fts, 10.0, 3.0, 4.0) FROM memory_fts "
    "WHERE memory_fts MATCH :match ORDER BY rowid DESC LIMIT :bound"
)
# The same two in the index's own order, for a rung that may have fewer
# matches than the budget: all of them, whichever end they are read from.
ANY_MATCHES_SQL = "SELECT rowid, 0.0 FROM memory_fts WHERE memory_fts MATCH :match LIMIT :bound"
SCORED_ANY_MATCHES_SQL = (
    "SELECT rowid, bm25(memory_fts, 10.0, 3.0, 4.0) FROM memory_fts "
    "WHERE memory_fts MATCH :match LIMIT :bound"
)
# A rung's matches above the first window's floor, newest first, with bm25:
# a rung past the cap is weighed there first, as a broad rung is.
SCORED_WINDOW_SQL = (
    "SELECT rowid, bm25(memory_fts, 10.0, 3.0, 4.0) FROM memory_fts "
    "WHERE memory_fts MATCH :match AND rowid > :floor ORDER BY rowid DESC LIMIT :bound"
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


def rowid_sql(clause: live.Clause) -> str:
    """Memories by rowid (a JSON array), as candidates with no bm25 of their own."""
    # CROSS JOIN makes the few ids the outer loop, each read by its rowid:
    # left to itself the planner walks the project's index, every row of it.
    return (
        f"SELECT {', '.join(CANDIDATE_COLUMNS)}, 0.0 AS bm "
        "FROM json_each(:ids) AS wanted CROSS JOIN memories m ON m.rowid = wanted.value "
        f"WHERE {clause.sql}"
    )


def dated_sql(clause: live.Clause) -> str:
    """Memories written on `:day` (`YYYY-MM-DD`), newest first, at most `:cap`:
    a stored time is that day followed by `T` and the time of day, so the
    range reads the project's index of record times."""
    return (
        f"SELECT {', '.join(CANDIDATE_COLUMNS)}, 0.0 AS bm FROM memories m "
        f"WHERE m.created_at >= :day AND m.created_at < :day || 'U' AND {clause.sql} "
        "ORDER BY m.created_at DESC LIMIT :cap"
    )


def hits_sql(count: int) -> str:
    """The winners, read whole, by rowid."""
    return f"SELECT rowid, * FROM memories WHERE rowid IN ({', '.join('?' * count)})"


def _age_days(then: float | None, now: float) -> float:
    return 365.0 if then is None else (now - then) / 86_400


def recall(
    store: Store,
    identity: Identity,
    query: str,
    *,
    limit: int = DEFAULT_LIMIT,
    view: View | None = None,
    scope: str | None = None,
    whole_project: bool = False,
    hidden: Collection[str] = (),
) -> list[Hit]:
    """The best `limit` live memories for `query`; `whole_project`: a person's
    recall, over every partition of the project (`live.visible`); `hidden`:
    ids never found, wherever they would rank (`read/forgotten_here.py`)."""
    return ranked(
        store,
        identity,
        query,
        limit=limit,
        view=view,
        scope=scope,
        whole_project=whole_project,
        hidden=hidden,
    )[0]


def ranked(
    store: Store,
    identity: Identity,
    query: str,
    *,
    limit: int = DEFAULT_LIMIT,
    view: View | None = None,
    scope: str | None = None,
    whole_project: bool = False,
    hidden: Collection[str] = (),
    outer: Scale | None = None,
) -> tuple[list[Hit], Scale]:
    """`recall`, its candidates' meaning read against `outer` too (another
    store's, in a recall over both), and this store's own scale."""
    view = view or View()
    limit = max(1, min(limit, 256))
    # The moment recall looks from: ages and "yesterday" count back from it.
    looked_from = seconds_of(view.record_time())
    question = understand(query, None if looked_from is None else int(looked_from // 86_400))
    words = question.words
    bound = rungs.OR_BUDGET + 1
    newest = store.query("SELECT coalesce(max(rowid), 0) FROM memories")[0][0]

    counted: dict[str, int] = {}
    # match -> the share of memories that hold it, estimated from its count
    shares: dict[str, float] = {}

    def count(match: str) -> int:
        if match not in counted:
            held, last = store.query(COUNT_SQL, {"match": match, "bound": bound})[0]
            counted[match] = held
            shares[match] = min(1.0, held / max(last if held >= bound else newest, 1))
        return counted[match]

    plain_counts = {w: count(fts.quote(w)) for w in words}
    # One count per word with its kin: an absent related word costs an OR
    # atom one empty lookup, less than counting it apart. A word counted
    # past the budget alone is past it with its kin too.
    kin = {w: question.kin.get(w, ()) for w in words}
    counts = {
        w: plain_counts[w] if plain_counts[w] >= bound else count(rungs.atom((w, *kin[w])))
        for w in words
    }
    clause = live.where(identity, view, scope=scope, whole_project=whole_project)
    if hidden:
        clause = live.Clause(
            f"{clause.sql} AND m.id NOT IN (SELECT value FROM json_each(:hidden_ids))",
            {**clause.params, "hidden_ids": jsontext.dumps(sorted(hidden))},
        )
    sql = candidate_sql(clause)
    # Each rung's best `cap` matches, no more: a rung's later matches
    # would cost reading and scoring time, not answers.
    cap = min(candidate_cap(limit), max(limit, POOL))
    wanted_pool = max(limit, POOL)
    # rowid -> (candidate columns, the rung that found it)
    found: dict[int, tuple[sqlite3.Row, str]] = {}
    # The question's own words first; their kin only when those leave the
    # pool short: related words widen every rung they join, which costs.
    forms = indexed_forms(store, words)
    ladder = rungs.ladder(words, plain_counts, forms=forms)
    seen = {rung.match for rung in ladder}
    ladder += [rung for rung in rungs.ladder(words, counts, kin, forms) if rung.match not in seen]
    read_rows = rowid_sql(clause)
    idfs = _idfs(question, counts, newest)
    weigh = bm25.Weigher(question.concepts, idfs, {stem(w) for w in words})
    parsed: Parsed = {}
    # The index's bm25 reads every posting of every word of a rung to weigh
    # it: cheap when each word is in fewer memories than the budget, or the
    # store is small; otherwise the matches are weighed in Python.
    by_index = newest < INDEX_BM25_BELOW or all(n < bound for n in counts.values())

    def candidates(
        match: str, floor: int, newest_matches: list[tuple[int, float]], reach: int
    ) -> list[sqlite3.Row]:
        """The rung's best `cap` live matches above `floor`: from its newest
        matches when they are all of those (they hold every match above
        `reach`), else ranked by the index."""
        every = reach <= floor
        within = [m for m in newest_matches if m[0] > floor]
        if not every:
            return store.query(sql, {**clause.params, "match": match, "cap": cap, "floor": floor})
        if by_index and len(within) > cap:
            return _best_by_index(within)
        live_rows = store.query(
            read_rows, {**clause.params, "ids": _json_ids(r for r, _ in within)}
        )
        if len(live_rows) <= cap:
            return live_rows
        return _best_lexical(live_rows, weigh, parsed, cap)

    def _best_by_index(within: list[tuple[int, float]]) -> list[sqlite3.Row]:
        """The `cap` live matches of best bm25, read a few more than wanted
        at a time (invisible rows are skipped, never counted)."""
        ordered = [r for r, _ in sorted(within, key=lambda m: (m[1], -m[0]))]
        kept: list[sqlite3.Row] = []
        for start in range(0, len(ordered), 2 * cap):
            kept += store.query(
                read_rows, {**clause.params, "ids": _json_ids(ordered[start : start + 2 * cap])}
            )
            if len(kept) >= cap:
                break
        return kept[:cap]

    def search(rung: rungs.Rung) -> tuple[list[tuple[int, float]], int, int]:
        """The rung's newest matches, no more than `bound`, newest first, each
        with its bm25 when the index weighs them; the floor above which they
        are every match; and how many matches the rung has (`bound`: broad).

        Where the index weighs matches, a rung is first read in the index's
        order without bm25, no further than one match past the cap: all its
        matches are then its candidates, and bm25 would weigh them for
        nothing. Past the cap, in a store wider than a window, it is weighed
        in the newest window only and is broad from then on; in a smaller
        store it is weighed whole, and past the budget it is broad."""
        params = {"match": rung.match, "bound": bound}
        if not by_index:
            expected = rungs.expected(rung, shares, newest)
            if expected is not None and expected < rungs.BROAD:
                got = store.query(ANY_MATCHES_SQL, params)
                if len(got) < bound:
                    return _newest_first(got), 0, len(got)
            return _reaching(store.query(MATCHES_SQL, params), 0, bound)
        few = store.query(ANY_MATCHES_SQL, {**params, "bound": cap + 1})
        if len(few) <= cap:
            return _newest_first(few), 0, len(few)
        floor = max(newest - rungs.WINDOW, 0)
        if floor:
            window = store.query(SCORED_WINDOW_SQL, {**params, "floor": floor})
            return _reaching(window, floor, bound)
        got = store.query(SCORED_ANY_MATCHES_SQL, params)
        if len(got) < bound:
            return _newest_first(got), 0, len(got)
        return _reaching(store.query(SCORED_MATCHES_SQL, params), 0, bound)

    for rung in ladder:
        match = rung.match
        batch: list[sqlite3.Row] = []
        newest_matches, reach, matches = search(rung)
        for floor in rungs.floors(matches, newest):
            if floor:
                # A broad rung: its newest matches are enough, as in the
                # original ladder; a wider pool would read the store whole.
                wanted_pool = limit
            batch = candidates(match, floor, newest_matches, reach)
            if len(found) + sum(1 for row in batch if row[0] not in found) >= wanted_pool:
                break
        for row in batch:
            if row[0] not in found:
                found[row[0]] = (row, match)
        if len(found) >= wanted_pool:
            break
    # The memories written on a day the question names join, whatever words
    # they hold: "what did we decide on 3 March 2025".
    dated = 0
    for day in question.days:
        if dated >= DATED:
            break
        params = {**clause.params, "day": day, "cap": DATED - dated}
        for row in store.query(dated_sql(clause), params):
            if row[0] not in found:
                found[row[0]] = (row, DATED_MATCH)
                dated += 1
    # What the question means, without the dates it names: "anything from
    # March 2025" is about nothing but its date.
    meant = meaning.question(question.about)
    near: dict[int, float] = {}
    # Codes another vector table made say nothing of this question's vector:
    # they are coded again first (once, after an upgrade), or, where the
    # store cannot be written, the memories are weighed from their text and
    # none is scanned.
    stale = meant is not None and not meaning.current(store)

    def read(rowids: Iterable[int]) -> list[sqlite3.Row]:
        return store.query(read_rows, {**clause.params, "ids": _json_ids(rowids)})

    if meant is not None and not stale:
        near = meaning.widen(store, meant, found, newest, read, _covered(found, weigh, parsed))
    if not found:
        return [], Scale()

    # Memories beside a candidate that ask a question, candidates or not.
    asking: set[int] = set()

    own = [Scale()]

    def score_all() -> list[tuple[ranking.Score, str, int, str]]:
        if meant is not None:
            meaning.weigh(store, meant, found, near, coded=not stale)
        scored, own[0] = _score_all(
            question, list(found.values()), weigh, parsed, looked_from or 0.0, near, asking, outer
        )
        return scored

    def holds(row: sqlite3.Row) -> bool:
        return weigh.literal(_parsed(row, weigh, parsed)[0])

    scored = score_all()
    joined, asking = beside.gather(found, [t[2] for t in scored], read, holds)
    if joined or asking:
        found.update(joined)
        scored = score_all()
    top = scored[:limit]
    full = store.query(hits_sql(len(top)), [t[2] for t in top])
    by_rowid = {row["rowid"]: rows.from_row(row) for row in full}
    return [
        Hit(
            by_rowid[rowid],
            result.total,
            result.parts,
            match,
            result.literal,
            result.related,
            result.near,
        )
        for result, _, rowid, match in top
        if rowid in by_rowid  # a row whose lists cannot be read is skipped (`sql.READABLE`)
    ], own[0]


def _newest_first(rows: Iterable[sqlite3.Row]) -> list[tuple[int, float]]:
    return sorted(((row[0], row[1]) for row in rows), reverse=True)


def _reaching(
    rows: list[sqlite3.Row], floor: int, bound: int
) -> tuple[list[tuple[int, float]], int, int]:
    """Matches read newest first above `floor` (0: the whole store), no more
    than `bound`: they hold every match above their last when they fill the
    bound, else every match above `floor`. A rung read in a window is broad."""
    got = [(row[0], row[1]) for row in rows]
    full = len(got) >= bound
    return got, (got[-1][0] if full else floor), (bound if full or floor else len(got))


def _json_ids(rowids: Iterable[int]) -> str:
    """A JSON array of integers, written out: json is not worth its import here."""
    return "[" + ",".join(str(int(rowid)) for rowid in rowids) + "]"


def _idfs(question: Question, counts: dict[str, int], newest: int) -> dict[str, float]:
    """idf by the question's word, from the index's counts of the word or its
    kin (capped at OR_BUDGET + 1, so every word commoner weighs the same)."""
    capped = rungs.OR_BUDGET + 1
    return {c.word: bm25.idf(counts.get(c.word, capped), newest) for c in question.concepts}


# A memory's weighted terms and length, by rowid, parsed once per recall.
Parsed = dict[int, tuple[dict[str, float], float]]


def _parsed(
    row: sqlite3.Row, weigh: bm25.Weigher, parsed: Parsed
) -> tuple[dict[str, float], float]:
    got = parsed.get(row[0])
    if got is None:
        got = parsed[row[0]] = weigh.terms(row[6] or "", row[8] or "", row[7] or "")
    return got


def _covered(
    found: dict[int, tuple[sqlite3.Row, str]], weigh: bm25.Weigher, parsed: Parsed
) -> float:
    """The largest share of the question's words (by idf) that a candidate holds."""
    return max(
        (weigh(*_parsed(row, weigh, parsed), 1.0)[1] for row, _ in found.values()), default=0.0
    )


def _best_lexical(
    candidates: list[sqlite3.Row],
    weigh: bm25.Weigher,
    parsed: Parsed,
    keep: int,
) -> list[sqlite3.Row]:
    """The `keep` candidates of best weighted BM25 (`bm25.bm25`, the
    relevance ranking itself reads), newer first among equals."""
    terms = [_parsed(row, weigh, parsed) for row in candidates]
    avg = sum(length for _, length in terms) / len(terms)
    keyed = [
        (weigh(tf, length, avg)[0], row[0], row)
        for row, (tf, length) in zip(candidates, terms, strict=True)
    ]
    keyed.sort(key=lambda k: (k[0], k[1]), reverse=True)
    return [row for *_, row in keyed[:keep]]


def _score_all(
    question: Question,
    found: list[tuple[sqlite3.Row, str]],
    weigh: bm25.Weigher,
    parsed: Parsed,
    now: float,
    near: dict[int, float] | None = None,
    asking: Collection[int] = (),
    outer: Scale | None = None,
) -> tuple[list[tuple[ranking.Score, str, int, str]], Scale]:
    """Each candidate's score, best first, and this store's scale (`Scale`);
    meaning is read against `outer` too."""
    near = near or {}
    terms = [_parsed(row, weigh, parsed) for row, _ in found]
    avg = sum(length for _, length in terms) / len(terms)
    lex = [weigh(tf, length, avg) for tf, length in terms]
    best = max((s for s, _ in lex), default=0.0)
    wanted = ranking.intents(question.words)
    by_rowid = {row[0]: i for i, (row, _) in enumerate(found)}
    written = [seconds_of(row[1]) for row, _ in found]
    # A reply counts as literal when the memory it answers holds the question's words.
    holds = [weigh.literal(tf) for tf, _ in terms]
    literal = [
        holds[i] or (match == beside.REPLY_MATCH and holds[by_rowid.get(row[0] - 1, i)])
        for i, (row, match) in enumerate(found)
    ]
    # One that holds none of the question's words but is near it in meaning
    # ranks with them: it says what was asked in other words. Nearness is
    # scaled to the nearest candidate's, as relevance is to the best.
    own = Scale(
        nearest=max(near.values(), default=0.0),
        covered=max((coverage for _, coverage in lex), default=0.0),
    )
    scale = own.joined(outer)
    nearest = scale.nearest
    when = [0.0] * len(written)
    if question.dates:  # `dates.py` is loaded only for a question that names one
        from tree_ring.read import dates

        when = [dates.nearness(question.dates, stamp) for stamp in written]
    # Literal first keeps what related words found below what holds the
    # question's words; where nothing holds them, those rank by score too.
    kin = not any(literal)
    close = [meaning.near(near.get(row[0], 0.0), nearest) for row, _ in found]
    found_else = [close[i] or when[i] == 1.0 for i in range(len(found))]
    # Found by words it holds, none of them the question's, and not ranked
    # with the question's words for its meaning or its day: related words.
    related = [not held and not found_else[i] and lex[i][0] > 0 for i, held in enumerate(literal)]
    nearby = [not held and close[i] for i, held in enumerate(literal)]
    literal = [held or found_else[i] or (kin and related[i]) for i, held in enumerate(literal)]
    unmatched = 1.0 - scale.covered
    # The share of each one's relevance that lies in the questions it asks.
    shares = [
        _asking(row[6] or "", row[8] or "", row[7] or "", weigh, (terms[i][1], avg), lex[i][0])
        for i, (row, _) in enumerate(found)
    ]
    # ... and that relevance itself: the memory written after it may answer it.
    asked = [share * relevance for share, (relevance, _) in zip(shares, lex, strict=True)]
    out: list[tuple[ranking.Score, str, int, str]] = []
    for i, (row, match) in enumerate(found):
        # In CANDIDATE_COLUMNS order, then bm25.
        rowid, created, salience, confidence, source_type, ring, *said = row
        summary, _, _, origin, _ = said
        relevance, coverage = lex[i]
        candidate = ranking.Candidate(
            bm25=-(relevance / best) if best > 0 else 0.0,
            matched_terms=round(coverage * 1000),
            query_terms=1000,
            salience=salience,
            confidence=confidence,
            age_days=_age_days(written[i], now),
            source_type=source_type,
            origin=origin,
            ring=ring,
            kind_match=_kind_match(question, summary),
            subject=_subject(question, terms[i][0], summary),
            context=beside.context(by_rowid, lex, found, written, i, asking) / best
            if best > 0
            else 0.0,
            literal=literal[i],
            related=related[i],
            near=nearby[i],
            meaning=meaning.scaled(near.get(rowid, 0.0), nearest),
            unmatched=unmatched,
            time=when[i],
            asking=shares[i],
            answered=beside.answered(by_rowid, asked, found, written, i) / best
            if best > 0
            else 0.0,
        )
        out.append((ranking.score(candidate, -1.0, wanted), created, rowid, match))
    out.sort(key=lambda s: s[1], reverse=True)  # ties: newer first
    out.sort(key=lambda s: s[0].key, reverse=True)
    return out, own


# Where one sentence ends and the next begins.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _asking(
    summary: str,
    tags: str,
    details: str,
    weigh: bm25.Weigher,
    lengths: tuple[float, float],
    relevance: float,
) -> float:
    """The share of a memory's relevance (its weighted BM25) that lies in the
    questions its summary asks: 0 when it asks none. A turn that asks "how
    long do you hold that pose?" holds the question's words; the turn after
    it holds the answer (`ranking`'s `asking`)."""
    if relevance <= 0 or "?" not in summary:
        return 0.0
    said = " ".join(s for s in SENTENCE_END.split(summary) if not s.rstrip().endswith("?"))
    tf, _ = weigh.terms(said, tags or "", details or "")
    return max(0.0, 1.0 - weigh(tf, *lengths)[0] / relevance)


def _kind_match(question: Question, summary: str) -> float:
    if not question.kind or not bears(question.kind, summary):
        return 0.0
    return ranking.KIND_SCALE.get(question.kind, 1.0)


def _subject(question: Question, tf: dict[str, float], summary: str) -> float:
    """1 when the memory opens with a name the question asks about."""
    if not question.names:
        return 0.0
    head = bm25.stems(summary[:40])[:2]
    return 1.0 if any(s in question.names for s in head) else 0.0
