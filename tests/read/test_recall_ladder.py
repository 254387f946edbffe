"""Recall's query ladder: absent words, any-k-of-n rungs, the budgeted OR."""

from __future__ import annotations

import itertools
import math
import sqlite3
from typing import cast

import pytest
from helpers import PERSON, make_memory
from recall_support import match_queries

from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.read import recall as recall_module
from tree_ring.read import rungs
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def _store_all(store: Store, *memories: Memory) -> None:
    """One batch: decided as one write at a time would be, without searching
    the store for contradictions once per row."""
    with store.write() as conn:
        pipeline.insert_prepared_many(conn, memories, PERSON)


def test_absent_words_leave_the_ands() -> None:
    counts = {"billing": 3, "worker": 9, "kubernetes": 0}
    ladder = match_queries(["billing", "worker", "kubernetes"], counts)
    assert ladder[0] == '"billing" AND "worker"'
    assert not any(q.count("AND") and '"kubernetes" AND' in q for q in ladder[:-1])


def test_any_k_of_n_rungs_come_before_or() -> None:
    words = ["retry", "limit", "billing", "worker"]
    ladder = match_queries(words)
    climbed = rungs.ladder(words)
    k_of_n = [(r.need, len(r.atoms)) for r in climbed if 1 < r.need < len(r.atoms)]
    assert k_of_n == [(3, 4), (2, 4)]
    assert " AND " not in ladder[-1]  # the OR rung is last
    assert climbed[-1].need == 1 and [atom[0] for atom in climbed[-1].atoms] == words


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_each_k_of_n_rung_matches_exactly_the_rows_holding_k_words(count: int) -> None:
    """Every subset of the words is one row; a rung needing k of them must
    match exactly the rows of k words or more, whatever form its text takes."""
    words = ["retry", "limit", "billing", "worker", "queue"][:count]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter')")
    rows = {}
    for mask in range(1 << count):
        held = [w for i, w in enumerate(words) if mask >> i & 1]
        rowid = conn.execute("INSERT INTO t(body) VALUES (?)", (" ".join(held) + " filler",))
        rows[cast(int, rowid.lastrowid)] = len(held)
    needs = []
    for rung in rungs.ladder(words):
        if rung.need == 1 or len(rung.atoms) != count:
            continue
        needs.append(rung.need)
        got = {r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (rung.match,))}
        assert got == {rowid for rowid, held in rows.items() if held >= rung.need}, rung.match
    assert set(needs) == set(range(2, count + 1))


def test_the_or_rung_keeps_the_rarest_occurring_word() -> None:
    budget = rungs.OR_BUDGET
    ladder = match_queries(["deploy", "failure"], {"deploy": budget + 1, "failure": 0})
    assert '"deploy"' in ladder[-1] and '"failure"' in ladder[-1]
    half = budget // 2 + 1
    ladder = match_queries(["cache", "api", "ttl"], {"cache": half, "api": half, "ttl": 5})
    assert '"cache"' in ladder[-1] and '"ttl"' in ladder[-1]
    assert '"api"' not in ladder[-1]  # the rarest words that fit the budget, no more


def test_a_stray_word_does_not_hide_a_two_word_match(store: Store, identity: Identity) -> None:
    answer = make_memory(identity.project, "The billing worker retry limit is 5 attempts")
    other = make_memory(identity.project, "The search api uses postgres")
    _store_all(store, answer, other)
    hits = recall(store, identity, "how many retries does the billing worker make in kubernetes")
    assert [h.memory.id for h in hits] == [answer.id]


def test_more_shared_words_rank_first(store: Store, identity: Identity) -> None:
    three = make_memory(identity.project, "Billing worker retry limit is 5")
    two = make_memory(identity.project, "Billing worker log level is info")
    one = make_memory(identity.project, "Email worker uses kafka")
    _store_all(store, three, two, one)
    hits = recall(store, identity, "billing worker retry budget")
    # Two share two words or more; the OR rung fills up with the one-word match.
    assert [h.memory.id for h in hits] == [three.id, two.id, one.id]
    top = recall(store, identity, "billing worker retry budget", limit=2)
    assert [h.memory.id for h in top] == [three.id, two.id]


def test_the_or_rung_fills_up_when_nothing_shares_two_words(
    store: Store, identity: Identity
) -> None:
    cache = make_memory(identity.project, "The cache TTL is five minutes")
    _store_all(store, cache)
    assert [h.memory.id for h in recall(store, identity, "cache eviction policy")] == [cache.id]


