"""Finding live memories that a new one contradicts, without a model.

Two statements contradict when they say the same thing with a flipped
polarity or a changed value (claims.py: `claim`, `compare_claims`). Anything
looser ("use tabs in Makefiles" / "use spaces in Python files") is not
flagged: a false alarm costs a person's attention, and the review queue must
stay short enough to be read.

Candidates come from two places, restricted to live, accepted rows of the
same project, scope and partition, and all of them are compared by a pure
function (tested directly), so no number of lookalike rows can crowd one out.

Rows stored before the write began are found through `claim_fts`, the FTS
index of summaries that holds only which rows hold a word (store/schema.py;
each content word quoted on its own, never raw text into MATCH).
Every write runs this search, so it must stay cheap as the store grows: a
short read of each word's index list (`probe`) tells rare words from common
ones, and the candidates are the rows that hold enough of the rarest
(`candidates`), asked for one more shared word at a time while they are too
many (`stored`). That set provably holds every contradiction, as far as FTS's
tokens agree with `claim`'s words (see `candidates`).

The write's own memories, those of its earlier batches (written, and indexed
for FTS at each batch's end) as well as those its current batch has decided
(not written yet: nothing is, until the whole batch is decided), are found by
their claim words' signatures (signatures.py), which holds every memory whose
words could reach `OVERLAP`, with no limit on terms or stemmer to disagree
with: the batch being decided in memory, the written batches in temporary
tables (`Spill`), so a write's memory holds one batch whatever its size, and
no candidate is ever dropped to bound it. So an import of 100,000
statements of a 200-word vocabulary compares a few candidates each instead
of every earlier statement that shares two common words. A batch may
thereby find a contradiction among the write's own rows that writing them
one at a time would miss (where FTS's stemmer and `claim`'s part, "flies" /
"fly"), never the reverse. The current batch's rows are
checked in Python by the same liveness and partition tests as the SQL
(`store/live.py` renders both from one declaration).
"""

from __future__ import annotations

import itertools
import json
import re
from array import array
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from tree_ring.govern import signatures
from tree_ring.govern.claims import OVERLAP, Claim, claim, compare_claims, stem
from tree_ring.model.record import Memory
from tree_ring.store import forgotten_rows, fts, live, rows
from tree_ring.store.fts import at_least
from tree_ring.store.live import DIFFERS, EQUALS, IS, ONE_OF, Test, View
from tree_ring.store.sql import Db

# FTS5's tokens in a term: its runs of letters and digits ("x-ray" is two).
_TOKEN = re.compile(r"[a-z0-9]+")
# Index entries read per word to tell rare words from common ones (`probe`).
PROBE_ROWS = 32
# Rows FTS may answer before the search asks them for one more shared word
# (`stored`): each costs a lookup and, often, a `claim`, some 20 to 30 us at a
# million memories; asking again costs a few ms.
WIDEN_ROWS = 512


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
        forms.setdefault(stem(term), []).append(term)
    # `stem` only drops an ending ("tests", "user's") or turns "ies" into "y",
    # so every form of a word starts with the word, or with all of it but a
    # final "y" ("policy" / "policies").
    words: list[SearchWord] = []
    for word, terms in forms.items():
        phrase = " OR ".join(_held(t) for t in terms)
        if len(terms) > 1:
            phrase = "(" + phrase + ")"
        key = word[:-1] if word.endswith("y") and len(word) > 1 else word
        words.append(SearchWord(word, phrase, key))
    return words


def _held(term: str) -> str:
    """FTS5 text for the summaries that hold `term`: its tokens, each quoted.
    `claim_fts` keeps no positions, so a term of several tokens ("x-ray") is
    asked for as all of them, anywhere in the summary, rather than as a phrase:
    more rows than the phrase, never fewer."""
    tokens = _TOKEN.findall(term)
    if len(tokens) < 2:
        return fts.quote(term)
    return "(" + " AND ".join(fts.quote(t) for t in tokens) + ")"


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
    """Each word's first `PROBE_ROWS` summaries stored up to `:boundary`: one row
    per word, `:w0` to `:w<count-1>`, with how many there were, the last rowid
    and all of them."""
    return " UNION ALL ".join(
        f"SELECT {i}, count(*), max(rowid), group_concat(rowid) FROM (SELECT rowid "
        f"FROM claim_fts WHERE claim_fts MATCH :w{i} AND rowid <= :boundary LIMIT :probe)"
        for i in range(count)
    )


