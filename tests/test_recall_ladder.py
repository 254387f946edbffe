"""Recall's query ladder: absent words, any-k-of-n rungs, the budgeted OR."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring import recall as recall_module
from tree_ring import writes
from tree_ring.identity import Identity
from tree_ring.recall import match_queries, recall
from tree_ring.record import Memory
from tree_ring.store import Store


def _store_all(store: Store, *memories: Memory) -> None:
    with store.write() as conn:
        for memory in memories:
            writes.insert_prepared(conn, memory, PERSON)


def test_absent_words_leave_the_ands() -> None:
    counts = {"billing": 3, "worker": 9, "kubernetes": 0}
    ladder = match_queries(["billing", "worker", "kubernetes"], counts)
    assert ladder[0] == '"billing" AND "worker"'
    assert not any(q.count("AND") and '"kubernetes" AND' in q for q in ladder[:-1])


def test_any_k_of_n_rungs_come_before_or() -> None:
    ladder = match_queries(["retry", "limit", "billing", "worker"])
    k3 = [q for q in ladder if q.startswith("(") and q.count("(") == 4 and "*" not in q]
    assert k3 == [
        '("retry" AND "limit" AND "billing") OR ("retry" AND "limit" AND "worker") OR '
        '("retry" AND "billing" AND "worker") OR ("limit" AND "billing" AND "worker")'
    ]
    pairs = ladder[-2]
    assert pairs.count(") OR (") == 5  # C(4, 2) = 6 clauses
    assert " AND " not in ladder[-1].replace('" OR "', "")  # the OR rung is last


def test_the_or_rung_keeps_the_rarest_occurring_word() -> None:
    budget = recall_module.OR_BUDGET
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