def test_invisible_rows_ahead_do_not_starve_a_relaxed_rung(
    store: Store, identity: Identity
) -> None:
    # 300 rows of another project share all four words; the visible one
    # shares two. Filters run in SQL before the cap on every rung.
    others = [
        make_memory("another-project", f"billing worker retry limit note {i}") for i in range(300)
    ]
    visible = make_memory(identity.project, "Billing worker: keep it small")
    _store_all(store, *others, visible)
    hits = recall(store, identity, "billing worker retry limit", limit=1)
    assert [h.memory.id for h in hits] == [visible.id]


def test_hits_carry_the_whole_memory(store: Store, identity: Identity) -> None:
    memory = make_memory(
        identity.project,
        "Release builds run the parity check",
        details="run `tree-ring doctor` before tagging",
        tags=("release",),
        source_ref="docs/release.md",
    )
    _store_all(store, memory)
    (hit,) = recall(store, identity, "release parity check")
    assert hit.memory.id == memory.id
    assert hit.memory.details == memory.details
    assert hit.memory.tags == ("release",)
    assert hit.memory.source_ref == "docs/release.md"


@pytest.mark.parametrize("words", [1, 6, 16])
def test_long_queries_stay_bounded(store: Store, identity: Identity, words: int) -> None:
    _store_all(store, make_memory(identity.project, "alpha beta gamma delta"))
    query = " ".join(f"w{i}" for i in range(words - 1)) + " alpha"
    ladder = match_queries(recall_module.terms(query))
    assert len(ladder) <= 8
    assert [h.memory.summary for h in recall(store, identity, query)] == ["alpha beta gamma delta"]


# ------------------------------------------------------------ recency windows


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows at test scale: a rung is broad past 10 matches, the first
    window is the newest 20 memories, and each next one is 4 times as wide."""
    monkeypatch.setattr(rungs, "OR_BUDGET", 10)
    monkeypatch.setattr(rungs, "WINDOW", 20)
    monkeypatch.setattr(rungs, "WIDEN", 4)


def _floors_used(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The floors of the windows in which the index ranked a rung's matches,
    in order (a rung's newest matches, read first, need no floor)."""
    used: list[int] = []
    query = store.query

    def spy(sql: str, params: object = ()) -> list[sqlite3.Row]:
        if isinstance(params, dict) and "floor" in params:
            floor = cast(int, params["floor"])
            if not used or used[-1] != floor:
                used.append(floor)
        return query(sql, params)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(store, "query", spy)
    return used


def test_floors_widen_until_the_store_is_covered() -> None:
    assert list(rungs.floors(5, 1_000_000)) == [0]  # narrow: the whole store at once
    assert list(rungs.floors(rungs.OR_BUDGET + 1, 1_000_000)) == [
        990_000, 960_000, 840_000, 360_000, 0,
    ]  # fmt: skip
    assert list(rungs.floors(rungs.OR_BUDGET + 1, 5_000)) == [0]