def probe(db: Db, words: list[SearchWord], search: Search) -> list[Probe]:
    """`words` probed, those in the fewest summaries first.

    A word in fewer summaries than the probe reads is counted exactly and its
    summaries listed. One that fills the probe is ranked by how far into the
    index the probe had to go: rowids grow as rows are added, so a sparser
    word's first `PROBE_ROWS` summaries reach a higher rowid. Only rows up to
    the write's boundary are read, and those do not change while it runs, so
    the write keeps every probe it makes (`search.probes`) for all its
    memories and batches.
    """
    seen = search.probes
    fresh = [w for w in words if w.phrase not in seen]
    if fresh:
        params: dict[str, object] = {"probe": PROBE_ROWS, "boundary": search.boundary}
        params.update({f"w{i}": word.phrase for i, word in enumerate(fresh)})
        for row in db.execute(probe_sql(len(fresh)), params):
            index: int = row[0]
            listed: str | None = row[3]
            rowids = tuple(int(r) for r in listed.split(",")) if listed else ()
            seen[fresh[index].phrase] = Probe(fresh[index], row[1], row[2] or 0, rowids)
    return _rarest_first([seen[w.phrase] for w in words])


def _rarest_first(probes: list[Probe]) -> list[Probe]:
    return sorted(probes, key=lambda p: (1, -p.reach) if p.common else (0, p.count))


def shape(count: int, misses: int, listed: int, wider: int = 0) -> tuple[int, int]:
    """How many of the `count` words, rarest first, the search takes, and how
    many of those a candidate must hold (see `candidates`); `wider` takes
    that many more, and needs that many more."""
    take = max(min(count, misses + 2 + wider), listed)
    return take, max(1, take - misses)


@dataclass(frozen=True)
class Candidates:
    """Where the rows to compare are: listed by rowid, and matched by FTS."""

    rowids: tuple[int, ...]
    match: str | None  # FTS5 query, or None when the list is all


