"""Bulk writes decide every memory exactly as the one write path does, and keep
the FTS index, the audit chain and the claims consistent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import AGENT, PERSON, make_memory
from reliability_support import counts, fts_consistent, raw
from tree_support import sentence, tune, word

from tree_ring.govern import coordinator
from tree_ring.govern.admission import CONTRADICTS
from tree_ring.harness import guidance
from tree_ring.model.errors import Conflict, Denied, SecretRefused
from tree_ring.model.record import Link, Memory, canonical_json, new_memory_id, now_iso, sha256
from tree_ring.store import audit, rows, schema
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.upkeep import doctor
from tree_ring.write import bulk, correct, pipeline

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def batch(project_id: str, count: int, prefix: str = "Bulk") -> list[Memory]:
    return [
        make_memory(project_id, f"{prefix} fact {n} about widget{n}", operation_id=f"{prefix}-{n}")
        for n in range(count)
    ]


@pytest.mark.parametrize("admit", [False, True])
def test_many_rows_are_indexed_audited_and_claimed(
    store: Store, project_id: str, admit: bool
) -> None:
    memories = batch(project_id, 25)
    results = bulk.insert_many(store, memories, PERSON, action="import", admit=admit, batch=10)
    assert [r.id for r in results] == [m.id for m in memories]
    assert all(r.created for r in results)
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)
        assert audit.verify(Db(conn, Path())).ok
        targets = [r[0] for r in conn.execute("SELECT target FROM audit_log ORDER BY seq")]
        assert targets == [m.id for m in memories]
        assert conn.execute("SELECT count(*) FROM operation_claims").fetchone()[0] == 25
        triggers = {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")
        }
        assert set(schema.INDEX_TRIGGERS) <= triggers
    assert doctor.diagnose(store.root).ok
    # Later single writes are indexed by the restored trigger.
    pipeline.store_memory(store, make_memory(project_id, "After the bulk write"), PERSON)
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)


def test_outcomes_match_the_single_write_path(
    store: Store, project_id: str, tmp_path: Path
) -> None:
    """Retries, agent heartwood and sensitivity come out as `store_memory` decides them."""
    first = make_memory(project_id, "Retried fact about caches", operation_id="same")
    retry = first.replace(id=first.id.replace("mem_", "mem_x"))
    heartwood = make_memory(project_id, "Agent heartwood rule", ring="heartwood")
    memories = [first, retry, heartwood]
    results = bulk.insert_many(store, memories, AGENT)
    assert results[1].id == results[0].id and results[1].created is False
    assert results[2].trust == "pending"
    assert counts(store.root)["memories"] == 2


def test_a_replacement_of_a_memory_earlier_in_the_batch_is_judged_as_alone(
    store: Store, twin: Store, project_id: str
) -> None:
    """Governance reads what a memory replaces, even when the batch wrote it."""
    rule = make_memory(project_id, "Releases are cut on Tuesdays", ring="heartwood")
    change = make_memory(project_id, "Releases are cut on Thursdays", supersedes=(rule.id,))
    batched = bulk.insert_many(store, [rule, change], AGENT)
    single = [pipeline.store_memory(twin, memory, AGENT) for memory in (rule, change)]
    assert batched == single
    assert batched[1].trust == "pending" and rule.id in (batched[1].review_reason or "")


def test_a_refused_memory_fails_its_batch_and_writes_nothing_of_it(
    store: Store, project_id: str
) -> None:
    good = batch(project_id, 6)
    secret = make_memory(project_id, f"The token is {TOKEN}")
    before = counts(store.root)
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, [*good[:3], secret, *good[3:]], PERSON, batch=100)
    assert caught.value.index == 3 and isinstance(caught.value.error, SecretRefused)
    assert counts(store.root) == before

    forgotten = pipeline.store_memory(store, make_memory(project_id, "Forgotten fact"), PERSON)
    correct.forget(store, forgotten.id, mode="delete", reason="wrong", actor=PERSON)
    before = counts(store.root)
    again = make_memory(project_id, "Forgotten fact")
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, [*good, again], PERSON, action="import", admit=False)
    assert caught.value.index == 6 and isinstance(caught.value.error, Conflict)
    assert counts(store.root) == before
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
        assert {"memories_fts_insert", "memories_claim_fts_insert"} <= names


def test_earlier_batches_stay_when_a_later_one_fails(store: Store, project_id: str) -> None:
    memories = batch(project_id, 10)
    memories[7] = make_memory(project_id, "  ")
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, memories, PERSON, batch=5)
    assert caught.value.index == 7
    assert counts(store.root)["memories"] == 5


def test_batch_size_must_be_positive(store: Store) -> None:
    with pytest.raises(bulk.UsageError):
        bulk.insert_many(store, [], PERSON, batch=0)


# ------------------------------------------------- the batch path is the single path


@pytest.fixture
def twin(tmp_path: Path) -> Iterator[Store]:
    """A second project's store, for the same memories written the other way."""
    root = tmp_path / "twin"
    root.mkdir()
    guidance.init_project(root)
    with Store.open(root) as opened:
        yield opened


