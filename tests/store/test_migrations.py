"""Migrations, from an empty store and from a store of the first schema.

fixtures/stores/schema-0001.sqlite was built by scripts/build_schema_0001.py
with only `0001_initial` applied. Opened with today's code it must end with
exactly today's tables, columns, indexes and triggers (the same as a store
created today), with its rows, tombstones, claims and audit chain intact,
and recall must find its memories.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
from helpers import PERSON, REPO, make_memory

from tree_ring.govern import contradictions
from tree_ring.harness import guidance
from tree_ring.model import project, vectors
from tree_ring.model.errors import StoreBusy, StoreFault
from tree_ring.model.identity import Identity
from tree_ring.read import brief
from tree_ring.read.recall import Hit, recall
from tree_ring.store import audit, layout, meaning, rows
from tree_ring.store.db import Options, Store
from tree_ring.store.live import View
from tree_ring.tree import nodes
from tree_ring.write import pipeline

FIXTURE = REPO / "fixtures" / "stores" / "schema-0001.sqlite"
FIXTURE_PROJECT = "fixture-app-3f9c2a"
MIGRATIONS = [
    "0001_initial", "0002_policy_audit", "0003_summary_tree", "0004_trust", "0005_count_indexes",
    "0006_claim_index", "0007_ledger_provenance", "0008_refutations", "0009_off_record_index",
    "0010_folded_index", "0011_anchors", "0012_meaning", "0013_meaning_source",
    "0014_meaning_recoded", "0015_ended_leaves", "0016_inbox_imports", "0017_refute_index",
    "0018_meaning_recoded_products", "0019_ledger_kept", "0020_project_owner",
    "0021_tombstone_ids", "0022_identifier_words", "0023_identifier_words_any_script",
    "0024_tombstones_moved",
]  # fmt: skip

# Every table's columns, in order (PRAGMA table_info), after every migration.
TABLES: dict[str, tuple[str, ...]] = {
    "anchors": (
        "memory_id", "path", "blob", "size", "mtime_ns", "git_commit", "anchored_at",
    ),
    "claim_fts": ("summary",),
    "memory_meaning": ("rowid", "code"),
    "meaning_source": ("id", "vectors"),
    "claim_fts_config": ("k", "v"),
    "claim_fts_data": ("id", "block"),
    "claim_fts_idx": ("segid", "term", "pgno"),
    "audit_log": (
        "seq", "at", "actor", "origin", "session", "action", "target", "detail", "prev_hash",
        "hash",
    ),
    "content_tombstones": (
        "project", "content_hash", "kind", "reason", "memory_id", "actor", "created_at",
    ),
    "forget_requests": (
        "id", "project", "memory_id", "mode", "reason", "actor", "origin", "session",
        "created_at", "decision", "decided_by", "decided_at", "decision_reason",
    ),
    "memories": (
        "id", "created_at", "updated_at", "project", "agent_profile", "workflow_id",
        "session_id", "operation_id", "scope", "ring", "event_type", "summary", "details",
        "source_type", "source_ref", "source_quote", "tags", "salience", "confidence",
        "sensitivity", "retention", "expires_at", "supersedes", "superseded_by", "links",
        "trust", "review_reason", "reviewed_at", "reviewed_by", "valid_from", "valid_to",
        "retired_at", "redacted_at", "origin", "origin_session", "content_hash",
    ),
    "ledger_kept": ("memory_id", "project", "plain", "line"),
    "tombstone_ids": ("project", "memory_id", "content_hash", "kind", "created_at"),
    "ledger_provenance": (
        "subject", "project", "line_hash", "source", "git_commit", "author", "ref", "created_at",
    ),
    "memory_fts": ("summary", "details", "tags"),
    "memory_fts_config": ("k", "v"),
    "memory_fts_data": ("id", "block"),
    "memory_fts_docsize": ("id", "sz"),
    "memory_fts_idx": ("segid", "term", "pgno"),
    "operation_claims": ("claim", "memory_id", "payload_hash", "created_at"),
    "policy_audit": (
        "seq", "at", "mode", "actor", "origin", "session", "action", "target_hash", "decision",
        "capability", "reason",
    ),
    "redaction_tombstones": ("memory_id", "created_at"),
    "refutations": (
        "memory_id", "project", "actor", "origin", "session", "reason", "was_trust", "created_at",
    ),
    "schema_migrations": ("name", "applied_at"),
    "settings": ("key", "value"),
    "sqlite_sequence": ("name", "seq"),
    "tree_buffers": ("tree_id", "level", "item_ids", "item_count", "token_sum", "oldest_at"),
    "tree_leaves": ("seq", "tree_id", "memory_id", "token_count", "added_at", "parent_id"),
    "tree_nodes": (
        "id", "tree_id", "level", "parent_id", "child_ids", "content", "token_count",
        "entities", "topics", "time_range_start", "time_range_end", "score", "leaf_count",
        "sealed_at", "stale", "resealed_at",
    ),
    "tree_trees": (
        "id", "kind", "scope", "root_id", "max_level", "status", "created_at",
        "last_sealed_at",
    ),
}  # fmt: skip

# Every index: (table, its key columns, "<expr>" for an expression, unique, partial).
INDEXES: dict[str, tuple[str, tuple[str, ...], bool, bool]] = {
    "audit_readmissions": ("audit_log", ("target",), False, True),
    "audit_refutes": ("audit_log", ("target",), False, True),
    "forget_requests_waiting": ("forget_requests", ("project", "created_at"), False, True),
    "ledger_provenance_line": ("ledger_provenance", ("line_hash",), False, False),
    "memories_brief": (
        "memories", ("project", "<expr>", "salience", "confidence", "created_at"), False, True,
    ),
    "memories_consolidations": ("memories", ("project",), False, True),
    "memories_hash": ("memories", ("project", "content_hash"), False, False),
    "memories_inbox": (
        "memories",
        ("project", "created_at", "id", "origin", "scope", "trust", "sensitivity",
         "retired_at", "redacted_at"),
        False, True,
    ),
    "memories_live": (
        "memories",
        ("project", "ring", "created_at", "id", "trust", "sensitivity", "origin", "scope",
         "agent_profile", "workflow_id", "session_id", "expires_at", "valid_from", "valid_to",
         "salience", "confidence", "retired_at", "redacted_at", "superseded_by"),
        False, True,
    ),
    "memories_off_record": (
        "memories",
        ("project", "ring", "trust", "sensitivity", "redacted_at", "retired_at", "superseded_by",
         "expires_at", "valid_to"),
        False, True,
    ),
    "memories_project_created": ("memories", ("project", "created_at"), False, False),
    "memories_trust": ("memories", ("trust", "created_at"), False, True),
    "memories_waiting": (
        "memories",
        ("project", "created_at", "id", "trust", "sensitivity", "retired_at", "redacted_at"),
        False, True,
    ),
    "sqlite_autoindex_anchors_1": ("anchors", ("memory_id", "path"), True, False),
    "sqlite_autoindex_content_tombstones_1": (
        "content_tombstones", ("project", "content_hash"), True, False,
    ),
    "sqlite_autoindex_forget_requests_1": ("forget_requests", ("id",), True, False),
    "sqlite_autoindex_ledger_kept_1": ("ledger_kept", ("memory_id",), True, False),
    "sqlite_autoindex_ledger_provenance_1": ("ledger_provenance", ("subject",), True, False),
    "sqlite_autoindex_refutations_1": ("refutations", ("memory_id",), True, False),
    "sqlite_autoindex_memories_1": ("memories", ("id",), True, False),
    "sqlite_autoindex_operation_claims_1": ("operation_claims", ("claim",), True, False),
    "sqlite_autoindex_redaction_tombstones_1": (
        "redaction_tombstones", ("memory_id",), True, False,
    ),
    "sqlite_autoindex_schema_migrations_1": ("schema_migrations", ("name",), True, False),
    "sqlite_autoindex_settings_1": ("settings", ("key",), True, False),
    "sqlite_autoindex_tree_buffers_1": ("tree_buffers", ("tree_id", "level"), True, False),
    "sqlite_autoindex_tree_leaves_1": ("tree_leaves", ("tree_id", "memory_id"), True, False),
    "sqlite_autoindex_tree_nodes_1": ("tree_nodes", ("id",), True, False),
    "sqlite_autoindex_tree_trees_1": ("tree_trees", ("id",), True, False),
    "sqlite_autoindex_tree_trees_2": ("tree_trees", ("kind", "scope"), True, False),
    "sqlite_autoindex_tombstone_ids_1": (
        "tombstone_ids", ("project", "memory_id", "content_hash"), True, False,
    ),
    "tree_leaves_memory": ("tree_leaves", ("memory_id",), False, False),
    "tree_leaves_parent": ("tree_leaves", ("parent_id",), False, True),
    "tree_leaves_waiting": ("tree_leaves", ("tree_id", "seq"), False, True),
    "tree_nodes_level": ("tree_nodes", ("tree_id", "level", "sealed_at"), False, False),
    "tree_nodes_parent": ("tree_nodes", ("parent_id",), False, False),
}  # fmt: skip

TRIGGERS = {
    "content_tombstones_moved_delete": "content_tombstones",
    "content_tombstones_moved_insert": "content_tombstones",
    "content_tombstones_moved_update": "content_tombstones",
    "memories_anchors_delete": "memories",
    "memories_anchors_redact": "memories",
    "memories_claim_fts_delete": "memories",
    "memories_claim_fts_insert": "memories",
    "memories_claim_fts_update": "memories",
    "memories_fts_delete": "memories",
    "memories_fts_insert": "memories",
    "memories_fts_update": "memories",
    "memories_ledger_kept_delete": "memories",
    "memories_ledger_kept_redact": "memories",
    "memories_meaning_delete": "memories",
    "memories_meaning_insert": "memories",
    "memories_meaning_update": "memories",
    "policy_audit_append_only_delete": "policy_audit",
    "policy_audit_append_only_update": "policy_audit",
    "tree_nodes_sealed": "tree_nodes",
}

VIEWS = {"memory_text": ("rowid", "summary", "details", "tags")}

TREE_DEFAULTS = {
    "tree.deferred": False,
    "tree.flush_age_secs": 604_800,
    "tree.input_token_budget": 50_000,
    "tree.output_token_budget": 5_000,
    "tree.summary_fanout": 10,
}

# What the fixture holds (scripts/build_schema_0001.py).
FIXTURE_ROWS = {
    "mem_20260301_100000_0a0a0a0a0a01": "Migrations on the primary took the site down",
    "mem_20260301_100100_0a0a0a0a0a02": "Deploys freeze on Fridays",
    "mem_20260301_100200_0a0a0a0a0a03": "The cache lives in Redis",
    "mem_20260302_100000_0a0a0a0a0a04": "The cache lives in SQLite now",
    "mem_20260302_110000_0a0a0a0a0a05": "The linter runs before every commit",
    "mem_20260302_120000_0a0a0a0a0a06": "Vendor every third-party SDK",
}


def schema_of(conn: sqlite3.Connection) -> dict[str, object]:
    """Tables with their columns, indexes with their keys, triggers with their tables."""
    tables = {
        name: tuple(r[1] for r in conn.execute(f'PRAGMA table_info("{name}")'))
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    indexes: dict[str, tuple[str, tuple[str, ...], bool, bool]] = {}
    for name, table in conn.execute(
        "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'"
    ):
        keys = tuple(
            r[2] if r[2] is not None else "<expr>"
            for r in conn.execute(f'PRAGMA index_xinfo("{name}")')
            if r[5]  # key columns only, not the rowid SQLite appends
        )
        [listed] = [r for r in conn.execute(f'PRAGMA index_list("{table}")') if r[1] == name]
        indexes[name] = (table, keys, bool(listed[2]), bool(listed[4]))
    triggers = dict(
        conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    )
    views = {
        name: tuple(r[1] for r in conn.execute(f'PRAGMA table_info("{name}")'))
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'")
    }
    # Where recall's index reads its text: the rows folded (migration 0010).
    [fts_sql] = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchall()
    content = re.search(r"content='(\w+)'", fts_sql[0])
    return {
        "tables": tables,
        "indexes": indexes,
        "triggers": triggers,
        "views": views,
        "memory_fts content": content.group(1) if content else None,
    }


EXPECTED = {
    "tables": TABLES,
    "indexes": INDEXES,
    "triggers": TRIGGERS,
    "views": VIEWS,
    "memory_fts content": "memory_text",
}


@pytest.fixture
def old_root(tmp_path: Path) -> Path:
    """A project whose store is a copy of the first-schema fixture."""
    root = tmp_path / "old"
    folder = root / project.DIR
    folder.mkdir(parents=True)
    (folder / project.PROJECT_FILE).write_text(
        json.dumps({"project_id": FIXTURE_PROJECT, "name": "old", "created_at": "2026-03-01"})
    )
    shutil.copyfile(FIXTURE, project.store_path(root))
    return root


def test_the_fixture_is_a_first_schema_store() -> None:
    conn = sqlite3.connect(f"{FIXTURE.as_uri()}?mode=ro", uri=True)
    try:
        applied = [r[0] for r in conn.execute("SELECT name FROM schema_migrations")]
        assert applied == ["0001_initial"]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "memories" in names and "policy_audit" not in names and "tree_nodes" not in names
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == len(FIXTURE_ROWS)
    finally:
        conn.close()


def test_an_empty_store_has_exactly_todays_schema(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    guidance.init_project(root)
    with Store.open(root) as store:
        assert schema_of(store.conn) == EXPECTED
        names = [r[0] for r in store.conn.execute("SELECT name FROM schema_migrations")]
        assert names == MIGRATIONS
        assert layout.foreign(store.db) == []  # the doctor's `foreign` check holds
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_first_schema_store_migrates_to_exactly_todays_schema(old_root: Path) -> None:
    with Store.open(old_root) as store:
        assert schema_of(store.conn) == EXPECTED
        names = [r[0] for r in store.conn.execute("SELECT name FROM schema_migrations ORDER BY 1")]
        assert names == MIGRATIONS
        assert layout.foreign(store.db) == []
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        # The tree's budgets arrive with the migration that added the tree.
        stored = dict(store.conn.execute("SELECT key, value FROM settings"))
        # And the project it belongs to with the migration that records it,
        # and the tombstones' count (a random start) with the one that keeps it.
        changes = json.loads(stored.pop("tombstones.changes"))
        assert type(changes) is int and 0 <= changes < 2**53
        assert {key: json.loads(value) for key, value in stored.items()} == {
            **TREE_DEFAULTS,
            "project": FIXTURE_PROJECT,
        }
        assert nodes.config(store.db) == nodes.TreeConfig(50_000, 5_000, 10, 604_800, False)


def test_a_first_schema_store_keeps_its_rows_and_they_are_found(old_root: Path) -> None:
    with Store.open(old_root) as store:
        kept = {row["id"]: row["summary"] for row in store.query("SELECT * FROM memories")}
        assert kept == FIXTURE_ROWS
        old = rows.get(store.db, "mem_20260301_100200_0a0a0a0a0a03")
        assert old.superseded_by == "mem_20260302_100000_0a0a0a0a0a04"
        assert rows.get(store.db, "mem_20260302_120000_0a0a0a0a0a06").trust == "pending"
        assert rows.get(store.db, "mem_20260301_100000_0a0a0a0a0a01").tags == ("ops", "database")
        stones = store.query("SELECT memory_id, reason FROM content_tombstones")
        assert [tuple(s) for s in stones] == [
            ("mem_20260301_090000_0a0a0a0a0a00", "it never belonged here")
        ]
        # Each tombstone's memory, as the team ledger's lines name it (0021).
        named = "SELECT project, memory_id, content_hash, kind, created_at FROM "
        assert set(store.query(named + "tombstone_ids")) == set(
            store.query(named + "content_tombstones")
        )
        claims = store.query("SELECT memory_id FROM operation_claims")
        assert [c[0] for c in claims] == ["mem_20260302_110000_0a0a0a0a0a05"]
        check = audit.verify(store.db)
        # One entry per fixture row, and the one migration 0004 writes to anchor
        # the tombstones that were already there.
        assert (check.ok, check.checked) == (True, len(FIXTURE_ROWS) + 1)

        person = Identity(FIXTURE_PROJECT, None, None, None)
        agent = Identity(FIXTURE_PROJECT, "claude-code", "sess-0001", "sess-0001")
        found = [h.memory.id for h in recall(store, person, "migrations primary")]
        assert found == ["mem_20260301_100000_0a0a0a0a0a01"]
        # Only the current claim about the cache, not the superseded one.
        cache = {h.memory.id for h in recall(store, person, "cache lives")}
        assert cache == {"mem_20260302_100000_0a0a0a0a0a04"}
        then = recall(store, person, "cache", view=View(as_of="2026-03-01T12:00:00.000000Z"))
        assert [h.memory.id for h in then] == ["mem_20260301_100200_0a0a0a0a0a03"]
        # The agent's own partition, for that agent only.
        linter = "mem_20260302_110000_0a0a0a0a0a05"
        assert [h.memory.id for h in recall(store, agent, "linter commit")] == [linter]
        assert recall(store, person, "linter commit") == []
        # Pending rows only when asked.
        assert recall(store, person, "vendor sdk") == []
        asked = recall(store, person, "vendor sdk", view=View(include_unreviewed=True))
        assert [(h.memory.id, h.label) for h in asked] == [
            ("mem_20260302_120000_0a0a0a0a0a06", "PENDING")
        ]
        assert brief.build_brief(store, person).ids == (
            "mem_20260301_100000_0a0a0a0a0a01",
            "mem_20260301_100100_0a0a0a0a0a02",
            "mem_20260302_100000_0a0a0a0a0a04",
        )


def test_a_migrated_store_takes_new_writes_and_keeps_the_tree(old_root: Path) -> None:
    with Store.open(old_root) as store:
        result = pipeline.store_memory(
            store, make_memory(FIXTURE_PROJECT, "Releases are tagged from main"), PERSON
        )
        assert rows.get(store.db, result.id).trust == "accepted"
        leaves = store.query("SELECT memory_id FROM tree_leaves")
        assert result.id in {leaf[0] for leaf in leaves}
        assert audit.verify(store.db).ok


def test_a_migrated_store_finds_what_a_new_write_contradicts(old_root: Path) -> None:
    # The index the contradiction search reads is built from the rows the
    # store already held, not only from those written after the migration.
    with Store.open(old_root) as store:
        denial = make_memory(FIXTURE_PROJECT, "Deploys never freeze on Fridays")
        found = {(f.memory.id, f.kind) for f in contradictions.find(store.db, denial)}
        assert found == {("mem_20260301_100100_0a0a0a0a0a02", "negation")}
        held = store.query("SELECT rowid FROM claim_fts WHERE claim_fts MATCH 'fridays'")
        assert len(held) == 1
        store.conn.execute("INSERT INTO claim_fts(claim_fts, rank) VALUES ('integrity-check', 1)")


def test_a_first_schema_store_has_its_index_rebuilt_folded(old_root: Path) -> None:
    # A row the first schema indexed as written: its full-width words were
    # their own tokens, which no plain question found.
    conn = sqlite3.connect(project.store_path(old_root))
    try:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(memories)")]
        picked = ["?" if c in ("id", "summary", "content_hash") else c for c in columns]
        conn.execute(
            f"INSERT INTO memories({', '.join(columns)}) SELECT {', '.join(picked)} "
            "FROM memories WHERE id = 'mem_20260301_100100_0a0a0a0a0a02'",
            [
                "mem_20260301_100500_0a0a0a0a0a07"
                if c == "id"
                else "Ｉｎｖｏｉｃｅｓ close on the ﬁrst"
                if c == "summary"
                else "sha256:" + "0" * 64
                for c in columns
                if c in ("id", "summary", "content_hash")
            ],
        )
        conn.commit()
        assert conn.execute(
            "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'invoices'"
        ).fetchone() == (0,)
    finally:
        conn.close()
    with Store.open(old_root) as store:
        person = Identity(FIXTURE_PROJECT, None, None, None)
        found = [h.memory.id for h in recall(store, person, "invoices")]
        assert found == ["mem_20260301_100500_0a0a0a0a0a07"]
        assert rows.get(store.db, found[0]).summary == "Ｉｎｖｏｉｃｅｓ close on the ﬁrst"
        store.conn.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)")


def _project_holding(tmp_path: Path, *texts: str) -> tuple[Path, str]:
    """A project whose store holds a person's memory of each of `texts`."""
    root = tmp_path / "proj"
    root.mkdir()
    guidance.init_project(root)
    project_id = json.loads((root / ".tree-ring" / "project.json").read_text())["project_id"]
    with Store.open(root) as store:
        for text in texts:
            pipeline.store_memory(store, make_memory(project_id, text), PERSON)
    return root, project_id


