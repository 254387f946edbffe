"""Finding live memories that a new one contradicts, without a model.

Two statements contradict when, once the part that differs is set aside, they
say the same thing: the same content words (token overlap of at least
`OVERLAP`) with a flipped polarity ("use X" / "do not use X", "always" /
"never", "enable" / "disable") or a changed value ("timeout is 30s" /
"timeout is 60s"). A number is a value when it sets something (a unit, a
version, after "is", "=", "to"); one that names something ("issue 123",
"step 2") is a content word, so "fix for issue 12" and "fix for issue 13" are
two facts, not a dispute. Anything looser ("use tabs in Makefiles" / "use spaces in
Python files") is not flagged: a false alarm costs a person's attention, and
the review queue must stay short enough to be read.

Candidates come from the FTS index of summaries (each content word quoted on
its own, never raw text into MATCH), restricted to live, accepted rows of the
same project, scope and partition; the comparison itself is a pure function,
so it is tested directly. Every write runs this search, so it must stay cheap
as the store grows: a short read of each word's index list (`probe`) tells
rare words from common ones, and the candidates are the rows that hold enough
of the rarest (`candidates`). That set provably holds every contradiction, and
all of it is compared, so no number of lookalike rows can crowd one out.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tree_ring.model.record import Memory
from tree_ring.store import fts, live, rows
from tree_ring.store.live import View
from tree_ring.store.sql import Db

# Share of content words two statements must have in common (Jaccard).
OVERLAP = 0.75
MAX_TERMS = 16
# Index entries read per word to tell rare words from common ones (`probe`).
PROBE_ROWS = 32
# Only summaries are compared, so only the summary column is searched.
SUMMARY = "{summary} : "

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "cannot",
        "without",
        "dont",
        "nor",
    }
)
# Words whose opposite is a negation of one canonical word.
OPPOSITES: dict[str, tuple[str, bool]] = {
    "enable": ("enable", False),
    "enables": ("enable", False),
    "enabled": ("enable", False),
    "enabling": ("enable", False),
    "disable": ("enable", True),
    "disables": ("enable", True),
    "disabled": ("enable", True),
    "disabling": ("enable", True),
    "allow": ("allow", False),
    "allows": ("allow", False),
    "allowed": ("allow", False),
    "disallow": ("allow", True),
    "disallowed": ("allow", True),
    "forbid": ("allow", True),
    "forbids": ("allow", True),
    "forbidden": ("allow", True),
    "include": ("include", False),
    "includes": ("include", False),
    "included": ("include", False),
    "exclude": ("include", True),
    "excludes": ("include", True),
    "excluded": ("include", True),
    "on": ("on", False),
    "off": ("on", True),
    "true": ("true", False),
    "false": ("true", True),
}
# Words that carry neither content nor polarity ("always use X" = "use X").
_NEUTRAL_WORDS = (
    "a an the and or of to in into for with at by from as is are was were be been "
    "being it its this that these those we our us i me my you your they their he she "
    "do does did done always must should shall will would please all every also just "
    "then than so there here has have had can could may might need needs"
)
NEUTRAL = frozenset(_NEUTRAL_WORDS.split())

# Words after which a number is a setting: "is 30", "up to 5", "a limit of 10".
VALUE_CUES = frozenset(
    {"is", "are", "was", "were", "be", "to", "at", "of", "equals", "than", "max", "min"}
)

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\d+(?:[.,:]\d+)*[a-z%]*|[a-z][a-z0-9_'+#-]*")


@dataclass(frozen=True)
class Claim:
    """A statement reduced to what it is about, what it says, and which way."""

    words: frozenset[str]  # content words, lightly stemmed
    values: frozenset[str]  # settings: 30s, 3.11, "is 8080" (not "issue 123")
    negated: bool
    terms: tuple[str, ...]  # unstemmed content words, for the FTS query


# Words repeat (an import stems the same few thousand again and again).
@functools.lru_cache(maxsize=16_384)
def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _is_value(token: str, before: str, previous: str) -> bool:
    """A number that sets something (30s, 3.11, `timeout = 60`, `up to 5`), as
    opposed to one that names something (issue 123, step 2, fact 0): only a
    changed setting is a contradiction."""
    if not token[-1].isdigit() or "." in token or ":" in token:
        return True  # a unit (30s, 512mb, 80%), a version or a time of day
    return before.rstrip().endswith(("=", ":")) or previous in VALUE_CUES


@functools.lru_cache(maxsize=4096)
def claim(text: str) -> Claim:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    folded = text.casefold()
    words: set[str] = set()
    values: set[str] = set()
    terms: list[str] = []
    flips = 0
    previous = ""
    end = 0
    for match in _WORD.finditer(folded):
        token = match.group().rstrip(".,:'-")
        before, end = folded[end : match.start()], match.end()
        last, previous = previous, token
        if not token:
            continue
        if token in NEGATIONS or token.endswith("n't"):
            flips += 1
            continue
        if token in OPPOSITES:
            canonical, flipped = OPPOSITES[token]
            flips += flipped
            words.add(canonical)
            continue
        if _DIGIT.search(token) and _is_value(token, before, last):
            values.add(token)
            continue
        if token in NEUTRAL or (len(token) < 2 and not token.isdigit()):
            continue
        words.add(_stem(token))
        if token not in terms and "'" not in token:
            terms.append(token)
    return Claim(frozenset(words), frozenset(values), flips % 2 == 1, tuple(terms[:MAX_TERMS]))


def compare(new: str, old: str) -> str | None:
    """How `new` contradicts `old`: 'negation', 'value', or None if it does not."""
    return compare_claims(claim(new), claim(old))


def compare_claims(a: Claim, b: Claim) -> str | None:
    shared = a.words & b.words
    if not shared:
        return None
    if len(shared) / len(a.words | b.words) < OVERLAP:
        return None
    if a.negated != b.negated and a.values == b.values:
        return "negation"
    if a.negated == b.negated and a.values and b.values and a.values != b.values:
        return "value"
    return None


@dataclass(frozen=True)
class Found:
    memory: Memory
    kind: str  # negation | value


@dataclass(frozen=True)
class SearchWord:
    """One content word of a new statement, as the candidate search uses it."""

    word: str  # as `Claim.words` holds it
    phrase: str  # FTS5 text for its forms in the statement, each quoted: ("test" OR "tests")
    key: str  # a substring of every form that stems to `word`, for the SQL pre-check


def search_words(found: Claim) -> list[SearchWord]:
    """The statement's content words that FTS can look up, in statement order."""
    forms: dict[str, list[str]] = {}
    for term in found.terms:
        forms.setdefault(_stem(term), []).append(term)
    # `_stem` only drops an ending ("tests", "user's") or turns "ies" into "y",
    # so every form of a word starts with the word, or with all of it but a
    # final "y" ("policy" / "policies").
    words: list[SearchWord] = []
    for word, terms in forms.items():
        phrase = " OR ".join(fts.quote(t) for t in terms)
        if len(terms) > 1:
            phrase = "(" + phrase + ")"
        key = word[:-1] if word.endswith("y") and len(word) > 1 else word
        words.append(SearchWord(word, phrase, key))
    return words


