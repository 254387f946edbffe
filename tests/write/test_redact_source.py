"""Redaction empties the source too: the ref and the quote can hold the forgotten words."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import CliRunner

from tree_ring.model import project

QUOTE = "the zanzibar endpoint accepts unsigned callbacks"
REF = "docs/zanzibar-callbacks.md#unsigned"


def stored(root: Path, memory_id: str) -> sqlite3.Row:
    conn = sqlite3.connect(project.store_path(root))
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    finally:
        conn.close()


def test_redact_empties_source_quote_and_source_ref(run_cli: CliRunner, project_root: Path) -> None:
    made = run_cli(
        "--json",
        "remember",
        "Callbacks must be signed",
        "--source-ref",
        REF,
        "--source-quote",
        QUOTE,
    )
    assert made.code == 0, made.err
    memory_id = made.json()["id"]
    before = run_cli("--json", "show", memory_id).json()["memory"]["source"]
    assert (before["ref"], before["quote"]) == (REF, QUOTE)

    result = run_cli("forget", memory_id, "--mode", "redact", "--reason", "wrong endpoint")
    assert result.code == 0, result.err

    after = run_cli("--json", "show", memory_id).json()["memory"]
    assert after["redacted_at"] is not None and after["summary"] == "[REDACTED]"
    assert after["source"] == {"type": before["type"], "ref": "", "quote": ""}
    row = stored(project_root, memory_id)
    assert (row["source_ref"], row["source_quote"]) == ("", "")