def _codes(root: Path) -> dict[int, bytes]:
    with Store.open(root) as store:
        return dict(store.conn.execute("SELECT rowid, code FROM memory_meaning"))


def test_a_store_coded_by_another_vector_table_is_coded_again_by_its_first_recall(
    tmp_path: Path,
) -> None:
    """A store at 0012 holds codes an older vector table made and no record of
    it: opening it with this Tree Ring migrates it without touching a code
    (the first open is often a hook's), and its first recall codes every
    memory again and records the installed table (the README's promise)."""
    root, project_id = _project_holding(
        tmp_path, "The orders consumer on Kafka lags behind", "Deploys freeze on Fridays"
    )
    fresh = _codes(root)
    conn = sqlite3.connect(project.store_path(root))
    try:
        conn.execute("UPDATE memory_meaning SET code = zeroblob(144)")
        conn.execute("DROP TABLE meaning_source")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0013_meaning_source'")
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
        conn.commit()
    finally:
        conn.close()
    with Store.open(root) as store:
        codes = dict(store.conn.execute("SELECT rowid, code FROM memory_meaning"))
        assert set(codes) == set(fresh) and set(codes.values()) == {bytes(144)}
        assert meaning.source(store.db) is None and meaning.stale(store.db)
        person = Identity(project_id, None, None, None)
        assert recall(store, person, "which queue fell behind")
        assert dict(store.conn.execute("SELECT rowid, code FROM memory_meaning")) == fresh
        assert meaning.source(store.db) == vectors.identity() is not None
        assert not meaning.stale(store.db)