def candidates(probes: Sequence[Probe], misses: int, wider: int = 0) -> Candidates:
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

    Only summaries are compared, so only summaries are searched (`claim_fts`).
    Completeness is as good as FTS's tokens agree with `claim`'s words: they
    do for plain words and plurals, not for a few forms the two stemmers treat
    apart ("flies" / "fly"). And a statement of 64 content words or more,
    four times the `MAX_TERMS` it searches by, may share none of those with a
    contradiction: it asks for any of them, as the search always has.

    `wider` takes more words than the rarest `misses + 2`, and needs as many
    more: fewer rows, and as complete (see `stored`).
    """
    take, need = shape(len(probes), misses, sum(1 for p in probes if not p.common), wider)
    taken = probes[:take]
    common = [p.word.phrase for p in taken if p.common]
    hits = Counter(rowid for p in taken if not p.common for rowid in p.rowids)
    # A listed row holds its listed words and at most all the common ones.
    listed = sorted(rowid for rowid, held in hits.items() if held + len(common) >= need)
    match = at_least(common, need) if len(common) >= need else None
    return Candidates(tuple(listed), match)


MATCH_SQL = "SELECT rowid FROM claim_fts WHERE claim_fts MATCH ? AND rowid <= ? LIMIT ?"


def stored(db: Db, probes: Sequence[Probe], misses: int, boundary: int) -> list[int]:
    """The rowids, ascending, of every summary stored up to `boundary` that
    could contradict the statement these probes are of.

    At a million memories even a statement's rarest words can each be in tens
    of thousands of summaries, and the rows holding two of the three rarest
    run to thousands, most of which share no more. So while FTS answers more
    than `WIDEN_ROWS`, the search takes one more word and needs one more
    (`candidates(wider=...)`): any of those shapes holds every contradiction,
    and a wider one fewer rows besides. FTS reads its answer in rowid order,
    so a shape that can still be widened is read only until it proves too
    broad (`WIDEN_ROWS + 1` rows), not in full.
    """
    listed = sum(1 for p in probes if not p.common)
    wider = 0
    while True:
        where = candidates(probes, misses, wider)
        if where.match is None:
            return list(where.rowids)
        take, _ = shape(len(probes), misses, listed, wider)
        last = take >= len(probes)
        limit = -1 if last else WIDEN_ROWS + 1  # -1: no limit
        matched = [row[0] for row in db.execute(MATCH_SQL, (where.match, boundary, limit))]
        if last or len(matched) <= WIDEN_ROWS:
            return sorted({*where.rowids, *matched})
        wider += 1


class Search:
    """What one write's contradiction searches keep: a single write makes a
    fresh one, a bulk write carries one across its batches.

    `boundary` is the last rowid stored before the write; the FTS index answers
    for the rows up to it, which do not change while the write runs, so every
    word's `probes` are kept. The batch being decided is in `index` by its
    claim words' signatures, numbered in the order decided. Once a batch is
    written (`written`), its signatures and word sets move to two temporary
    tables of the connection (`Spill`), so what a write holds in memory is one
    batch, however many it writes: an import of a million lines keeps a few
    hundred MB of signatures on disk, not in its process.
    """

    def __init__(self) -> None:
        self.spill: Spill | None = None
        self._forget()

    def _forget(self) -> None:
        self.boundary: int | None = None
        self.version: int | None = None
        self.probes: dict[str, Probe] = {}
        self.index = signatures.Index(OVERLAP)

    @property
    def count(self) -> int:
        """Memories of the batch decided so far."""
        return len(self.index)

    def start(self, db: Db) -> None:
        """Begin a batch. A bulk write of many transactions lets other writers
        in between them; if one committed (`data_version` moved), its rows may
        be anywhere, so the search starts over from the store as it is now and
        the FTS index answers for the write's earlier rows too."""
        version = int(db.scalar("PRAGMA data_version"))
        if self.boundary is not None and version == self.version:
            return
        self._forget()
        self.close(db)
        self.boundary = int(db.scalar("SELECT coalesce(max(rowid), 0) FROM memories"))
        self.version = version

    def number(self, memory: Memory) -> int:
        """File a decided memory of the batch by its claim words; its number."""
        return self.index.add(claim(memory.summary).words)

    def written(self, db: Db, ids: Sequence[str]) -> None:
        """The memories numbered since the last call are written, in the order
        they were numbered: file them by rowid on disk, and start a new batch."""
        at = dict(
            db.execute(
                "SELECT id, rowid FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(ids)),),
            ).fetchall()
        )
        if self.spill is None:
            self.spill = Spill(db)
        self.spill.add(db, self.index, [at[memory_id] for memory_id in ids])
        self.index.clear()

    def discard(self) -> None:
        """Forget the batch being decided: it was refused, nothing of it written."""
        self.index.clear()

    def prefetch(self, db: Db, memories: Sequence[Memory]) -> None:
        """Read, in one query, what the earlier batches file under the
        signatures of `memories` (a batch about to be decided)."""
        if self.spill is not None:
            self.spill.prefetch(db, self.index, [claim(m.summary).words for m in memories])

    def near(self, db: Db, words: frozenset[str]) -> tuple[list[int], list[int]]:
        """The write's memories whose words reach the overlap with `words`:
        the numbers of the batch's, and the rowids of the earlier batches'."""
        ranks = self.index.ranked(words)
        if not ranks:
            return [], []
        keys: set[int] = set()
        if self.index.reachable(len(ranks)):
            keys = self.index.probes(ranks)
        own = self.index.find_ranked(ranks, keys) if self.count else []
        earlier = self.spill.find(db, self.index, ranks, keys) if self.spill is not None else []
        return own, earlier

    def close(self, db: Db) -> None:
        """Drop what the search keeps on disk (also gone when the connection closes)."""
        if self.spill is not None:
            self.spill.drop(db)
            self.spill = None


# A key no signature has (they are 36-bit, not negative): sets too long to sign.
_LONG_KEY = -1
_SPILLS = itertools.count()