def _same_start(
    stores: tuple[Store, Store], project_id: str, settings: dict[str, Any]
) -> tuple[list[Memory], list[int]]:
    """Both stores tuned alike and holding the same earlier memories, one of them
    forgotten; returns those memories and each store's last audit seq."""
    stored = [
        make_memory(project_id, f"Stored earlier {word(900 + i)}", operation_id=f"s-{i}")
        for i in range(3)
    ]
    forgotten = make_memory(project_id, sentence(44))
    for target in stores:
        tune(target, **settings)
        for memory in [*stored, forgotten]:
            pipeline.store_memory(target, memory, PERSON)
        correct.forget(target, forgotten.id, mode="delete", reason="wrong", actor=PERSON)
    return stored, [
        int(s.conn.execute("SELECT max(seq) FROM audit_log").fetchone()[0]) for s in stores
    ]


def _corpus(project_id: str, stored: list[Memory]) -> list[Memory]:
    """Memories that take every branch of the write path, in an order where
    later ones depend on earlier ones (retries, contradiction links)."""
    made = [
        make_memory(
            project_id,
            sentence(i),
            operation_id=f"op-{i}" if i % 3 else None,
            salience=round(0.1 + (i * 37 % 90) / 100, 2),
            tags=(word(i), "bulk") if i % 4 == 0 else (),
        )
        for i in range(30)
    ]
    made[5] = made[5].replace(links=(Link(CONTRADICTS, made[2].id),))
    # A link to a memory the batch writes later: no back link, either way.
    made[6] = made[6].replace(links=(Link(CONTRADICTS, made[20].id),))
    made[7] = made[7].replace(links=(Link(CONTRADICTS, stored[0].id),))
    made[8] = made[8].replace(supersedes=(stored[1].id,), details="Details: x")
    extra = [
        # Exact retries: of a memory earlier in the batch, and of a stored one.
        made[4].replace(id=new_memory_id()),
        stored[2].replace(id=new_memory_id()),
        # Not tree leaves: private, pending, an agent's partition, a consolidation.
        make_memory(project_id, sentence(40), sensitivity="private"),
        make_memory(project_id, sentence(41), trust="pending", review_reason="check it"),
        make_memory(project_id, sentence(42), scope="agent", agent_profile="codex"),
        make_memory(project_id, sentence(43), source_type="consolidation"),
        # A row that arrives rejected (forgotten content would be refused whatever
        # its trust: tests/write/test_tombstones.py).
        make_memory(project_id, sentence(45), trust="rejected", operation_id="op-r"),
    ]
    return made[:15] + extra + made[15:]