@pytest.mark.parametrize("migration", ["0014_meaning_recoded", "0018_meaning_recoded_products"])
@pytest.mark.parametrize("made_by", ["another table", "the installed table"])
def test_a_store_is_coded_again_only_when_another_table_made_its_codes(
    tmp_path: Path, made_by: str, migration: str
) -> None:
    """0014 and 0018 each shipped a new vector table: the migration codes
    nothing, and the first recall codes again a store whose codes the table
    before it made; one already coded by the installed table is left."""
    root, project_id = _project_holding(tmp_path, "Deploys freeze on Fridays")
    fresh = _codes(root)
    source = "1 10 128 3280 0badc0de" if made_by == "another table" else vectors.identity()
    conn = sqlite3.connect(project.store_path(root))
    try:
        conn.execute("UPDATE memory_meaning SET code = zeroblob(144)")
        conn.execute("UPDATE meaning_source SET vectors = ?", (source,))
        conn.execute("DELETE FROM schema_migrations WHERE name = ?", (migration,))
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
        conn.commit()
    finally:
        conn.close()
    with Store.open(root) as store:
        zeroed = {rowid: bytes(144) for rowid in fresh}
        assert dict(store.conn.execute("SELECT rowid, code FROM memory_meaning")) == zeroed
        assert meaning.source(store.db) == source
        recall(store, Identity(project_id, None, None, None), "when do deploys stop")
        codes = dict(store.conn.execute("SELECT rowid, code FROM memory_meaning"))
        assert codes == (fresh if made_by == "another table" else zeroed)
        assert meaning.source(store.db) == vectors.identity() is not None