class Spill:
    """A written batch's signatures and word sets, in temporary tables of the
    connection: `<name>_keys` maps a signature to the rowids of the sets that
    have it, `<name>_sets` a rowid to its words as ranks in the index's order
    (an array of int32). A lookup reads the sets under a query's signatures,
    and holds each to the overlap exactly, as `signatures.Index.find` does, so
    the search finds what it found when everything was in memory. The tables
    live in SQLite's temporary file with a small cache of their own, so their
    size does not show in the process's memory."""

    def __init__(self, db: Db) -> None:
        self.name = f"temp.tree_ring_search_{next(_SPILLS)}"
        # Sets under signatures read ahead for the batch being decided.
        self.fetched: dict[int, list[tuple[int, bytes]]] = {}
        db.execute(f"CREATE TABLE {self.name}_sets(row INTEGER PRIMARY KEY, words BLOB NOT NULL)")
        db.execute(
            f"CREATE TABLE {self.name}_keys(key INTEGER NOT NULL, row INTEGER NOT NULL,"
            " PRIMARY KEY (key, row)) WITHOUT ROWID"
        )

    def add(self, db: Db, index: signatures.Index, rowids: Sequence[int]) -> None:
        """File the index's sets 0, 1, ... under `rowids`."""
        keys: list[tuple[int, int]] = []
        sets: list[tuple[int, bytes]] = []
        for number, rowid in enumerate(rowids):
            ranks = index.words(number)
            sets.append((rowid, ranks.tobytes()))
            if len(ranks) > signatures.LONG:
                keys.append((_LONG_KEY, rowid))
            elif ranks:
                keys.extend((key, rowid) for key in index.signatures(ranks.tolist()))
        db.executemany(f"INSERT INTO {self.name}_sets VALUES (?, ?)", sets)
        db.executemany(f"INSERT OR IGNORE INTO {self.name}_keys VALUES (?, ?)", keys)
        self.fetched = {}

    def _read(self, db: Db, keys: Collection[int]) -> dict[int, list[tuple[int, bytes]]]:
        """The sets filed under each of `keys`."""
        fetched: dict[int, list[tuple[int, bytes]]] = {key: [] for key in keys}
        for key, row, blob in db.execute(
            f"SELECT k.key, k.row, s.words FROM {self.name}_keys k"
            f" JOIN {self.name}_sets s ON s.row = k.row"
            " WHERE k.key IN (SELECT value FROM json_each(?))",
            (json.dumps(list(keys)),),
        ):
            fetched[key].append((row, blob))
        return fetched

    def prefetch(self, db: Db, index: signatures.Index, sets: Sequence[frozenset[str]]) -> None:
        """Read the sets under every signature of `sets` at once: a batch's
        lookups in one query rather than one each."""
        keys = {_LONG_KEY}
        for words in sets:
            ranks = index.ranked(words)
            if ranks and index.reachable(len(ranks)):
                keys |= index.probes(ranks)
        self.fetched = self._read(db, keys)

    def find(
        self, db: Db, index: signatures.Index, ranks: list[int], keys: Collection[int]
    ) -> list[int]:
        """Rowids of the sets that reach the overlap with the set of `ranks`,
        whose lookup keys (`Index.probes`) are `keys`, in rowid order."""
        wanted = {_LONG_KEY, *keys}
        missing = wanted.difference(self.fetched)
        fetched = self._read(db, missing) if missing else {}
        mine = set(ranks)
        found: set[int] = set()
        seen: set[int] = set()
        for key in wanted:
            for row, blob in self.fetched.get(key) or fetched.get(key, ()):
                if row in seen:
                    continue
                seen.add(row)
                if index.reaches(mine, array("i", blob)):
                    found.add(row)
        return sorted(found)

    def drop(self, db: Db) -> None:
        db.execute(f"DROP TABLE IF EXISTS {self.name}_sets")
        db.execute(f"DROP TABLE IF EXISTS {self.name}_keys")


