"""The candidate search for contradictions finds every one, however crowded the store."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import AGENT, PERSON, make_memory
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability_support import fts_consistent

from tree_ring.govern import claims, contradictions, signatures
from tree_ring.govern.contradictions import Probe, SearchWord
from tree_ring.harness import guidance
from tree_ring.model.record import Memory
from tree_ring.store import live, rows, schema
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.write import bulk, pipeline

# The heavy tests (hundreds of rows, or hundreds of examples) are marked slow:
# CI runs them, the inner loop (`-m "not slow"`) skips them. The rest take
# milliseconds and pin the search's parts, so the inner loop keeps them.


def expected(db: Db, memory: Memory) -> set[str]:
    """What `find` must return, by comparing every live row of the partition."""
    clause = live.live(View(), "m")
    column = contradictions.PARTITIONS.get(memory.scope)
    sql = (
        "SELECT m.* FROM memories m WHERE m.project IS :project AND m.scope = :scope "
        f"AND {clause.sql}"
    )
    if column is not None:
        sql += f" AND m.{column} IS :partition"
    params = {
        **clause.params,
        "project": memory.project,
        "scope": memory.scope,
        "partition": getattr(memory, column) if column else None,
    }
    return {
        row["id"]
        for row in db.execute(sql, params)
        if row["id"] != memory.id
        and row["id"] not in memory.supersedes
        and claims.compare(memory.summary, row["summary"]) is not None
    }


def found(db: Db, memory: Memory) -> set[str]:
    return {f.memory.id for f in contradictions.find(db, memory)}


@pytest.mark.slow
def test_a_contradiction_ranked_below_hundreds_of_lookalikes_is_found(
    store: Store, project_id: str
) -> None:
    # Each lookalike holds the claim's words twice, in summary and details, so
    # a ranking by relevance puts all 300 before the short target (the search
    # this replaced compared its top 64); none of them is a contradiction, as
    # half of its words are not the claim's.
    with store.write() as db:
        for i in range(150):
            lookalike = f"Session cache TTL: session cache TTL tuning note {i}"
            pipeline.insert_prepared(
                db, make_memory(project_id, lookalike, details=lookalike), PERSON
            )
        target = pipeline.insert_prepared(
            db, make_memory(project_id, "The session cache TTL is 30s"), PERSON
        )
        for i in range(150, 300):
            lookalike = f"Session cache TTL: session cache TTL tuning note {i}"
            pipeline.insert_prepared(
                db, make_memory(project_id, lookalike, details=lookalike), PERSON
            )
        new = make_memory(project_id, "The session cache TTL is 60s")
        assert found(db, new) == expected(db, new) == {target.id}
        # An agent's write waits when it contradicts; a person's own is accepted.
        result = pipeline.insert_prepared(db, new, AGENT)
    assert result.trust == "disputed"
    assert result.review_reason is not None and target.id in result.review_reason


# Words whose FTS (porter) and claim stems agree: no trailing s or y.
SYLLABLES = ("ka", "te", "ri", "mo", "dun", "pel", "vor", "lim", "zag", "bo", "ne", "tu")


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))))
    return sorted(words)


def statements(seed: int) -> Iterator[str]:
    """Zipf-worded statements, so a few words are in most rows and many in few."""
    rng = random.Random(seed)
    words = vocabulary(rng, 120)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    while True:
        yield " ".join(rng.choices(words, weights, k=rng.randint(3, 9)))


def variants(text: str, rng: random.Random) -> list[str]:
    """Statements near `text`: negated, a value set or changed, a word less or more."""
    words = text.split()
    out = [f"Do not {text}", f"{text} is {rng.randint(1, 9)}0s", f"Never {text} again"]
    if len(words) > 3:
        dropped = words[:]
        dropped.pop(rng.randrange(len(words)))
        out.append("Do not " + " ".join(dropped))
    out.append(f"Do not {text} kazag is 5s")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_find_returns_exactly_what_comparing_every_row_would(
    store: Store, project_id: str, seed: int
) -> None:
    rng = random.Random(seed)
    texts = statements(seed)
    sample = [next(texts) for _ in range(50)]
    with store.write() as db:
        for _ in range(400):
            pipeline.insert_prepared(db, make_memory(project_id, next(texts)), PERSON)
        for text in sample:
            for near in [text, *variants(text, rng)]:
                if rng.random() < 0.5:
                    scope = {"scope": "agent", "agent_profile": rng.choice(["w1", "w2"])}
                else:
                    scope = {}
                pipeline.insert_prepared(db, make_memory(project_id, near, **scope), PERSON)
        # Every live row, read once; `expected` does the same for one memory.
        clause = live.live(View(), "m")
        stored = db.execute(f"SELECT * FROM memories m WHERE {clause.sql}", clause.params)
        by_partition: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
        for row in stored:
            partition = (row["scope"], row["agent_profile"] if row["scope"] == "agent" else None)
            by_partition.setdefault(partition, []).append((row["id"], row["summary"]))
        checked = 0
        for text in sample:
            for near in [text, *variants(text, rng)]:
                for scope, agent in (("project", None), ("agent", "w1")):
                    memory = make_memory(project_id, near, scope=scope, agent_profile=agent)
                    want = {
                        row_id
                        for row_id, summary in by_partition.get((scope, agent), [])
                        if claims.compare(near, summary) is not None
                    }
                    assert found(db, memory) == want, near
                    checked += len(want)
    assert checked > 50  # the store holds contradictions to find, not only misses


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_a_batch_finds_what_one_write_at_a_time_finds(
    store: Store, project_id: str, tmp_path: Path, seed: int
) -> None:
    """A governed bulk write indexes its rows only at its end, so a contradiction
    between two of its own memories is found by `Pending`, and one with a stored
    row by the index: trust, reasons and links as one write at a time gives."""
    rng = random.Random(seed)
    texts = statements(seed)
    stored = [make_memory(project_id, next(texts)) for _ in range(150)]
    sample = [next(texts) for _ in range(40)]
    memories = [make_memory(project_id, next(texts)) for _ in range(150)]
    for text in sample:
        for near in [text, *variants(text, rng)]:
            agent = rng.choice([None, "w1", "w2"])
            scope = {"scope": "agent", "agent_profile": agent} if agent else {}
            memories.append(make_memory(project_id, near, **scope))
    rng.shuffle(memories)
    # Some of the batch contradict rows stored before it.
    memories += [make_memory(project_id, f"Do not {m.summary}") for m in stored[:20]]
    twin_root = tmp_path / "twin"
    twin_root.mkdir()
    guidance.init_project(twin_root)
    with Store.open(twin_root) as twin:
        for target in (store, twin):
            bulk.insert_many(target, stored, PERSON, action="import", admit=False)
        batched = bulk.insert_many(store, memories, PERSON, batch=120)
        single = [pipeline.store_memory(twin, memory, PERSON) for memory in memories]
        assert batched == single
        decided = "SELECT id, trust, review_reason, links FROM memories"
        assert set(store.db.execute(decided)) == set(twin.db.execute(decided))
    # A person's writes are accepted, and what each contradicts is named.
    contradicting = [r for r in batched if r.contradicts]
    assert len(contradicting) > 40  # the batch held contradictions to find
    assert fts_consistent(store.conn)


def jaccard_reaches(a: frozenset[str], b: frozenset[str]) -> bool:
    """What `compare_claims` asks of two word sets before it looks at polarity."""
    shared = a & b
    return bool(shared) and len(shared) / len(a | b) >= claims.OVERLAP


# Sets near each other: a fresh set, or an earlier one with words dropped and
# added; some longer than signatures.LONG, which are listed rather than signed.
near_sets = st.lists(
    st.tuples(
        st.integers(0, 29),  # which earlier set to start from, if any
        st.lists(st.integers(0, 39), max_size=30),  # words of a fresh set
        st.lists(st.integers(0, 39), max_size=3),  # words to drop
        st.lists(st.integers(0, 39), max_size=3),  # words to add
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(steps=near_sets)
def test_signatures_find_exactly_the_sets_that_reach_the_overlap(
    steps: list[tuple[int, list[int], list[int], list[int]]],
) -> None:
    index = signatures.Index(claims.OVERLAP)
    sets: list[frozenset[str]] = []
    for start, fresh, drop, add in steps:
        base = set(sets[start % len(sets)]) if sets and not fresh else set(map(str, fresh))
        words = frozenset((base - set(map(str, drop))) | set(map(str, add)))
        want = [n for n, other in enumerate(sets) if jaccard_reaches(words, other)]
        assert index.find(words) == want, words
        assert index.add(words) == len(sets)
        sets.append(words)


def test_signatures_meet_few_sets_when_every_word_is_common(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sentences of 6 to 12 words of 200: each word is in some 4% of them, so
    the sets sharing two words with one grow with the store; those sharing a
    signature with it (checked in full) stay few."""
    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(200)]
    index = signatures.Index(claims.OVERLAP)
    met: list[int] = []
    real_find = signatures._Table.find

    def counting(table: signatures._Table, keys: set[int]) -> list[int]:
        found = real_find(table, keys)
        met.append(len(set(found)))
        return found

    monkeypatch.setattr(signatures._Table, "find", counting)
    sets = [frozenset(rng.choices(vocabulary, k=rng.randint(6, 12))) for _ in range(3_000)]
    pairs = 0
    for n, words in enumerate(sets):
        index.find(words)
        pairs += sum(len(words & other) >= 2 for other in sets[:n])
        index.add(words)
    assert pairs / len(sets) > 50
    assert sum(met) / len(sets) < 1


