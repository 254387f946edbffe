"""`tree-ring maintain`: expiry, the secret sweep and compaction.

Report-only by default. What it applies goes through `correct.forget_in`, so
each removal leaves a content tombstone, an audit entry with its reason, and
nothing in the FTS index.
"""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, CliRunner, make_memory
from reliability_support import cli, counts, fts_consistent, raw

from tree_ring import guard
from tree_ring.model.errors import Conflict
from tree_ring.store.db import Store
from tree_ring.upkeep import maintain
from tree_ring.write import pipeline

PAST = "2020-01-01T00:00:00.000000Z"
FUTURE = "2999-01-01T00:00:00.000000Z"
TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def put(store: Store, project_id: str, summary: str, **fields: Any) -> str:
    return pipeline.store_memory(store, make_memory(project_id, summary, **fields), PERSON).id


@pytest.fixture
def aged(store: Store, project_id: str) -> dict[str, str]:
    """Expired rows of every retention, protected ones, and live ones."""
    ids = {
        "ephemeral": put(store, project_id, "Scratch zebraword", retention="ephemeral",
                         expires_at=PAST),
        "normal": put(store, project_id, "Normal yakword", expires_at=PAST),
        "dated": put(store, project_id, "Dated xylword", retention="forget_after_date",
                     expires_at=PAST),
        "scar": put(store, project_id, "Scar wombatword", ring="scar", expires_at=PAST),
        "heartwood": put(store, project_id, "Heartwood vulture", ring="heartwood",
                         expires_at=PAST),
        "durable": put(store, project_id, "Durable urchin", retention="durable",
                       expires_at=PAST),
        "pinned": put(store, project_id, "Pinned tapir", retention="user_pinned",
                      expires_at=PAST),
        "later": put(store, project_id, "Later seal", retention="ephemeral", expires_at=FUTURE),
        "forever": put(store, project_id, "Forever rhino"),
    }  # fmt: skip
    return ids


REMOVABLE = ("ephemeral", "normal", "dated")
PROTECTED = ("scar", "heartwood", "durable", "pinned")


def test_report_only_by_default(run_cli: CliRunner, store: Store, aged: dict[str, str]) -> None:
    before = counts(store.root)
    result = run_cli("--json", "maintain")
    assert result.code == 0, result.err
    data = result.json()
    assert {i["id"] for i in data["items"] if i["kind"] == "expired_removable"} == {
        aged[k] for k in REMOVABLE
    }
    assert {i["id"] for i in data["items"] if i["kind"] == "expired_protected"} == {
        aged[k] for k in PROTECTED
    }
    assert data["deleted"] == 0 and data["redacted"] == 0 and data["vacuumed"] is False
    assert counts(store.root) == before
    text = run_cli("maintain").out
    assert "3 removable (--apply-expired deletes them)" in text


def test_apply_expired_deletes_only_temporary_rows(
    store: Store, project_id: str, aged: dict[str, str]
) -> None:
    proc = cli(store.root, "--json", "maintain", "--apply-expired")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {i["id"] for i in data["items"] if i["kind"] == "expired_removable" and i["done"]} == {
        aged[k] for k in REMOVABLE
    }
    with closing(raw(store.root)) as conn:
        left = {r[0] for r in conn.execute("SELECT id FROM memories")}
        assert left == {aged[k] for k in (*PROTECTED, "later", "forever")}
        # Gone from the index too, not only from the table.
        for word in ("zebraword", "yakword", "xylword"):
            hit = conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (word,))
            assert hit.fetchone()[0] == 0
        assert fts_consistent(conn)
        reasons = [
            json.loads(r[0])["reason"]
            for r in conn.execute("SELECT detail FROM audit_log WHERE action = 'forget'")
        ]
        assert len(reasons) == 3 and all(r.startswith("expired") for r in reasons)
        stones = conn.execute("SELECT DISTINCT memory_id FROM content_tombstones")
        assert {r[0] for r in stones} == {aged[k] for k in REMOVABLE}
    # The tombstone keeps the expired content from coming back under a new id.
    with pytest.raises(Conflict, match="forgotten on"):
        put(store, project_id, "Scratch zebraword")
    again = cli(store.root, "--json", "maintain", "--apply-expired")
    assert json.loads(again.stdout)["deleted"] == 0