class Batch:
    """The memories one batch has decided, read where the table would be read.

    Nothing of a batch is written until all of it is decided, so whatever a
    decision reads of an earlier memory of the batch (what it replaces, what
    it contradicts, where a link back goes) comes from here: `find` looks in
    the batch, then among the stored rows with changes the batch has planned
    (`changed`: links back onto them), then in the table.
    """

    def __init__(self, search: Search | None = None) -> None:
        """A batch numbers its memories on from those `search` (already
        started for this batch) holds."""
        self.search = search
        self.first = search.count if search is not None else 0
        self.memories: list[Memory] = []
        self.changed: dict[str, Memory] = {}
        self._at: dict[str, int] = {}
        # Whether a row of a private scope is among the batch's, and whether
        # the store held an agent's note when first asked (`admission.disputes`).
        self.private = False
        self.notes: bool | None = None
        # Live now, for the whole batch: its decisions are made at one moment.
        self.live = live.live(View(), "m")

    def add(self, memory: Memory) -> None:
        self.private = self.private or memory.scope in PARTITIONS
        if self.search is not None:
            self.search.number(memory)
        self._at[memory.id] = len(self.memories)
        self.memories.append(memory)

    def find(self, db: Db, memory_id: str) -> Memory | None:
        at = self._at.get(memory_id)
        if at is not None:
            return self.memories[at]
        return self.changed.get(memory_id) or rows.find(db, memory_id)

    def update(self, memory: Memory) -> None:
        """A planned change: the memory's row is written with it, or updated to it."""
        at = self._at.get(memory.id)
        if at is not None:
            self.memories[at] = memory
        else:
            self.changed[memory.id] = memory


PARTITIONS = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}


def same_place(memory: Memory, scopes: Sequence[str] = ()) -> tuple[list[Test], dict[str, Any]]:
    """Another row in `memory`'s project, scope and partition (with `scopes`:
    in any of them, any partition): the tests, and their parameters
    (rendered as SQL by `candidate_sql`, as Python for a batch)."""
    if scopes:
        tests = [
            Test("project", IS, "project"),
            Test("scope", ONE_OF, literals=tuple(scopes)),
            Test("id", DIFFERS, "id"),
        ]
        return tests, {"project": memory.project, "id": memory.id}
    column = PARTITIONS.get(memory.scope)
    tests = [
        Test("project", IS, "project"),
        Test("scope", EQUALS, "scope"),
        Test("id", DIFFERS, "id"),
    ]
    params: dict[str, Any] = {"project": memory.project, "scope": memory.scope, "id": memory.id}
    if column is not None:
        tests.append(Test(column, IS, "partition"))
        params["partition"] = getattr(memory, column)
    return tests, params


def candidate_sql(place: Sequence[Test], keys: int) -> str:
    """The rows listed by rowid (`:listed`, a JSON list) in the memory's place
    that hold enough of its words to be compared: their rowid, id and summary.

    Every test here reads a column stored before `details`, so a candidate's
    row is read no further than its summary, never into the pages a long
    `details` runs over; whether a row is live is asked (`live_sql`) only of
    the few that contradict.
    """
    # CROSS JOIN keeps the candidates first: SQLite would otherwise walk the
    # project's rows and look each one up. No ORDER BY and no LIMIT: every
    # candidate is compared, so none can be crowded out by the others.
    sql = (
        "SELECT m.rowid, m.id, m.summary FROM (SELECT value AS hit FROM json_each(:listed)) "
        f"CROSS JOIN memories m ON m.rowid = hit WHERE {live.sql(place, 'm')}"
    )
    # A contradiction holds at least :shared of our words, so at least that many
    # of their keys (:k0, :k1, ...) appear in its summary: a check in C that
    # spares Python the rows that share the rare words and little else. SQLite's
    # lower() folds ASCII only, so a summary with other characters goes to
    # Python unchecked. The summary is lowered once, and each key is a bound
    # parameter, not a JSON list parsed again for every row.
    if not keys:
        return sql
    held = " + ".join(f"(instr(s, :k{i}) > 0)" for i in range(keys))
    shares = f"SELECT {held} FROM (SELECT lower(m.summary) AS s)"
    ascii_only = "length(CAST(m.summary AS BLOB)) = length(m.summary)"
    return sql + f" AND (NOT {ascii_only} OR ({shares}) >= :shared)"


def live_sql(clause: live.Clause) -> str:
    """The rows listed by rowid (`:listed`) that `clause` holds live: each
    with its rowid first, then the whole row."""
    return (
        "SELECT hit, m.* FROM (SELECT value AS hit FROM json_each(:listed)) "
        f"CROSS JOIN memories m ON m.rowid = hit WHERE {clause.sql}"
    )