@dataclass(frozen=True)
class Probe:
    """What a bounded read of one word's index list told about it."""

    word: SearchWord
    count: int  # summaries holding the word, counted up to PROBE_ROWS
    reach: int  # rowid of the last of them read
    rowids: tuple[int, ...]  # all of them, when count < PROBE_ROWS

    @property
    def common(self) -> bool:
        return self.count >= PROBE_ROWS


def probe_sql(count: int) -> str:
    """Each word's first `PROBE_ROWS` summaries: one row per word, `:w0` to
    `:w<count-1>`, with how many there were, the last rowid and all of them."""
    return " UNION ALL ".join(
        f"SELECT {i}, count(*), max(rowid), group_concat(rowid) FROM (SELECT rowid "
        f"FROM memory_fts WHERE memory_fts MATCH :w{i} LIMIT :probe)"
        for i in range(count)
    )


# Common words of this connection's store, so a bulk write reads each one's
# index list once, not once per row. A common word stays common as the store
# grows, and its first summaries keep their rowids; a stale entry could only
# make a search slower, since `candidates` is complete for any order.
PROBE_CACHE = (
    "CREATE TEMP TABLE IF NOT EXISTS contradiction_probes ("
    "phrase TEXT PRIMARY KEY, "  # SearchWord.phrase
    "reach INTEGER NOT NULL"  # rowid of the PROBE_ROWS-th summary holding it
    ") WITHOUT ROWID"
)