def _snapshot(store: Store, skip_audit: int) -> dict[str, list[tuple[object, ...]]]:
    """Every table the write path touches, times that differ between runs left out."""
    columns = ", ".join(c for c in rows.COLUMNS if c != "updated_at")
    queries = {
        # A contradiction's back link stamps its target's updated_at with the clock.
        "memories": f"SELECT rowid, {columns}, updated_at = created_at FROM memories"
        " ORDER BY rowid",
        "fts_docsize": "SELECT * FROM memory_fts_docsize ORDER BY id",
        "claims": "SELECT * FROM operation_claims ORDER BY claim",
        "audit": "SELECT actor, origin, session, action, target, detail FROM audit_log"
        f" WHERE seq > {skip_audit} ORDER BY seq",
        "trees": "SELECT id, kind, scope, root_id, max_level, status FROM tree_trees ORDER BY id",
        "nodes": "SELECT id, tree_id, level, parent_id, child_ids, content, token_count,"
        " entities, topics, time_range_start, time_range_end, score, leaf_count, stale"
        " FROM tree_nodes ORDER BY id",
        "buffers": "SELECT tree_id, level, item_ids, item_count, token_sum,"
        " oldest_at IS NULL FROM tree_buffers ORDER BY tree_id, level",
        "leaves": "SELECT seq, tree_id, memory_id, token_count, parent_id FROM tree_leaves"
        " ORDER BY seq",
        "policy": "SELECT actor, origin, action, target_hash, decision FROM policy_audit"
        " ORDER BY seq",
    }
    found = {name: [tuple(r) for r in store.conn.execute(sql)] for name, sql in queries.items()}
    words = {
        w
        for (summary,) in store.conn.execute("SELECT summary FROM memories")
        for w in summary.split()
    }
    found["fts_matches"] = [
        (
            w,
            *sorted(
                r[0]
                for r in store.conn.execute(
                    "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?", (f'"{w}"',)
                )
            ),
        )
        for w in sorted(words)
    ]
    return found


TREES = {
    "seal-and-cascade": {"input_token_budget": 24, "summary_fanout": 2},
    # Many sealed nodes wait at the top level: the root is the newest of them.
    "wide": {"input_token_budget": 24, "summary_fanout": 50},
    "time-flush": {"input_token_budget": 1_000, "summary_fanout": 3, "flush_age_secs": 0},
    "deferred": {"input_token_budget": 24, "summary_fanout": 2, "deferred": True},
}


@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize(("action", "admit", "size"), [("create", True, 7), ("create", False, 500)])
def test_bulk_writes_exactly_what_one_at_a_time_writes(
    store: Store, twin: Store, project_id: str, tree: str, action: str, admit: bool, size: int
) -> None:
    stored, skip = _same_start((store, twin), project_id, TREES[tree])
    memories = _corpus(project_id, stored)

    bulk_results = bulk.insert_many(store, memories, PERSON, action=action, admit=admit, batch=size)
    single_results = [pipeline.store_memory(twin, memory, PERSON) for memory in memories]

    assert bulk_results == single_results
    assert [r.created for r in bulk_results].count(False) == 2
    assert bulk_results[15].id == memories[4].id and bulk_results[16].id == stored[2].id
    assert bulk_results[21].created and bulk_results[21].trust == "rejected"
    bulk_tables, single_tables = _snapshot(store, skip[0]), _snapshot(twin, skip[1])
    assert bulk_tables.keys() == single_tables.keys()
    for name in bulk_tables:
        assert bulk_tables[name] == single_tables[name], name
    # The batch really took the branches compared above.
    assert len(bulk_tables["nodes"]) >= (0 if tree == "deferred" else 3)
    links = dict(store.conn.execute("SELECT id, links FROM memories"))
    assert memories[5].id in links[memories[2].id] and memories[7].id in links[stored[0].id]
    assert memories[6].id not in links[memories[20].id]
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn) and audit.verify(Db(conn, Path())).ok


def test_import_writes_what_one_at_a_time_import_writes(
    store: Store, twin: Store, project_id: str
) -> None:
    """The trusted restore (no governance, authorized per batch) against the same
    memories written one at a time by the single path with the same action."""
    stored, skip = _same_start((store, twin), project_id, TREES["seal-and-cascade"])
    memories = _corpus(project_id, stored)
    bulk_results = bulk.insert_many(store, memories, PERSON, action="import", admit=False, batch=9)
    single_results: list[pipeline.WriteResult] = []
    for memory in memories:
        with twin.write() as conn:
            single_results.append(
                pipeline.insert_prepared(
                    conn, pipeline.prepare(memory), PERSON, action="import", admit=False
                )
            )
    assert bulk_results == single_results
    bulk_tables, single_tables = _snapshot(store, skip[0]), _snapshot(twin, skip[1])
    for name in bulk_tables:
        if name != "policy":  # a bulk import is authorized once per batch
            assert bulk_tables[name] == single_tables[name], name
    imports = [r for r in bulk_tables["policy"] if r[2] == "import"]
    assert len(imports) == 5 and all(r[4] == "allow" for r in imports)


def _refused(store: Store, memories: list[Memory], batch: int = 100) -> bulk.BatchError:
    with pytest.raises(bulk.BatchError) as caught:
        bulk.insert_many(store, memories, PERSON, action="import", admit=False, batch=batch)
    return caught.value