def test_secret_sweep_redacts_what_a_newer_rule_catches(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stored under an older guard that knew no such rule.
    with monkeypatch.context() as patched:
        patched.setattr(guard, "check_fields", lambda fields: "normal")
        leaked = put(store, project_id, f"The deploy token is {TOKEN}")
        in_details = put(store, project_id, "Deploy notes", details=f"use {TOKEN} to push")
    clean = put(store, project_id, "Nothing secret here")
    report = maintain.maintain(store, PERSON)
    assert {(s.id, s.field) for s in report.secrets} == {
        (leaked, "summary"),
        (in_details, "details"),
    }
    assert all(s.rule for s in report.secrets)
    assert report.redacted == []

    store_files = sorted(store.path.parent.glob(store.path.name + "*"))
    assert any(TOKEN.encode() in path.read_bytes() for path in store_files)

    proc = cli(store.root, "--json", "maintain", "--apply-secret-sweep")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {i["id"] for i in data["items"] if i["kind"] == "secret" and i["done"]} == {
        leaked,
        in_details,
    }
    assert TOKEN.encode() not in proc.stdout
    with closing(raw(store.root)) as conn:
        rows = {r["id"]: r for r in conn.execute("SELECT * FROM memories")}
        assert rows[clean]["redacted_at"] is None
        for victim in (leaked, in_details):
            assert rows[victim]["summary"] == "[REDACTED]" and rows[victim]["redacted_at"]
        assert (
            conn.execute(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", ('"' + TOKEN + '"',)
            ).fetchone()[0]
            == 0
        )
        assert fts_consistent(conn)
        reasons = [
            json.loads(r[0])["reason"]
            for r in conn.execute("SELECT detail FROM audit_log WHERE action = 'forget'")
        ]
        assert len(reasons) == 2 and all("guard rule" in r for r in reasons)
        assert all(TOKEN not in r for r in reasons)
        marks = {r[0] for r in conn.execute("SELECT memory_id FROM redaction_tombstones")}
        assert marks == {leaked, in_details}
        # The whole file, WAL included, no longer holds the token.
    files = sorted(store.path.parent.glob(store.path.name + "*"))
    assert store.path in files
    for path in files:
        assert TOKEN.encode() not in path.read_bytes(), path
    assert maintain.maintain(store, PERSON).secrets == []


def test_vacuum_compacts_and_keeps_the_store_whole(store: Store, project_id: str) -> None:
    for n in range(60):
        put(store, project_id, f"Bulk note {n} " + "filler " * 80, retention="ephemeral",
            expires_at=PAST)  # fmt: skip
    keep = put(store, project_id, "The one that stays")
    proc = cli(store.root, "--json", "maintain", "--apply-expired", "--vacuum")
    data = json.loads(proc.stdout)
    assert proc.returncode == 0 and data["vacuumed"] is True
    assert data["deleted"] == 60
    assert data["bytes_after"] < data["bytes_before"]
    with closing(raw(store.root)) as conn:
        assert [r[0] for r in conn.execute("SELECT id FROM memories")] == [keep]
        assert fts_consistent(conn)
    assert cli(store.root, "doctor").returncode == 0


@pytest.mark.parametrize("bad", ["x'01'", "'hello'", "zeroblob(4096)", "42"])
def test_vacuum_makes_again_the_meaning_codes_edited_outside_tree_ring(
    store: Store, project_id: str, bad: str
) -> None:
    """A code of another type or size, or of a memory gone: recall reads
    none of them, and `--vacuum`, which codes what has no code, deletes
    them and codes their memories again, as `doctor --repair` does."""
    for n in range(4):
        put(store, project_id, f"The orders consumer on Kafka fell behind, batch {n}")
    with closing(raw(store.root)) as conn:
        sound = dict(conn.execute("SELECT rowid, code FROM memory_meaning").fetchall())
        conn.execute(f"UPDATE memory_meaning SET code = {bad} WHERE rowid IN (1, 3)")
        conn.execute("INSERT INTO memory_meaning(rowid, code) VALUES (999, ?)", (sound[2],))
    assert len(sound) == 4
    maintain.maintain(store, PERSON, vacuum=True)
    with closing(raw(store.root)) as conn:
        assert dict(conn.execute("SELECT rowid, code FROM memory_meaning").fetchall()) == sound
    assert cli(store.root, "doctor").returncode == 0


def test_maintain_needs_a_store(tmp_path: Path, run_cli: CliRunner) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    result = run_cli("--root", str(bare), "maintain", root=False)
    assert result.code == 1 and result.err.startswith("error: no Tree Ring store")
