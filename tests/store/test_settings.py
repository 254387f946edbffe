"""The settings table: one encoder for every writer, every default declared once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import CliRunner

from tree_ring.govern import admission, coordinator
from tree_ring.store import settings
from tree_ring.store.db import Store
from tree_ring.tree import nodes


def canonical(value: Any) -> str:
    """Canonical JSON as the store promises it, spelled out independently."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stored(store: Store) -> dict[str, str]:
    return {row[0]: row[1] for row in store.query("SELECT key, value FROM settings")}


def test_the_defaults() -> None:
    assert dict(settings.TREE) == {
        "tree.input_token_budget": 50_000,
        "tree.output_token_budget": 5_000,
        "tree.summary_fanout": 10,
        "tree.flush_age_secs": 604_800,
        "tree.deferred": False,
    }
    assert dict(settings.REVIEW_POLICY) == {
        "agent_shared": True,
        "agent_heartwood": True,
        "agent_weight": True,
        "agent_replacements": True,
        "imported_authority": True,
        "contradictions": True,
        "share_captures": False,
    }
    assert dict(settings.WRITE_POLICY) == {
        "mode": "open",
        "coordinator": None,
        "token_hash": None,
        "enabled_at": None,
        "rotated_at": None,
    }
    assert dict(settings.CHECKPOINT) == {"checkpoint": "after-work", "checkpoint.interval": 30}
    assert dict(settings.LEDGER) == {
        "size": None,
        "mtime_ns": None,
        "sha256": None,
        "clone": None,
        "seen": None,
        "shared": None,
        "catchup": None,
    }
    assert dict(settings.LEDGER_UPSTREAM) == {"ref": None, "oid": None, "lines": ""}
    assert dict(settings.LEDGER_CLAIMS) == {"lines": ""}
    assert dict(settings.PROJECT) == {"project": ""}
    assert set(settings.DEFAULTS) == {
        *settings.TREE,
        *settings.CHECKPOINT,
        "project",
        "review_policy",
        "write_policy",
        "ledger",
        "ledger_upstream",
        "ledger_claims",
        "ledger_verdicts",
        "ledger_carried",
        "ledger_beside",
        "inbox_seen",
        "tombstones.changes",
        "brief_checks",
    }
    assert dict(settings.TOMBSTONES_MOVED) == {"tombstones.changes": None}
    assert dict(settings.BRIEF_CHECKS) == {"code": None, "clean": [], "forgets": {}}


def test_a_missing_key_reads_as_a_fresh_copy_of_its_default(store: Store) -> None:
    assert "review_policy" not in stored(store)
    first = settings.read(store.db, "review_policy")
    assert first == dict(settings.REVIEW_POLICY)
    first["contradictions"] = False
    assert settings.read(store.db, "review_policy")["contradictions"] is True
    assert settings.REVIEW_POLICY["contradictions"] is True
    assert settings.read(store.db, "write_policy")["mode"] == "open"
    assert admission.policy_settings(store.db) == dict(settings.REVIEW_POLICY)
    assert coordinator.state(store.db) == coordinator.State("open", None, None, None, None)


def test_a_tree_budget_missing_from_the_table_reads_as_its_default(store: Store) -> None:
    with store.write() as db:
        db.execute("DELETE FROM settings WHERE key LIKE 'tree.%'")
    assert settings.read(store.db, "tree.summary_fanout") == 10
    assert settings.read(store.db, "tree.deferred") is False
    assert nodes.config(store.db) == nodes.TreeConfig(50_000, 5_000, 10, 604_800, False)


def test_a_stored_value_wins_over_the_default(store: Store) -> None:
    with store.write() as db:
        settings.write(db, "tree.input_token_budget", 2_000)
        settings.write(db, "tree.deferred", True)
    assert stored(store)["tree.input_token_budget"] == "2000"
    assert settings.read(store.db, "tree.input_token_budget") == 2_000
    many = settings.read_many(store.db, ["tree.deferred", "tree.summary_fanout"])
    assert many == {"tree.deferred": True, "tree.summary_fanout": 10}
    assert settings.read_many(store.db, []) == {}
    config = nodes.config(store.db)
    assert (config.input_token_budget, config.deferred) == (2_000, True)
    with store.write() as db:
        settings.write(db, "tree.input_token_budget", 3_000)  # an upsert, not a second row
    assert settings.read(store.db, "tree.input_token_budget") == 3_000
    assert (
        store.query("SELECT count(*) FROM settings WHERE key = 'tree.input_token_budget'")[0][0]
        == 1
    )


def test_an_undeclared_key_is_refused_and_nothing_is_written(store: Store) -> None:
    before = stored(store)
    with pytest.raises(KeyError, match="undeclared setting"), store.write() as db:
        settings.write(db, "tree.no_such_budget", 1)
    with pytest.raises(KeyError):
        settings.read(store.db, "tree.no_such_budget")
    assert stored(store) == before


def test_every_writer_stores_canonical_json(run_cli: CliRunner, store: Store) -> None:
    assert run_cli("tree", "config", "--set", "summary_fanout=4").code == 0
    assert run_cli("tree", "config", "--set", "deferred=true").code == 0
    assert run_cli("review", "policy", "--set", "contradictions=false").code == 0
    enabled = run_cli("--json", "policy", "enable", "--coordinator", "lead")
    assert enabled.code == 0, enabled.err
    values = stored(store)
    # The tombstones' count, as its triggers write it (store/moved.py), is canonical too.
    assert set(values) == {
        *settings.TREE,
        "project",
        "review_policy",
        "write_policy",
        "tombstones.changes",
    }
    for key, raw in values.items():
        assert raw == canonical(json.loads(raw)), key
    assert json.loads(values["tree.summary_fanout"]) == 4
    assert json.loads(values["tree.deferred"]) is True
    assert json.loads(values["review_policy"]) == {
        **settings.REVIEW_POLICY,
        "contradictions": False,
    }
    policy = json.loads(values["write_policy"])
    assert (policy["mode"], policy["coordinator"]) == ("coordinated", "lead")
    assert sorted(policy) == sorted(settings.WRITE_POLICY)


def test_disabling_the_write_policy_stores_the_declared_default(
    run_cli: CliRunner, store: Store
) -> None:
    token = run_cli("--json", "policy", "enable", "--coordinator", "lead").json()["capability"]
    off = run_cli("policy", "disable", environ={"TREE_RING_COORDINATOR_TOKEN": token})
    assert off.code == 0, off.err
    assert json.loads(stored(store)["write_policy"]) == dict(settings.WRITE_POLICY)
    assert run_cli("--json", "policy", "status").json()["mode"] == "open"