def _alone(store: Store, memory: Memory) -> str:
    """What the single write path says about the same memory."""
    with pytest.raises(Conflict) as caught:
        pipeline.store_memory(store, memory, PERSON)
    return str(caught.value)


def test_each_refusal_names_its_memory_and_writes_nothing_of_the_batch(
    store: Store, project_id: str
) -> None:
    kept = pipeline.store_memory(store, make_memory(project_id, "Kept fact"), PERSON)
    gone = pipeline.store_memory(store, make_memory(project_id, "Forgotten fact"), PERSON)
    correct.forget(store, gone.id, mode="delete", reason="wrong", actor=PERSON)
    hidden = pipeline.store_memory(store, make_memory(project_id, "Redacted fact"), PERSON)
    correct.forget(store, hidden.id, mode="redact", reason="private", actor=PERSON)
    lost = new_memory_id()
    with store.write() as conn:  # a redacted row removed by hand leaves its id tombstone
        conn.execute(
            "INSERT INTO redaction_tombstones(memory_id, created_at) VALUES (?, ?)",
            (lost, now_iso()),
        )
    good = batch(project_id, 8, prefix="Fresh")
    twin = make_memory(project_id, "Twin fact")
    cases = [
        (make_memory(project_id, "Forgotten fact"), "was forgotten on"),
        (make_memory(project_id, "Another fact", id=kept.id), "already exists"),
        (make_memory(project_id, "Yet another fact", id=hidden.id), "already exists"),
        (make_memory(project_id, "A new fact", id=lost), "was redacted and cannot be reused"),
        (make_memory(project_id, "Same op, new words", operation_id="Fresh-1"), "already used"),
    ]
    for bad, message in cases:
        before = counts(store.root)
        refused = _refused(store, [*good[:5], bad, *good[5:]])
        assert refused.index == 5 and isinstance(refused.error, Conflict)
        assert message in str(refused.error)
        assert str(refused) == f"memory 5: {refused.error}"
        assert counts(store.root) == before
        if message != "already used":
            assert str(refused.error) == _alone(store, bad)
    # A duplicate id inside one batch, and its claim reused with new words.
    for dup in (twin.replace(summary="Twin fact, changed"),):
        refused = _refused(store, [twin, *good[:3], dup])
        assert refused.index == 4 and "already exists" in str(refused.error)
    changed = make_memory(project_id, "Other words", operation_id="Fresh-2")
    refused = _refused(store, [*good, changed])
    assert refused.index == 8 and "already used for a different memory" in str(refused.error)
    # Earlier batches stay; the refused one leaves nothing behind.
    refused = _refused(store, [*good, twin, twin], batch=9)
    assert refused.index == 9
    assert {m.id for m in good} | {twin.id} <= set(
        r[0] for r in store.conn.execute("SELECT id FROM memories")
    )
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn) and audit.verify(Db(conn, Path())).ok


def test_a_redacted_claim_refuses_its_operation_id(store: Store, project_id: str) -> None:
    first = pipeline.store_memory(
        store, make_memory(project_id, "Claimed fact", operation_id="k"), PERSON
    )
    correct.forget(store, first.id, mode="redact", reason="private", actor=PERSON)
    refused = _refused(store, [make_memory(project_id, "New words", operation_id="k")])
    assert refused.index == 0 and "belonged to a memory that was redacted" in str(refused.error)


def test_retries_return_the_first_id_across_batches_and_calls(
    store: Store, project_id: str
) -> None:
    memories = batch(project_id, 6)
    first = bulk.insert_many(store, memories, PERSON, action="import", admit=False, batch=4)
    again = [m.replace(id=new_memory_id()) for m in memories]
    retried = bulk.insert_many(store, again + again, PERSON, action="import", admit=False, batch=5)
    assert [r.id for r in retried] == [r.id for r in first] * 2
    assert not any(r.created for r in retried)
    assert counts(store.root)["memories"] == 6