def probe(db: Db, words: list[SearchWord], seen: dict[str, Probe] | None = None) -> list[Probe]:
    """`words` probed, those in the fewest summaries first.

    A word in fewer summaries than the probe reads is counted exactly and its
    summaries listed. One that fills the probe is ranked by how far into the
    index the probe had to go: rowids grow as rows are added, so a sparser
    word's first `PROBE_ROWS` summaries reach a higher rowid. `seen` keeps
    this batch's probes (see `Pending`), and is added to.
    """
    seen = {} if seen is None else seen
    probes = [seen[w.phrase] for w in words if w.phrase in seen]
    words = [w for w in words if w.phrase not in seen]
    if not words:
        return _rarest_first(probes)
    db.execute(PROBE_CACHE)
    phrases = json.dumps([w.phrase for w in words])
    known: dict[str, int] = dict(
        db.execute(
            "SELECT phrase, reach FROM temp.contradiction_probes "
            "WHERE phrase IN (SELECT value FROM json_each(?))",
            (phrases,),
        ).fetchall()
    )
    probes += [Probe(w, PROBE_ROWS, known[w.phrase], ()) for w in words if w.phrase in known]
    unknown = [w for w in words if w.phrase not in known]
    if unknown:
        params: dict[str, object] = {"probe": PROBE_ROWS}
        params.update({f"w{i}": SUMMARY + word.phrase for i, word in enumerate(unknown)})
        fresh: list[Probe] = []
        for row in db.execute(probe_sql(len(unknown)), params):
            index: int = row[0]
            listed: str | None = row[3]
            rowids = tuple(int(r) for r in listed.split(",")) if listed else ()
            fresh.append(Probe(unknown[index], row[1], row[2] or 0, rowids))
        common = [(p.word.phrase, p.reach) for p in fresh if p.common]
        if common:
            db.executemany(
                "INSERT OR REPLACE INTO temp.contradiction_probes(phrase, reach) VALUES (?, ?)",
                common,
            )
        probes += fresh
    seen.update((p.word.phrase, p) for p in probes)
    return _rarest_first(probes)


def _rarest_first(probes: list[Probe]) -> list[Probe]:
    return sorted(probes, key=lambda p: (1, -p.reach) if p.common else (0, p.count))


def shape(count: int, misses: int, listed: int) -> tuple[int, int]:
    """How many of the `count` words, rarest first, the search takes, and how
    many of those a candidate must hold (see `candidates`)."""
    take = max(min(count, misses + 2), listed)
    return take, max(1, take - misses)


def at_least(phrases: Sequence[str], need: int) -> str:
    """FTS5 text matching rows that hold at least `need` of `phrases`.

    Split the phrases in two halves: a row holds `need` of them exactly when,
    for some j, it holds j of the first half and `need - j` of the second. So
    each phrase is written O(log n) times rather than once per subset, and each
    time written is an index lookup.
    """
    if need == 1:
        return phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"
    if need == len(phrases):
        return "(" + " AND ".join(phrases) + ")"
    half = len(phrases) // 2
    first, second = phrases[:half], phrases[half:]
    clauses: list[str] = []
    for j in range(max(0, need - len(second)), min(need, len(first)) + 1):
        parts = [at_least(first, j) if j else "", at_least(second, need - j) if need > j else ""]
        held = [part for part in parts if part]
        clauses.append(held[0] if len(held) == 1 else "(" + " AND ".join(held) + ")")
    return "(" + " OR ".join(clauses) + ")"


@dataclass(frozen=True)
class Candidates:
    """Where the rows to compare are: listed by rowid, and matched by FTS."""

    rowids: tuple[int, ...]
    match: str | None  # FTS5 query, or None when the list is all


def candidates(probes: Sequence[Probe], misses: int) -> Candidates:
    """Every summary that could contradict the statement these probes are of.

    A statement close enough to contradict ours shares at least 3 in 4 of our
    content words (Jaccard `OVERLAP`), so it lacks at most `misses` =
    len(words) // 4 of them: of any `take` of our words it holds at least
    `need` = `take - misses`. That holds whichever words are taken, so take
    the rarest: `misses + 2` of them, of which it must hold two, since one rare
    word alone can still be in hundreds of summaries and two together seldom
    are; and every word the probe listed in full, which costs nothing more and
    asks for one more shared word each.

    A candidate holding one of the taken words that the probe listed is in
    that word's list, and is kept if its listed words and all the common ones
    could make `need`. One holding none of them holds `need` of the common
    ones, which FTS finds with `at_least`; if fewer than `need` are common,
    there is no such candidate and no FTS query.

    Only summaries are compared, so only the summary column is searched.
    Completeness is as good as FTS's tokens agree with `claim`'s words: they
    do for plain words and plurals, not for a few forms the two stemmers treat
    apart ("flies" / "fly"). And a statement of 64 content words or more,
    four times the `MAX_TERMS` it searches by, may share none of those with a
    contradiction: it asks for any of them, as the search always has.
    """
    take, need = shape(len(probes), misses, sum(1 for p in probes if not p.common))
    taken = probes[:take]
    common = [p.word.phrase for p in taken if p.common]
    hits = Counter(rowid for p in taken if not p.common for rowid in p.rowids)
    # A listed row holds its listed words and at most all the common ones.
    listed = sorted(rowid for rowid, held in hits.items() if held + len(common) >= need)
    match = SUMMARY + at_least(common, need) if len(common) >= need else None
    return Candidates(tuple(listed), match)