def find(
    db: Db,
    memory: Memory,
    batch: Batch | None = None,
    scopes: Sequence[str] = (),
    *,
    waiting: bool = False,
) -> list[Found]:
    """Live, accepted memories in the same project, scope and partition (with
    `scopes`: in any of them, any partition) that `memory` contradicts,
    oldest first; with `waiting` (a person's write disputing agents' notes),
    those waiting for review too, and those valid only from a later time (an
    agent's note written to hold from tomorrow contradicts the person's today
    as much as one that holds now). `memory` need not be stored yet; the
    memories its write decided before it are found through `batch` (and its
    search), whether written yet or not."""
    new = claim(memory.summary)
    if not new.terms:
        return []  # no word to search by
    search = batch.search if batch is not None else None
    if search is None:
        search = Search()
        search.start(db)
    misses = len(new.words) // 4
    # Nothing stored before the write (a new project's import): no index to ask.
    words = search_words(new) if search.boundary else []
    before = stored(db, probe(db, words, search), misses, search.boundary or 0) if words else []
    first = batch.first if batch is not None else search.count
    own, earlier = search.near(db, new.words)
    # Rows of the write's earlier batches come after its boundary: no row twice.
    listed = [*before, *earlier]
    pending = [batch.memories[n - first] for n in own if n >= first] if batch else []
    view = View(include_unreviewed=waiting, all_times=waiting)
    clause = batch.live if batch is not None and not waiting else live.live(view, "m")
    place, params = same_place(memory, scopes)
    found: list[Found] = []
    if listed:
        keys = {f"k{i}": word.key for i, word in enumerate(words)}
        shared = len(words) - misses
        compared = {**params, **keys, "listed": json.dumps(listed), "shared": shared}
        kinds: dict[int, str] = {}
        for rowid, memory_id, summary in db.execute(candidate_sql(place, len(words)), compared):
            if memory_id in memory.supersedes:
                continue  # replacing a memory is not contradicting it
            kind = compare_claims(new, claim(summary))
            if kind is not None:
                kinds[rowid] = kind
        if kinds:
            asked = {**clause.params, "listed": json.dumps(list(kinds))}
            for row in db.execute(live_sql(clause), asked):
                found.append(Found(rows.from_row(row), kinds[row["hit"]]))
    if pending:
        alive = live.check(view, clause.params)
        there = live.python(place, params)
        for other in pending:
            if other.id in memory.supersedes or not (alive(other) and there(other)):
                continue
            kind = compare_claims(new, claim(other.summary))
            if kind is not None:
                found.append(Found(other, kind))
    # A row hidden from every read, its words forgotten in a store this one
    # answers to (the person's user store), is no live memory to contradict.
    hidden = forgotten_rows.hidden_elsewhere(db, [f.memory for f in found])
    found = [f for f in found if f.memory.id not in hidden]
    found.sort(key=lambda f: (f.memory.created_at, f.memory.id))
    return found


def refuted(db: Db, memory: Memory, scopes: Sequence[str]) -> list[Found]:
    """Rows of `memory`'s project in `scopes` that an agent refuted while
    they were believed, no person deciding yet, that `memory` contradicts:
    still what the project holds (a refutation is a claim), so an agent's
    note that changes their value is a contradiction as it was before the
    refutation. Refutations are few: each is read and compared."""
    new = claim(memory.summary)
    if not new.terms:
        return []
    sql = (
        "SELECT m.* FROM memories m WHERE m.project IS :project "
        "AND m.scope IN (SELECT value FROM json_each(:scopes)) "
        f"AND m.id != :id AND {live.refuted('m')} AND m.redacted_at IS NULL "
        "AND m.retired_at IS NULL AND m.superseded_by IS NULL"
    )
    params = {"project": memory.project, "scopes": json.dumps(list(scopes)), "id": memory.id}
    found: list[Found] = []
    for row in db.query(sql, params):
        other = rows.from_row(row)
        if other.id in memory.supersedes:
            continue
        kind = compare_claims(new, claim(other.summary))
        if kind is not None:
            found.append(Found(other, kind))
    hidden = forgotten_rows.hidden_elsewhere(db, [f.memory for f in found])
    return [f for f in found if f.memory.id not in hidden]
