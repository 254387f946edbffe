"""Helpers shared by the governance tests (review, policy, supersede, findings)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from conftest import CliRunner

from tree_ring.model import project
from tree_ring.store.sql import add_functions

CLAUDE = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
CODEX = {"CODEX_SESSION_ID": "cx-7"}
TOKEN_VAR = "TREE_RING_COORDINATOR_TOKEN"


def write(run_cli: CliRunner, *args: str, environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a write verb with --json and return its document; the write must succeed."""
    result = run_cli("--json", *args, environ=environ)
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def remember(
    run_cli: CliRunner, summary: str, *args: str, environ: dict[str, str] | None = None
) -> str:
    return str(write(run_cli, "remember", summary, *args, environ=environ)["id"])


def show(run_cli: CliRunner, memory_id: str) -> dict[str, Any]:
    data: dict[str, Any] = run_cli("--json", "show", memory_id).json()["memory"]
    return data


def db(root: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(project.store_path(root))
    conn.row_factory = sqlite3.Row
    add_functions(conn)  # memory_fts reads its text through them
    return conn


def query(root: Path, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    conn = db(root)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def audit_rows(root: Path, action: str) -> list[sqlite3.Row]:
    return query(root, "SELECT * FROM audit_log WHERE action = ? ORDER BY seq", (action,))


def policy_rows(root: Path) -> list[sqlite3.Row]:
    return query(root, "SELECT * FROM policy_audit ORDER BY seq")


def enable(run_cli: CliRunner) -> str:
    """Switch the test project to coordinated mode; returns the capability."""
    data = write(run_cli, "policy", "enable", "--coordinator", "lead")
    token: str = data["capability"]
    return token


def live_ids(run_cli: CliRunner, *args: str) -> set[str]:
    return {m["id"] for m in run_cli("--json", "list", *args).json()["items"]}


def recall_ids(run_cli: CliRunner, query_text: str, *args: str) -> set[str]:
    found = run_cli("--json", "recall", query_text, "--limit", "50", *args).json()["items"]
    return {r["id"] for r in found}


def brief_ids(run_cli: CliRunner) -> set[str]:
    return set(run_cli("--json", "brief").json()["items"])


def checked_detail(root: Path, entry: sqlite3.Row) -> dict[str, Any]:
    """An audit entry's detail without its row states, after checking that the
    states it names are the rows' states now (the entry is each row's last)."""
    from tree_ring.store import audit
    from tree_ring.store.sql import Db

    detail: dict[str, Any] = json.loads(entry["detail"])
    states: dict[str, str] = detail.pop("states", {})
    conn = db(root)
    try:
        assert audit.states_of(Db(conn, root), states) == states
    finally:
        conn.close()
    return detail


# One character of each kind the invisible-character policy refuses.
INVISIBLE = {
    "zero-width space": "\u200b",
    "right-to-left override": "\u202e",
    "soft hyphen": "\u00ad",
    "tag character": "\U000e0041",
    "byte order mark": "\ufeff",
    "delete": "\x7f",
}


def rows_of(root: Path, *tables: str) -> list[tuple[object, ...]]:
    """Every row of `tables`, in order: what a refused write must leave as it was."""
    return [
        tuple(row)
        for table in tables
        for row in query(root, f"SELECT * FROM {table} ORDER BY rowid")
    ]