class Pending:
    """Rows a batch has written that the FTS index may not hold yet, by claim word.

    A bulk write indexes its rows for FTS once, at the end of the batch (see
    bulk.py), so the candidate search cannot find a memory of the batch in
    the index while it admits a later one. It finds them here instead, from
    the same words `compare_claims` compares: a row holding all but `misses`
    of a statement's words holds at least one of any `misses + 1` of them, so
    the rows listed under the rarest `misses + 1` are every row that could
    contradict it. A row that is also indexed is found twice and compared once.
    Read by the words `compare_claims` reads, a row of the batch is found even
    where the index's stemmer and `claim`'s disagree (see `candidates`), so a
    batch may find a contradiction among its own rows that writing them one at
    a time would miss, never the reverse.

    With the batch's own rows found here, the index only has to answer for
    the rows stored before the batch, so a word is probed once per batch
    (`probes`): `candidates` is complete for any counts of those rows. And the
    batch need not write its rows before each search, only before one that
    finds some of them: `flush` writes the rows it still holds back.
    """

    def __init__(self, flush: Callable[[], None]) -> None:
        self._holding: dict[str, set[str]] = {}
        self.probes: dict[str, Probe] = {}
        self.flush = flush

    def add(self, memory: Memory) -> None:
        for word in claim(memory.summary).words:
            self._holding.setdefault(word, set()).add(memory.id)

    def could_contradict(self, found: Claim, misses: int) -> list[str]:
        """Ids of the rows here that hold all but `misses` (fewer than all) of `found`'s words."""
        empty: set[str] = set()
        held = sorted((self._holding.get(word, empty) for word in found.words), key=len)
        need = len(held) - misses
        pool = empty.union(*held[: misses + 1])
        return sorted(i for i in pool if sum(i in ids for ids in held) >= need)


def candidate_sql(
    clause: live.Clause, partition_column: str | None, matched: bool, pending: bool = False
) -> str:
    hits = "SELECT value AS hit FROM json_each(:listed)"
    if matched:
        hits += " UNION SELECT rowid FROM memory_fts WHERE memory_fts MATCH :match"
    if pending:
        hits += (
            " UNION SELECT rowid FROM memories WHERE id IN (SELECT value FROM json_each(:pending))"
        )
    # CROSS JOIN keeps the candidates first: SQLite would otherwise walk the
    # project's rows and look each one up. No ORDER BY and no LIMIT: every
    # candidate is compared, so none can be crowded out by the others.
    sql = (
        f"SELECT m.* FROM ({hits}) CROSS JOIN memories m ON m.rowid = hit "
        "WHERE m.project IS :project AND m.scope = :scope "
        f"AND m.id != :id AND {clause.sql}"
    )
    if partition_column is not None:
        sql += f" AND m.{partition_column} IS :partition"
    # A contradiction holds at least :shared of our words, so at least that many
    # of their keys appear in its summary: a check in C that spares Python the
    # rows that share the rare words and little else. SQLite's lower() folds
    # ASCII only, so a summary with other characters goes to Python unchecked.
    shares = "SELECT count(*) FROM json_each(:keys) WHERE instr(lower(m.summary), value)"
    ascii_only = "length(CAST(m.summary AS BLOB)) = length(m.summary)"
    return sql + f" AND (NOT {ascii_only} OR ({shares}) >= :shared)"


PARTITIONS = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}


def find(db: Db, memory: Memory, pending: Pending | None = None) -> list[Found]:
    """Live, accepted memories in the same project, scope and partition that
    `memory` contradicts, oldest first. `memory` need not be stored yet; rows
    written but not yet indexed are found through `pending`."""
    new = claim(memory.summary)
    words = search_words(new)
    if not words:
        return []
    misses = len(new.words) // 4
    seen = pending.probes if pending is not None else None
    where = candidates(probe(db, words, seen), misses)
    unindexed = pending.could_contradict(new, misses) if pending is not None else []
    if not where.rowids and where.match is None and not unindexed:
        return []  # nothing could contradict it
    if pending is not None and unindexed:
        pending.flush()  # the query below reads them from the table
    clause = live.live(View(), "m")
    column = PARTITIONS.get(memory.scope)
    params: dict[str, object] = {
        **clause.params,
        "listed": json.dumps(where.rowids),
        "match": where.match,
        "project": memory.project,
        "scope": memory.scope,
        "id": memory.id,
        "partition": getattr(memory, column) if column else None,
        "keys": json.dumps([word.key for word in words]),
        "shared": len(words) - misses,
        "pending": json.dumps(unindexed),
    }
    sql = candidate_sql(clause, column, where.match is not None, bool(unindexed))
    found: list[Found] = []
    for row in db.execute(sql, params):
        if row["id"] in memory.supersedes:
            continue  # replacing a memory is not contradicting it
        kind = compare_claims(new, claim(row["summary"]))
        if kind is not None:
            found.append(Found(rows.from_row(row), kind))
    found.sort(key=lambda f: (f.memory.created_at, f.memory.id))
    return found