def test_a_bulk_import_needs_the_capability_in_coordinated_mode(
    store: Store, project_id: str
) -> None:
    minted = coordinator.enable(store, "lead", PERSON)
    before = counts(store.root)
    with pytest.raises(Denied):
        bulk.insert_many(store, batch(project_id, 3), PERSON, action="import", admit=False)
    assert counts(store.root) == before
    denied = store.conn.execute("SELECT count(*) FROM policy_audit WHERE decision = 'deny'")
    assert denied.fetchone()[0] == 1
    holder = PERSON.replace(capability=minted.token)
    written = bulk.insert_many(store, batch(project_id, 3), holder, action="import", admit=False)
    assert all(r.created for r in written)


HOSTILE = ("plain", 'quo"te \\ back', "ünïcödé — ✓ 🌲", "nb\u00a0sp", "</script>", "")


def _payload_hash_as_canonical_json(memory: Memory) -> str:
    """The payload hash as the write path first defined it."""
    intent: dict[str, object] = {
        key: getattr(memory, key)
        for key in (
            *("scope", "ring", "event_type", "summary", "details", "source_type"),
            *("source_ref", "source_quote", "salience", "confidence", "retention"),
            *("expires_at", "session_id"),
        )
    }
    intent |= {"tags": list(memory.tags), "supersedes": list(memory.supersedes)}
    return sha256(canonical_json(intent))


def test_hashes_keep_the_canonical_json_of_earlier_stores(store: Store, project_id: str) -> None:
    """Claims and the audit chain of stores written before stay valid: the
    hashes are sha256 over `canonical_json` of the same values, byte for byte."""
    for n, text in enumerate(HOSTILE):
        memory = make_memory(
            project_id,
            f"Hostile {n} {text}".strip(),
            details=f"{text}\n\twith a tab",
            tags=(text or "t", "ü"),
            supersedes=(new_memory_id(),),
            salience=0.1 + n / 10,
            confidence=1.0 if n % 2 else 0.0,
            operation_id=f"op {text}" if n % 3 else None,
            workflow_id=text or None,
            session_id=text or None,
            expires_at="2999-01-01T00:00:00.000000Z" if n % 2 else None,
        )
        assert pipeline.payload_hash(memory) == _payload_hash_as_canonical_json(memory)
        if memory.operation_id is not None:
            parts = [project_id, memory.workflow_id or "", "", memory.operation_id]
            assert pipeline.claim_key(memory) == sha256(canonical_json(parts))
        actor = AGENT if n % 2 else PERSON  # with a session, and without
        bulk.insert_many(store, [memory], actor, action="import", admit=False)
    prev = ""
    for row in store.conn.execute("SELECT * FROM audit_log ORDER BY seq"):
        entry = {k: row[k] for k in ("at", "actor", "origin", "session", "action", "target")}
        assert row["detail"] == canonical_json(json.loads(row["detail"]))
        entry |= {"detail": row["detail"], "prev_hash": prev}
        assert row["hash"] == sha256(canonical_json(entry))
        prev = row["hash"]
    # Numbers the encoder writes its own way (an int, a bool, not finite) stay its way.
    for odd in (1, True, float("nan"), float("inf")):
        memory = make_memory(project_id, "Odd number").replace(confidence=odd)
        assert pipeline.payload_hash(memory) == _payload_hash_as_canonical_json(memory)
    stored = store.conn.execute("SELECT tags FROM memories ORDER BY rowid DESC").fetchone()[0]
    assert stored == json.dumps(["t", "ü"], ensure_ascii=False)


def test_columns_left_out_when_null_are_exactly_those_that_default_to_null(store: Store) -> None:
    info = store.conn.execute("PRAGMA table_info(memories)").fetchall()
    defaults_to_null = {r["name"] for r in info if not r["notnull"] and r["dflt_value"] is None}
    assert set(rows.NULLABLE) == defaults_to_null - {"id"} and "id" not in rows.NULLABLE


def test_the_bulk_page_cache_is_given_back(store: Store, project_id: str) -> None:
    def cache() -> int:
        return int(store.conn.execute("PRAGMA cache_size").fetchone()[0])

    before = cache()
    bulk.insert_many(store, batch(project_id, 3), PERSON, action="import", admit=False)
    assert cache() == before
    assert before == -2000  # SQLite's default: 2,000 KiB
    with bulk.page_cache(store.db, 4096):
        assert cache() == -4096
        with bulk.page_cache(store.db, 3000):  # never shrinks a larger cache
            assert cache() == -4096
    with bulk.page_cache(store.db, 1000):
        assert cache() == before
    assert cache() == before