@pytest.mark.parametrize("why", ["read-only", "in a transaction", "locked"])
def test_a_recall_that_cannot_write_weighs_stale_codes_from_text(tmp_path: Path, why: str) -> None:
    """A recall that may not write (a read-only store, a caller's open
    transaction, another writer holding the lock) leaves stale codes as they
    are and still finds a memory by its meaning alone, from its text; it does
    not wait for the lock, however long the busy timeout."""
    root, project_id = _project_holding(tmp_path, "The orders consumer on Kafka lags behind")
    with Store.open(root) as store:
        store.conn.execute("UPDATE meaning_source SET vectors = '1 10 128 3280 0badc0de'")
    person = Identity(project_id, None, None, None)
    blocker = sqlite3.connect(project.store_path(root), isolation_level=None)
    try:
        if why == "locked":
            blocker.execute("BEGIN IMMEDIATE")
        options = Options(read_only=why == "read-only", busy_timeout_ms=600_000)
        with Store.open(root, options=options) as store:
            if why == "in a transaction":
                store.conn.execute("BEGIN")
            found: list[Hit] = []
            asking = threading.Thread(
                target=lambda: found.extend(recall(store, person, "message broker backlog"))
            )
            asking.start()
            asking.join(60)
            assert not asking.is_alive(), "the recall waited for the lock"
            if store.conn.in_transaction:
                store.conn.execute("ROLLBACK")
            assert [h.memory.summary for h in found] == ["The orders consumer on Kafka lags behind"]
            assert meaning.source(store.db) == "1 10 128 3280 0badc0de"
            assert store.db.scalar("PRAGMA busy_timeout") == 600_000
    finally:
        blocker.close()


