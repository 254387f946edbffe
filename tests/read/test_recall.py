"""Recall: safe query building, the ranking's pinned orders, explainable scores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers import PERSON, CliRunner, make_memory
from recall_support import match_queries

from tree_ring.model.identity import Identity
from tree_ring.model.record import format_time
from tree_ring.read import ranking
from tree_ring.read.recall import candidate_cap, recall, terms, word_forms
from tree_ring.store.db import Store
from tree_ring.write import correct, pipeline


def test_terms_drop_filler_and_keep_order() -> None:
    assert terms("What did we decide about the cache TTL?") == ["decide", "cache", "ttl"]
    assert terms("") == []
    assert terms("the and of") == []


def test_every_term_is_quoted_and_never_raw() -> None:
    queries = match_queries(terms('deploy* NEAR(x y) "quoted" summary:secret OR -not'))
    for query in queries:
        bare = query.replace("(", " ").replace(")", " ").replace("*", " ")
        for token in bare.replace(" AND ", " ").replace(" OR ", " ").split():
            assert token.startswith('"') and token.endswith('"'), query
    assert (
        queries[0]
        == '"deploy" AND "near" AND "x" AND "y" AND "quoted" AND "summary" AND "secret" AND "not"'
    )


def test_variants_drop_ring_intent_words_then_or() -> None:
    assert match_queries(["deploy", "failure"]) == [
        '"deploy" AND "failure"',
        '"deploy"',
        '("deploy" OR "deployer" OR "deployment" OR "deployation") AND '
        '("failure" OR "failureer" OR "failurement" OR "failureation")',
        '("deploy" OR "deployer" OR "deployment" OR "deployation") OR '
        '("failure" OR "failureer" OR "failurement" OR "failureation")',
    ]
    assert match_queries(["tab"]) == ['"tab"']


def test_candidate_cap_like_the_original() -> None:
    assert candidate_cap(1) == 256
    assert candidate_cap(8) == 1024
    assert candidate_cap(100) == 2048


@pytest.mark.parametrize(
    "query",
    ['"', "NEAR(", "a OR", "*", "summary:x", "(((", "^start", "🙂 emoji", "שלום עולם", "AND AND"],
)
def test_hostile_queries_never_raise(store: Store, identity: Identity, query: str) -> None:
    pipeline.store_memory(store, make_memory(identity.project, "an ordinary memory"), PERSON)
    assert isinstance(recall(store, identity, query), list)


def test_or_fallback_finds_partial_matches(store: Store, identity: Identity) -> None:
    memory = make_memory(identity.project, "The cache TTL is five minutes")
    pipeline.store_memory(store, memory, PERSON)
    hits = recall(store, identity, "cache eviction policy")
    assert [h.memory.id for h in hits] == [memory.id]


def test_stemming_matches_word_forms(store: Store, identity: Identity) -> None:
    # Porter stems "deploy" to "deploi" but "deployments" to "deploy": only
    # the widened rung brings them together, both ways.
    memory = make_memory(identity.project, "Deployments are frozen on Fridays")
    pipeline.store_memory(store, memory, PERSON)
    assert [h.memory.id for h in recall(store, identity, "deploy")] == [memory.id]
    other = make_memory(identity.project, "Never deploy on a Friday")
    pipeline.store_memory(store, other, PERSON)
    assert {h.memory.id for h in recall(store, identity, "deployments")} == {memory.id, other.id}


def test_word_forms_are_exact_terms_never_prefixes() -> None:
    assert word_forms("deploy") == ["deploy", "deployer", "deployment", "deployation"]
    assert word_forms("deployments")[:2] == ["deployments", "deploy"]
    assert word_forms("tabs") == ["tabs"]  # under five letters: left alone
    assert not any("*" in q for q in match_queries(["deployments", "configuration"]))


def test_scar_outranks_a_note_for_a_failure_query(store: Store, identity: Identity) -> None:
    note = make_memory(identity.project, "Deploy pipeline uses blue green rollout", salience=0.6)
    scar = make_memory(
        identity.project, "Deploy broke when migrations ran first", ring="scar", salience=0.6
    )
    for m in (note, scar):
        pipeline.store_memory(store, m, PERSON)
    hits = recall(store, identity, "deploy failure")
    assert [h.memory.id for h in hits] == [scar.id, note.id]
    assert hits[0].parts["ring_boost"] == ranking.RING_BOOST
    plain = recall(store, identity, "deploy pipeline")
    assert plain[0].memory.id == note.id


def test_superseded_heartwood_never_appears(store: Store, identity: Identity) -> None:
    old = make_memory(
        identity.project,
        "Store memories in PostgreSQL",
        ring="heartwood",
        salience=1.0,
        confidence=1.0,
    )
    new = make_memory(identity.project, "Store memories in SQLite", salience=0.3, confidence=0.3)
    pipeline.store_memory(store, old, PERSON)
    pipeline.store_memory(store, new, PERSON)
    correct.supersede(store, old.id, new.id, reason="moved to SQLite", actor=PERSON)
    for query in ("store memories", "postgresql", "heartwood decision store"):
        assert old.id not in {h.memory.id for h in recall(store, identity, query, limit=50)}
    assert [h.memory.id for h in recall(store, identity, "store memories")] == [new.id]


def test_fresher_duplicate_outranks_a_stale_one(store: Store, identity: Identity) -> None:
    stale_time = format_time(datetime.now(UTC) - timedelta(days=120))
    stale = make_memory(identity.project, "Run the linter before pushing", created_at=stale_time)
    fresh = make_memory(identity.project, "Run the linter before pushing!")
    with store.write() as conn:
        pipeline.insert_prepared(conn, stale, PERSON)
        pipeline.insert_prepared(conn, fresh, PERSON)
    hits = recall(store, identity, "linter pushing")
    assert [h.memory.id for h in hits] == [fresh.id, stale.id]
    assert hits[0].parts["recency"] > hits[1].parts["recency"]


def test_limit_is_respected(store: Store, identity: Identity) -> None:
    with store.write() as conn:
        for i in range(30):
            pipeline.insert_prepared(conn, make_memory(identity.project, f"cache fact {i}"), PERSON)
    assert len(recall(store, identity, "cache", limit=5)) == 5


def test_json_explains_each_score(run_cli: CliRunner) -> None:
    run_cli("remember", "Cache invalidation uses generation counters", "--salience", "0.9")
    out = run_cli("--json", "recall", "cache invalidation").json()
    (result,) = out["items"]
    parts = result["score_parts"]
    assert set(parts) == {*ranking.WEIGHTS, "ring_boost"}
    assert result["score"] == pytest.approx(sum(parts.values()), abs=1e-5)
    assert parts["salience"] == pytest.approx(ranking.WEIGHTS["salience"] * 0.9)


def test_score_is_pure_and_monotone() -> None:
    base = ranking.Candidate(-1.0, 1, 2, 0.5, 0.5, 10.0, "manual", "cambium")
    first = ranking.score(base, -1.0, set())
    assert ranking.score(base, -1.0, set()) == first
    higher = ranking.Candidate(-1.0, 1, 2, 0.9, 0.5, 10.0, "manual", "cambium")
    assert ranking.score(higher, -1.0, set()).total > first.total
    older = ranking.Candidate(-1.0, 1, 2, 0.5, 0.5, 100.0, "manual", "cambium")
    assert ranking.score(older, -1.0, set()).total < first.total


def test_recall_defaults_to_the_current_project(run_cli: CliRunner) -> None:
    run_cli("remember", "Cache keys include the schema version")
    assert "Cache keys" in run_cli("recall", "cache keys").out
    other = run_cli("recall", "cache keys", "--project", "another-project")
    assert other.out.strip() == "no memories match"
