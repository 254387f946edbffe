"""`audit verify` holds the rows and the tombstones against the chain: every
path Tree Ring writes by keeps it whole, and every change made beside it shows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from governance_support import CLAUDE, CODEX, query, remember, write
from helpers import CliRunner

from tree_ring.model import project
from tree_ring.store.sql import add_functions


def verify(run_cli: CliRunner) -> dict[str, object]:
    result = run_cli("--json", "audit", "verify")
    data: dict[str, object] = result.json()
    assert (result.code == 0) is data["ok"]
    return data


def tamper(root: Path, *statements: str) -> None:
    conn = sqlite3.connect(project.store_path(root))
    add_functions(conn)  # the recall index's triggers call them
    try:
        for sql in statements:
            conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


@pytest.fixture
def busy(run_cli: CliRunner, project_root: Path, tmp_path: Path) -> dict[str, str]:
    """A store that has been through every kind of write, as people use it."""
    ids = {
        "rule": remember(run_cli, "The request timeout is 30s", "--event-type", "decision"),
        "scar": remember(run_cli, "Migrations on the primary took the site down", "--ring", "scar"),
        "agent": remember(run_cli, "The flaky test needs a fresh Redis", environ=CLAUDE),
        "pending": remember(run_cli, "Run the schema tool", "--ring", "heartwood", environ=CLAUDE),
        "gone": remember(run_cli, "A note to forget soon"),
        "redact": remember(run_cli, "Another note to redact soon"),
    }
    # A contradiction, linked both ways, then settled.
    ids["disputed"] = remember(
        run_cli, "The request timeout is 60s", "--event-type", "decision", "--scope", "project",
        environ=CLAUDE,
    )  # fmt: skip
    write(run_cli, "review", "approve", ids["disputed"], "--supersede-contradicted")
    write(run_cli, "review", "approve", ids["pending"])
    ids["rejected"] = remember(run_cli, "Skip the slow tests", "--ring", "heartwood", environ=CODEX)
    write(run_cli, "review", "reject", ids["rejected"], "--reason", "they matter")
    ids["new"] = remember(run_cli, "Cache lives in SQLite", "--supersedes", ids["scar"])
    write(run_cli, "forget", ids["gone"], "--mode", "delete", "--reason", "noise")
    write(run_cli, "forget", ids["redact"], "--mode", "redact", "--reason", "noise")
    write(run_cli, "consolidate", "--period-type", "manual")
    request = write(
        run_cli, "forget", ids["rule"], "--mode", "delete", "--reason", "old", environ=CLAUDE
    )["request"]
    write(run_cli, "review", "approve", request)
    exported = tmp_path / "out.jsonl"
    run_cli("export", "--output", str(exported))
    line = {"summary": "Imported from the old store", "event_type": "note"}
    imported = tmp_path / "in.jsonl"
    imported.write_text(exported.read_text() + json.dumps(line) + "\n", encoding="utf-8")
    write(run_cli, "import", str(imported))
    return ids


def test_every_path_keeps_the_audit_whole(run_cli: CliRunner, busy: dict[str, str]) -> None:
    data = verify(run_cli)
    assert data["ok"] is True and data["items"] == []
    assert data["unanchored"] == 0


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "UPDATE memories SET trust = 'accepted', ring = 'heartwood' WHERE id = '{agent}'",
            "memory {agent} differs from its state in entry",
        ),
        ("DELETE FROM memories WHERE id = '{agent}'", "memory {agent} was removed without"),
        ("DELETE FROM content_tombstones", "named in the audit log are missing"),
        ("DELETE FROM audit_log", "memory {agent} has no audit entry"),
        (
            "DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)",
            "were removed from the end of the log",
        ),
        ("DELETE FROM audit_log WHERE seq = 3", "entries 3 to 3 are missing"),
        (
            "INSERT INTO content_tombstones VALUES"
            " ('{project}', 'sha256:feed', 'forgotten', 'x', 'mem_x', 'person', 't')",
            "1 tombstone(s) are named by no audit entry",
        ),
        # Which memory a tombstone was forgotten as: the ledger's line says it.
        (
            "INSERT INTO tombstone_ids VALUES"
            " ('{project}', 'mem_x', 'sha256:feed', 'forgotten', 't')",
            "1 tombstone id record(s) name content no tombstone holds",
        ),
        ("DELETE FROM tombstone_ids", "3 forgotten memory(ies) lost their tombstone id records"),
        (
            "INSERT INTO tombstone_ids SELECT project, '{new}', content_hash, kind, created_at"
            " FROM content_tombstones LIMIT 1",
            "1 tombstone id record(s) name a memory this store keeps",
        ),
    ],
)
def test_a_change_beside_the_chain_is_reported(
    run_cli: CliRunner,
    project_root: Path,
    project_id: str,
    busy: dict[str, str],
    sql: str,
    expected: str,
) -> None:
    assert verify(run_cli)["ok"] is True
    names = {**busy, "project": project_id}
    tamper(project_root, sql.format(**names))
    data = verify(run_cli)
    assert data["ok"] is False
    problems = data["items"]
    assert isinstance(problems, list)
    assert any(expected.format(**names) in str(p) for p in problems), problems
    report = run_cli("--json", "doctor").json()
    audit_check = next(c for c in report["items"] if c["name"] == "audit")
    assert not audit_check["ok"] and expected.format(**names) in audit_check["detail"]


def test_a_store_from_before_row_states_verifies_and_says_what_is_unanchored(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = remember(run_cli, "Old rows have entries without states")
    tamper(
        project_root,
        "DROP TRIGGER IF EXISTS audit_log_no_update",
        # What an older Tree Ring wrote: the same entry without `states`.
        "UPDATE audit_log SET detail = json_remove(detail, '$.states')",
    )
    # Rewriting details breaks the chain, as it should: re-chain it as the old
    # version would have written it.
    from tree_ring.store import audit
    from tree_ring.store.sql import Db

    conn = sqlite3.connect(project.store_path(project_root))
    conn.row_factory = sqlite3.Row
    prev = ""
    for row in conn.execute("SELECT * FROM audit_log ORDER BY seq").fetchall():
        fields = (row["action"], row["actor"], row["at"], row["detail"], row["origin"])
        written = tuple(audit.json_text(v) for v in (*fields, prev, row["session"], row["target"]))
        digest = audit._entry_hash(written)  # pyright: ignore[reportPrivateUsage]
        conn.execute(
            "UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, row["seq"])
        )
        prev = digest
    conn.commit()
    result = audit.verify(Db(conn, project_root))
    conn.close()
    assert result.ok and result.unanchored == 1
    assert query(project_root, "SELECT count(*) FROM memories WHERE id = ?", (memory_id,))[0][0]
