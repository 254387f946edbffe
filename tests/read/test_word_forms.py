"""Recall widens a word only to the forms that can find more: a form the
index stems as it stems the word, or one no memory holds, is left out."""

from __future__ import annotations

from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.read.forms import EXISTS_SQL, indexed_forms, word_forms
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def _store_all(store: Store, *summaries: str, project: str) -> list[str]:
    memories = [make_memory(project, summary) for summary in summaries]
    with store.write() as conn:
        for memory in memories:
            pipeline.insert_prepared(conn, memory, PERSON)
    return [m.id for m in memories]


def test_only_held_forms_with_a_stem_of_their_own_are_kept(
    store: Store, identity: Identity
) -> None:
    _store_all(
        store,
        "The deployment of the billing worker failed",
        "A limitation of the cache: entries expire hourly",  # limitation stems to limit
        "The limiter drops requests past 500 per second",  # so does limiter
        project="another-project",  # forms are looked up in the index, whoever holds them
    )
    forms = indexed_forms(store, ["deploy", "limit", "cache", "db"])
    # "deployer", "deployment" and "deployation" stem alike: one of them
    # finds every memory that holds any (the index holds "deployment").
    assert forms == {
        "deploy": ("deploy", "deployer"),
        "limit": ("limit",),
        "cache": ("cache",),
        "db": ("db",),
    }
    assert word_forms("limit") == ["limit", "limiter", "limitment", "limitation"]


def test_no_form_held_costs_one_search(store: Store, identity: Identity) -> None:
    _store_all(store, "The billing worker retries five times", project=identity.project)
    searched: list[str] = []
    query = store.query

    def counting(sql: str, params: object = ()) -> list[object]:
        searched.append(sql)
        return query(sql, params)  # type: ignore[arg-type]

    store.query = counting  # type: ignore[method-assign]
    forms = indexed_forms(store, ["billing", "worker", "retries"])
    assert forms == {"billing": ("billing",), "worker": ("worker",), "retries": ("retries",)}
    assert searched == [EXISTS_SQL]


def test_a_widened_word_still_finds_its_other_form(store: Store, identity: Identity) -> None:
    (deployment,) = _store_all(store, "Deployments need two approvals", project=identity.project)
    _store_all(store, "The deploy script lives in ops", project=identity.project)
    hits = recall(store, identity, "deploy approvals")
    assert deployment in [hit.memory.id for hit in hits]


def test_a_word_the_index_splits_or_spells_otherwise_keeps_its_held_forms(
    store: Store, identity: Identity
) -> None:
    """`porter` stems words of ASCII letters only: any other word keeps
    every form the index holds, whatever its stem."""
    _store_all(store, "oom_killed pods restart", "café_ment", project=identity.project)
    forms = indexed_forms(store, ["oom_killed", "cafés"])
    # "oom_kill" is the phrase "oom kill", held by "oom_killed pods": kept,
    # though `porter` would stem the string "oom_kill" as "oom_killed".
    assert forms == {"oom_killed": ("oom_killed", "oom_kill"), "cafés": ("cafés", "café")}