def test_statements_that_differ_in_one_rare_word_do_not_meet_each_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "Repetitive line N alpha beta gamma": every pair shares 5 words of 7,
    under the overlap, yet all hold the signature of the common words. Looked
    up by size, none is met, so a write of n of them checks no pair (checking
    every earlier one is time that grows with the square of n)."""
    index = signatures.Index(claims.OVERLAP)
    met: list[int] = []
    real_find = signatures._Table.find

    def counting(table: signatures._Table, keys: set[int]) -> list[int]:
        found = real_find(table, keys)
        met.append(len(set(found)))
        return found

    monkeypatch.setattr(signatures._Table, "find", counting)
    for n in range(2_000):
        words = claims.claim(f"Repetitive line {n} alpha beta gamma alpha beta.").words
        assert len(words) == 6
        assert index.find(words) == []
        index.add(words)
    assert sum(met) == 0
    # A statement those lines do reach (5 of their 6 words) still finds them all.
    assert len(index.find(frozenset({"repetitive", "line", "alpha", "beta", "gamma"}))) == 2_000


def test_long_sets_are_listed_and_found_by_size() -> None:
    index = signatures.Index(claims.OVERLAP)
    long = frozenset(f"w{i}" for i in range(24 + 6))  # past the 24 words of a long set
    assert index.add(long) == 0
    assert index.find(long - {"w0", "w1"}) == [0]
    assert index.find(frozenset(sorted(long)[:10])) == []  # too short to reach it


def test_signature_sizes_agree_for_every_pair_that_can_reach_the_overlap() -> None:
    """The index is complete because two sets that can reach the overlap sign
    with subsets of the same size, and share at least that many words."""
    index = signatures.Index(claims.OVERLAP)
    for a in range(1, 80):
        for b in range(a, 80):
            need = index.least(b)
            if need <= a:  # some pair of these sizes reaches the overlap
                k = min(signatures.K, a)
                assert k == min(signatures.K, b) and need >= k, (a, b)
                assert index.prefix(a) >= a - need + k and index.prefix(b) >= b - need + k


def test_a_write_probes_each_word_once_across_its_batches(store: Store, project_id: str) -> None:
    with store.write() as db:
        for i in range(40):
            crowd = f"The worker timeout setting is documented, case {i}"
            pipeline.insert_prepared(db, make_memory(project_id, crowd), PERSON, admit=False)
    probes: list[str] = []
    store.conn.set_trace_callback(probes.append)
    try:
        memories = [
            make_memory(project_id, f"Worker timeout setting for Alice is {n}s") for n in range(30)
        ]
        bulk.insert_many(store, memories, PERSON, batch=7)
        assert len([sql for sql in probes if "group_concat(rowid)" in sql]) == 1
        # A single write makes a fresh search: each probes its words.
        for n in range(2):
            memory = make_memory(project_id, f"Worker timeout setting for Bob is {n}s")
            pipeline.store_memory(store, memory, PERSON)
    finally:
        store.conn.set_trace_callback(None)
    assert len([sql for sql in probes if "group_concat(rowid)" in sql]) == 3


def probe(name: str, rowids: tuple[int, ...] = (), count: int = 0) -> Probe:
    """A word listed in full (`rowids`) or, given a `count`, a common one."""
    word = SearchWord(name, f'"{name}"', name)
    return Probe(word, count or len(rowids), count, rowids)


COMMON = contradictions.PROBE_ROWS


def test_rare_words_alone_need_no_fts_query() -> None:
    # Two misses allowed: a candidate holds two of the four rarest words.
    rarest = [probe("a", (1, 5)), probe("b", (2, 5)), probe("c", (3, 6)), probe("d", (4, 6, 7))]
    where = contradictions.candidates([*rarest, probe("e", count=COMMON)], misses=2)
    assert where == contradictions.Candidates((5, 6), None)


def test_common_words_are_left_to_fts() -> None:
    taken = [probe("a", (1,)), probe("b", count=COMMON + 9), probe("c", count=COMMON)]
    where = contradictions.candidates([*taken, probe("d", count=COMMON)], misses=2)
    # Row 1 holds a, and may hold b or c: it is compared.
    assert where.rowids == (1,)
    assert where.match == '(("c" AND "d") OR ("b" AND ("c" OR "d")))'
    where = contradictions.candidates([probe("a", (1,)), probe("b", (2,)), *taken[1:]], misses=2)
    assert where == contradictions.Candidates((1, 2), '("b" AND "c")')


def test_without_misses_every_word_is_asked_for() -> None:
    where = contradictions.candidates([probe("a", (1, 2)), probe("b", (2, 3))], misses=0)
    assert where == contradictions.Candidates((2,), None)
    where = contradictions.candidates([probe("a", count=COMMON)], misses=0)
    assert where == contradictions.Candidates((), '"a"')


def test_a_word_of_several_tokens_is_searched_in_an_index_without_positions(
    store: Store, project_id: str
) -> None:
    # "x-ray" is two tokens to FTS5, and the search's index holds no positions
    # to match them as a phrase: the rows holding both are asked for instead.
    for text in ("Use x-ray scans on builds", "Use ray scans on x-axis builds"):
        pipeline.store_memory(store, make_memory(project_id, text), PERSON)
    kept = store.query("SELECT id FROM memories WHERE summary LIKE '%x-ray%'")[0][0]
    denial = make_memory(project_id, "Do not use x-ray scans on builds")
    assert found(store.db, denial) == {kept} == expected(store.db, denial)
    words = contradictions.search_words(claims.claim(denial.summary))
    assert '("x" AND "ray")' in {word.phrase for word in words}


@pytest.mark.parametrize("count", range(1, 8))
def test_at_least_matches_exactly_the_rows_holding_enough(count: int) -> None:
    # The search's own index, as the schema declares it, over rows of summaries.
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE memories(summary TEXT)")
    db.execute(schema.CLAIM_FTS)
    names = [f"word{chr(97 + i)}" for i in range(count)]
    for row in range(1, 2**count):
        held = " ".join(name for i, name in enumerate(names) if row >> i & 1)
        db.execute("INSERT INTO memories(rowid, summary) VALUES (?, ?)", (row, held))
    db.execute("INSERT INTO claim_fts(claim_fts) VALUES ('rebuild')")
    for need in range(1, count + 1):
        query = contradictions.at_least([f'"{n}"' for n in names], need)
        held = db.execute("SELECT rowid FROM claim_fts WHERE claim_fts MATCH ?", (query,))
        matched = {r for (r,) in held}
        assert matched == {r for r in range(1, 2**count) if r.bit_count() >= need}, need


def test_forms_of_one_word_are_one_search_word() -> None:
    words = contradictions.search_words(claims.claim("Tests and test policies: a policy"))
    assert [(w.word, w.phrase, w.key) for w in words] == [
        ("test", '("tests" OR "test")', "test"),
        ("policy", '("policies" OR "policy")', "polic"),
    ]


def test_plural_forms_pass_the_sql_pre_check(store: Store, project_id: str) -> None:
    # Forty rows make every word common, so candidates come from FTS and the
    # key check in SQL decides which reach Python.
    with store.write() as db:
        for i in range(40):
            crowd = f"Rotate signing keys and cache policies weekly for billing gateway {i}"
            pipeline.insert_prepared(db, make_memory(project_id, crowd), PERSON)
        old = pipeline.insert_prepared(
            db,
            make_memory(project_id, "Rotate the signing keys and cache policies weekly"),
            PERSON,
        )
        new = make_memory(project_id, "Never rotate the signing key and cache policy weekly")
        assert found(db, new) == expected(db, new) == {old.id}


def test_a_summary_sqlite_cannot_lowercase_is_compared_in_python(
    store: Store, project_id: str
) -> None:
    summary = "Use tabs in \uff2dakefiles"  # a fullwidth M, which NFKC folds and lower() keeps
    assert claims.claim(summary).words == {"use", "tab", "makefile"}
    with store.write() as db:
        for i in range(40):
            crowd = f"Makefiles for target {i}"
            pipeline.insert_prepared(db, make_memory(project_id, crowd), PERSON)
        old = pipeline.insert_prepared(db, make_memory(project_id, summary), PERSON)
        new = make_memory(project_id, "Never use tabs in Makefiles")
        assert found(db, new) == expected(db, new) == {old.id}


def test_long_statements_are_searched_too(store: Store, project_id: str) -> None:
    text = (
        "Workers retry failed uploads with exponential backoff and jitter until the "
        "queue drains, then page the oncall engineer through the escalation rota"
    )
    assert len(claims.claim(text).words) // 4 == 4  # misses
    with store.write() as db:
        for i in range(40):
            crowd = f"Workers retry failed uploads with exponential backoff, run {i}"
            pipeline.insert_prepared(db, make_memory(project_id, crowd), PERSON)
        old = pipeline.insert_prepared(db, make_memory(project_id, text), PERSON)
        new = make_memory(project_id, "Never " + text.replace(" and jitter", ""))
        assert found(db, new) == expected(db, new) == {old.id}


def test_a_write_finds_through_fts_only_what_was_stored_before_it(
    store: Store, project_id: str
) -> None:
    """The FTS index answers for the rows up to the write's boundary; a row
    stored after it (the write's own, in an earlier batch) is its signatures'."""
    with store.write() as db:
        old = pipeline.insert_prepared(db, make_memory(project_id, "Use tabs in Makefiles"), PERSON)
        search = contradictions.Search()
        search.start(db)
        later = pipeline.insert_prepared(
            db, make_memory(project_id, "Use tabs in Makefiles, always"), PERSON
        )
        new = make_memory(project_id, "Never use tabs in Makefiles")
        assert found(db, new) == {old.id, later.id}
        batch = contradictions.Batch(search)
        assert {f.memory.id for f in contradictions.find(db, new, batch)} == {old.id}


def test_a_wrong_probe_costs_time_not_findings(store: Store, project_id: str) -> None:
    with store.write() as db:
        old = pipeline.insert_prepared(db, make_memory(project_id, "Use tabs in Makefiles"), PERSON)
        new = make_memory(project_id, "Never use tabs in Makefiles")
        search = contradictions.Search()
        search.start(db)
        # Record "tabs" and "makefiles" as common words: they are in one row.
        for name, reach in (("tabs", 10**9), ("makefiles", 1)):
            word = SearchWord(name, f'"{name}"', name)
            search.probes[word.phrase] = Probe(word, contradictions.PROBE_ROWS, reach, ())
        batch = contradictions.Batch(search)
        assert {f.memory.id for f in contradictions.find(db, new, batch)} == {old.id}
        assert found(db, new) == {old.id}


def test_candidates_are_looked_up_by_rowid_and_never_sorted(store: Store, project_id: str) -> None:
    clause = live.live(View(), "m")
    memory = make_memory(project_id, "x", scope="agent", agent_profile="w1")
    place, params = contradictions.same_place(memory)
    for sql, asked in (
        (contradictions.candidate_sql(place, 2), {**params, "k0": "a", "k1": "b", "shared": 2}),
        (contradictions.live_sql(clause), clause.params),
    ):
        plan = [
            row[3]
            for row in store.db.execute("EXPLAIN QUERY PLAN " + sql, {**asked, "listed": "[1, 2]"})
        ]
        assert "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)" in plan
        assert not [step for step in plan if step.startswith("SCAN m ") or "ORDER BY" in step]
        assert not [step for step in plan if "fts" in step]


@pytest.mark.parametrize(
    ("scope", "partition"),
    [("project", None), ("agent", "agent_profile"), ("workflow", "workflow_id"),
     ("session", "session_id")],
)  # fmt: skip
def test_candidates_are_compared_by_what_precedes_their_details(
    store: Store, scope: str, partition: str | None
) -> None:
    # A row is read up to its summary: every column the comparison's query
    # reads, and every one its place tests, is stored before `details`.
    columns = [row[1] for row in store.db.execute("PRAGMA table_info(memories)")]
    fields = {"agent_profile": "a", "workflow_id": "w", "session_id": "s"}
    place, _ = contradictions.same_place(make_memory("p", "x", scope=scope, **fields))
    sql = contradictions.candidate_sql(place, 1)
    named = {column for column in columns if f"m.{column}" in sql}
    assert {"id", "summary", "project", "scope"} | ({partition} if partition else set()) == named
    assert max(columns.index(column) for column in named) < columns.index("details")


WORDS = ("amber", "basil", "cedar", "dahlia", "ember")


def _crowded(store: Store, project_id: str) -> dict[int, set[str]]:
    """A hundred summaries, each of two to five of WORDS and a word of its own,
    so that every one of WORDS is common: rowid -> which of WORDS it holds."""
    rng = random.Random(7)
    memories = []
    for i in range(100):
        held = rng.sample(WORDS, rng.randint(2, 5))
        own = "note" + chr(97 + i % 26) + chr(97 + i // 26)
        memories.append(make_memory(project_id, " ".join([*held, own])))
    bulk.insert_many(store, memories, PERSON)
    summaries = store.query("SELECT rowid, summary FROM memories")
    return {row[0]: set(row[1].split()) & set(WORDS) for row in summaries}


def test_a_crowded_search_asks_for_more_shared_words(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    holding = _crowded(store, project_id)
    denial = make_memory(project_id, "Never " + " ".join(WORDS))
    new = claims.claim(denial.summary)
    search = contradictions.Search()
    search.start(store.db)
    probes = contradictions.probe(store.db, contradictions.search_words(new), search)
    assert all(p.common for p in probes)
    misses = len(new.words) // 4
    boundary = search.boundary or 0
    # Unwidened: the rows holding two of the three rarest words.
    rarest = {p.word.word for p in probes[:3]}
    narrow = contradictions.stored(store.db, probes, misses, boundary)
    assert set(narrow) == {row for row, held in holding.items() if len(held & rarest) >= 2}
    # Widened to every word: the rows holding four of the five.
    monkeypatch.setattr(contradictions, "WIDEN_ROWS", 10)
    wide = contradictions.stored(store.db, probes, misses, boundary)
    assert set(wide) == {row for row, held in holding.items() if len(held) >= 4}
    assert 10 < len(wide) < len(narrow) and wide == sorted(wide)
    # The widened search finds what comparing every row finds.
    assert found(store.db, denial) == expected(store.db, denial) != set()


def test_fts_answers_the_rarest_words_within_the_boundary(store: Store) -> None:
    plan = [
        row[3]
        for row in store.db.execute("EXPLAIN QUERY PLAN " + contradictions.MATCH_SQL, ('"a"', 9, 5))
    ]
    assert plan == ["SCAN claim_fts VIRTUAL TABLE INDEX 0:M1<"]


def test_probes_read_only_the_fts_index(store: Store) -> None:
    params = {"probe": contradictions.PROBE_ROWS, "w0": '"a"', "w1": '"b"', "boundary": 9}
    sql = "EXPLAIN QUERY PLAN " + contradictions.probe_sql(2)
    plan = [row[3] for row in store.db.execute(sql, params)]
    # M: a MATCH; <: the rowid bound, applied by FTS5 inside the index.
    assert [step for step in plan if "VIRTUAL TABLE" in step] == [
        "SCAN claim_fts VIRTUAL TABLE INDEX 0:M1<"
    ] * 2
    assert not [step for step in plan if step.startswith("SEARCH") or " m " in step]


names = st.sampled_from((None, "a", "b"))
places = st.builds(
    dict,
    project=st.sampled_from((None, "p1", "p2")),
    scope=st.sampled_from(("project", "global", "agent", "workflow", "session")),
    agent_profile=names,
    workflow_id=names,
    session_id=names,
)


@settings(max_examples=300, deadline=None)
@given(stored=st.lists(places, min_size=1, max_size=40), new=places)
def test_the_partition_check_agrees_with_its_sql(
    stored: list[dict[str, str | None]], new: dict[str, str | None]
) -> None:
    """A batch's earlier rows are held to the same project, scope and partition
    as the SQL holds stored rows to: one declaration, two renderings."""
    conn = sqlite3.connect(":memory:")
    conn.execute(schema.MEMORIES)
    made = [make_memory(None, f"row {n}").replace(**place) for n, place in enumerate(stored)]
    made.append(made[0].replace(id="mem_self"))  # the new memory's own id is never a candidate
    rows.insert_many(Db(conn, Path(":memory:")), made)
    memory = make_memory(None, "new").replace(id="mem_self", **new)
    place, params = contradictions.same_place(memory)
    found = conn.execute(f"SELECT id FROM memories m WHERE {live.sql(place)}", params)
    there = live.python(place, params)
    assert {m.id for m in made if there(m)} == {r[0] for r in found}


def test_a_bulk_write_holds_one_batch_of_signatures_and_finds_the_rest_on_disk(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Earlier batches' signatures move to temporary tables once written, so
    the index in memory never holds more than one batch; a contradiction of a
    memory three batches back is still found, and the tables are dropped."""
    held: list[int] = []
    real_add = signatures.Index.add

    def counting(index: signatures.Index, words: frozenset[str]) -> int:
        number = real_add(index, words)
        held.append(len(index))
        return number

    monkeypatch.setattr(signatures.Index, "add", counting)
    first = make_memory(project_id, "Deploys use blue green rollout for the payments service")
    filler = [
        make_memory(project_id, f"Unrelated fact number{n} about topic{n} and area{n}")
        for n in range(20)
    ]
    late = make_memory(project_id, "Deploys never use blue green rollout for the payments service")
    results = bulk.insert_many(store, [first, *filler, late], PERSON, batch=7)
    assert max(held) <= 7 and len(held) == 22
    # A person's contradicting write is accepted, naming what it contradicts.
    assert results[-1].contradicts == (first.id,)
    stored = rows.get(store.db, results[-1].id)
    assert first.id in {link.target for link in stored.links}
    temp = store.conn.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'")
    assert temp.fetchall() == []