@pytest.mark.usefixtures("small_windows")
def test_a_broad_word_is_ranked_within_the_newest_window(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    memories = [make_memory(identity.project, f"cache note number {i}") for i in range(200)]
    _store_all(store, *memories)
    floors = _floors_used(store, monkeypatch)
    hits = recall(store, identity, "cache", limit=5)
    newest = {m.id for m in memories[-20:]}
    assert len(hits) == 5 and {h.memory.id for h in hits} <= newest
    assert floors == [180]  # one windowed query; the store was never ranked whole


@pytest.mark.parametrize(
    ("budget", "visible", "hidden", "floors"),
    [
        (10, 3, 300, [283, 223, 0]),  # broad: more matches than the budget
        (1_000, 20, 40, [40, 0]),  # past the cap (40), within the budget
    ],
)
def test_invisible_rows_in_the_window_widen_it(
    store: Store,
    identity: Identity,
    monkeypatch: pytest.MonkeyPatch,
    budget: int,
    visible: int,
    hidden: int,
    floors: list[int],
) -> None:
    """Newer rows of another project fill every window but the last (20
    memories, then four times as wide): the visible matches are still all
    found, by widening, never starved."""
    monkeypatch.setattr(rungs, "OR_BUDGET", budget)
    monkeypatch.setattr(rungs, "WINDOW", 20)
    monkeypatch.setattr(rungs, "WIDEN", 4)
    mine = [make_memory(identity.project, f"cache eviction rule {i}") for i in range(visible)]
    theirs = [make_memory("another-project", f"cache eviction note {i}") for i in range(hidden)]
    _store_all(store, *mine, *theirs)
    used = _floors_used(store, monkeypatch)
    hits = recall(store, identity, "cache eviction", limit=20)
    assert {h.memory.id for h in hits} == {m.id for m in mine}
    assert used[: len(floors)] == floors  # the strict rung widened to the whole store


@pytest.mark.usefixtures("small_windows")
def test_a_narrow_rung_is_searched_whole(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = make_memory(identity.project, "The billing worker retry limit is 5")
    filler = [make_memory(identity.project, f"unrelated note {i}") for i in range(100)]
    _store_all(store, old, *filler)
    floors = _floors_used(store, monkeypatch)
    assert [h.memory.id for h in recall(store, identity, "billing retry")] == [old.id]
    assert floors == []  # its few matches read at once, no window ranked


def test_common_words_keep_the_live_match_among_hundreds_of_hidden_ones(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "cache" is common (more memories than the budget) in a store taken as
    # large, so the narrow rung's 301 matches are weighed in Python, not by
    # the index's bm25; the 300 hidden ones weigh more, and the one live
    # match must still be kept.
    monkeypatch.setattr(rungs, "OR_BUDGET", 400)
    monkeypatch.setattr(recall_module, "POOL", 5)
    monkeypatch.setattr(recall_module, "INDEX_BM25_BELOW", 0)  # as in a large store
    visible = make_memory(
        identity.project, "A long note that mentions the cache and its eviction once"
    )
    hidden = [
        make_memory("another-project", f"cache eviction cache eviction {i}") for i in range(300)
    ]
    common = [make_memory(identity.project, f"cache warmup {i}") for i in range(450)]
    _store_all(store, *hidden, visible, *common)
    ranked_by_index: list[str] = []
    query = store.query

    def spy(sql: str, params: object = ()) -> list[sqlite3.Row]:
        if "bm25(" in sql:
            ranked_by_index.append(sql)
        return query(sql, params)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(store, "query", spy)
    hits = recall(store, identity, "cache eviction", limit=5)
    assert ranked_by_index == []  # every rung was read by rowid
    assert visible.id in {h.memory.id for h in hits}
    assert not {h.memory.id for h in hits} & {m.id for m in hidden}


@pytest.mark.parametrize("count", [3, 5])
def test_two_of_an_odd_number_writes_every_word_alike(count: int) -> None:
    """bm25 weighs a word each time the rung writes it."""
    words = ["retry", "limit", "billing", "worker", "queue"][:count]
    (pairs,) = [r for r in rungs.ladder(words) if r.need == 2 and len(r.atoms) == count]
    written = {w: pairs.match.count(f'"{w}"') for w in words}
    assert len(set(written.values())) == 1, written


def test_a_rung_of_many_matches_is_weighed_in_one_search(store: Store, identity: Identity) -> None:
    """A k-of-n rung with more matches than recall keeps is probed without
    bm25 no further than one match past the cap, then searched once with
    bm25: its matches are never weighed twice, nor read whole unweighed."""
    rows = [
        make_memory(identity.project, f"billing worker retry note {i}") for i in range(80)
    ]  # three of the four words, more than the candidate pool
    _store_all(store, *rows, make_memory(identity.project, "The travel budget is frozen"))
    searched: list[tuple[str, str, int]] = []
    query = store.query

    def recording(sql: str, params: object = ()) -> list[sqlite3.Row]:
        got = query(sql, params)  # type: ignore[arg-type]
        if isinstance(params, dict) and "match" in params:
            searched.append((sql, cast(str, params["match"]), len(got)))
        return got

    store.query = recording  # type: ignore[method-assign]
    hits = recall(store, identity, "billing worker retry budget")
    assert len(hits) == recall_module.DEFAULT_LIMIT
    cap = recall_module.POOL
    (k_of_n,) = {m for _, m, n in searched if " OR " in m and " AND " in m and n > cap}
    its = [(sql, n) for sql, m, n in searched if m == k_of_n]
    assert its == [
        (recall_module.ANY_MATCHES_SQL, cap + 1),  # the probe stops past the cap
        (recall_module.SCORED_ANY_MATCHES_SQL, 80),
    ]
    weighed = [(sql, m) for sql, m, _ in searched if "bm25(" in sql]
    assert len(weighed) == len(set(weighed)), weighed


def test_a_strict_rung_of_many_matches_keeps_its_best_not_its_newest(
    store: Store, identity: Identity
) -> None:
    """A rung with more matches than the pool keeps those the index weighs
    most: the one short memory written first, ahead of 100 long ones after it
    (asked for as many as the pool holds: the long ones' neighbours rank them
    higher once scored, so only the pool's choice is tested)."""
    best = make_memory(identity.project, "Billing worker retries")
    padding = " ".join(f"note{i}" for i in range(40))
    later = [
        make_memory(identity.project, f"billing worker {padding} entry {i}") for i in range(100)
    ]
    _store_all(store, best, *later)
    hits = recall(store, identity, "billing worker", limit=recall_module.POOL)
    assert len(hits) == recall_module.POOL
    assert best.id in [hit.memory.id for hit in hits]


# ------------------------------------------------------- a rung's expected size


@pytest.mark.parametrize(
    "shares", [[0.5], [0.1, 0.9], [0.2, 0.3, 0.4], [0.05, 0.5, 0.7, 0.01, 0.99]]
)
def test_at_least_share_is_the_chance_of_that_many_or_more(shares: list[float]) -> None:
    for need in range(len(shares) + 1):
        exact = 0.0
        for held in itertools.product((False, True), repeat=len(shares)):
            if sum(held) >= need:
                exact += math.prod(s if h else 1 - s for s, h in zip(shares, held, strict=True))
        assert rungs._at_least_share(shares, need) == pytest.approx(exact)


def _searches(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(statement, match) of every search of the index by a rung."""
    searched: list[tuple[str, str]] = []
    query = store.query

    def spy(sql: str, params: object = ()) -> list[sqlite3.Row]:
        if isinstance(params, dict) and "match" in params and "bound" in params:
            searched.append((sql, cast(str, params["match"])))
        return query(sql, params)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(store, "query", spy)
    return searched


def test_a_rung_within_the_cap_is_not_weighed_by_bm25(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = make_memory(identity.project, "The billing worker retry limit is 5")
    filler = [make_memory(identity.project, f"billing note {i}") for i in range(60)]
    filler += [make_memory(identity.project, f"retry note {i}") for i in range(60)]
    _store_all(store, match, *filler)
    searched = _searches(store, monkeypatch)
    hits = recall(store, identity, "billing retry", limit=3)
    assert hits[0].memory.id == match.id
    strict = [sql for sql, m in searched if m == '"billing" AND "retry"']
    assert strict == [recall_module.ANY_MATCHES_SQL]  # one search, in index order, no bm25


@pytest.mark.parametrize("rows", [60, 400])
def test_a_rung_of_words_held_together_finds_what_it_would_unestimated(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    """In a store where the index does not weigh matches: three words, each
    in 7 of every 15 memories and always together in one of five. Held
    independently they would share a tenth of the store (30 or 200
    memories), under BROAD (250), so the rung is read in the index's order
    as narrow, yet it matches more than the cap (60) or than the budget
    (400, with a budget of 100). Past the budget it is read again, newest
    first, and recall returns exactly what it returns with no estimate."""
    monkeypatch.setattr(rungs, "OR_BUDGET", 100)
    monkeypatch.setattr(rungs, "BROAD", 250)
    monkeypatch.setattr(rungs, "WINDOW", 150)
    monkeypatch.setattr(recall_module, "INDEX_BM25_BELOW", 0)  # as in a large store
    together = [
        make_memory(identity.project, f"alpha bravo charlie entry {i} " + "pad " * (i % 7))
        for i in range(rows)
    ]
    words = ("alpha", "bravo", "charlie")
    filler = [
        make_memory(identity.project, f"unrelated filler line {words[i % 3]} {i}")
        for i in range(4 * rows)
    ]  # each word common: in more memories than the budget
    _store_all(
        store, *(m for i, one in enumerate(together) for m in (one, *filler[4 * i : 4 * i + 4]))
    )
    searched = _searches(store, monkeypatch)
    hits = recall(store, identity, "alpha bravo charlie", limit=recall_module.POOL)
    strict = [sql for sql, m in searched if m == '"alpha" AND "bravo" AND "charlie"']
    assert strict == [recall_module.ANY_MATCHES_SQL] + (
        [] if rows < 100 else [recall_module.MATCHES_SQL]
    )
    monkeypatch.setattr(rungs, "expected", lambda *_: None)
    unestimated = recall(store, identity, "alpha bravo charlie", limit=recall_module.POOL)
    assert [h.memory.id for h in hits] == [h.memory.id for h in unestimated]
    assert len(hits) == recall_module.POOL


def test_a_rung_past_the_cap_is_weighed_in_the_newest_window_first(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """100 matches of a strict rung, past the cap (40) but within the budget,
    in a store wider than the window (20): the rung is probed, then weighed
    only within the newest 20 memories, as a broad rung is. The one short
    memory written first, which bm25 would weigh best of all, lies below the
    window and is not read; the hits are the newest window's."""
    monkeypatch.setattr(rungs, "WINDOW", 20)
    best = make_memory(identity.project, "Alpha bravo")
    padding = " ".join(f"note{i}" for i in range(40))
    later = [make_memory(identity.project, f"alpha bravo {padding} entry {i}") for i in range(99)]
    _store_all(store, best, *later)
    searched = _searches(store, monkeypatch)
    floors = _floors_used(store, monkeypatch)
    hits = recall(store, identity, "alpha bravo", limit=5)
    strict = [sql for sql, m in searched if m == '"alpha" AND "bravo"']
    assert strict == [recall_module.ANY_MATCHES_SQL, recall_module.SCORED_WINDOW_SQL]
    assert floors == [80]
    assert len(hits) == 5 and {h.memory.id for h in hits} <= {m.id for m in later[-20:]}