def _behind(root: Path, due: list[str]) -> None:
    """The store as an older release left it: `due` not yet run (their work
    undone where a reader could tell)."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        if "0017_refute_index" in due:
            conn.execute("DROP INDEX audit_refutes")
        conn.executemany("DELETE FROM schema_migrations WHERE name = ?", [(n,) for n in due])
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - len(due)}")
        conn.commit()
    finally:
        conn.close()


def _version(root: Path) -> int:
    conn = sqlite3.connect(project.store_path(root))
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


ONLY_FOR_SPEED = ["0017_refute_index", "0018_meaning_recoded_products"]
READ_CHANGING = ["0015_ended_leaves", "0016_inbox_imports", *ONLY_FOR_SPEED]


@pytest.mark.parametrize("why", ["read-only", "held by another writer"])
def test_a_store_behind_by_what_readers_do_without_is_read_as_it_stands(
    tmp_path: Path, why: str
) -> None:
    """Due migrations that only speed reads up or record derived data:
    a store that cannot be migrated now is read as it stands, and the next
    open that can write migrates it."""
    root, project_id = _project_holding(tmp_path, "Deploys freeze on Fridays")
    _behind(root, ONLY_FOR_SPEED)
    blocker = sqlite3.connect(project.store_path(root), isolation_level=None)
    try:
        if why != "read-only":
            blocker.execute("BEGIN IMMEDIATE")
        options = Options(read_only=why == "read-only", busy_timeout_ms=10, write_attempts=1)
        with Store.open(root, options=options) as store:
            person = Identity(project_id, None, None, None)
            found = recall(store, person, "deploys fridays")
            assert [h.memory.summary for h in found] == ["Deploys freeze on Fridays"]
    finally:
        blocker.close()
    assert _version(root) == len(MIGRATIONS) - len(ONLY_FOR_SPEED)
    with Store.open(root):
        pass
    assert _version(root) == len(MIGRATIONS)


@pytest.mark.parametrize("why", ["read-only", "held by another writer"])
def test_a_store_behind_by_what_readers_need_is_refused_in_one_line(
    tmp_path: Path, why: str
) -> None:
    root, _ = _project_holding(tmp_path)
    _behind(root, READ_CHANGING)
    blocker = sqlite3.connect(project.store_path(root), isolation_level=None)
    try:
        if why != "read-only":
            blocker.execute("BEGIN IMMEDIATE")
        options = Options(read_only=why == "read-only", busy_timeout_ms=10, write_attempts=1)
        expected = StoreFault if why == "read-only" else StoreBusy
        with pytest.raises(expected, match=r"read-only|stayed locked"):
            Store.open(root, options=options)
    finally:
        blocker.close()
    assert _version(root) == len(MIGRATIONS) - len(READ_CHANGING)
