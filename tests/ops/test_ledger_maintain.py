"""`maintain --apply-expired` removes rows as a forget does, and rewrites the
team ledger at once, as a forget does: the deleted text leaves the file a
person commits, and `doctor` finds no lag."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from team_support import LEDGER, first_repo, ledger_check, ledger_entries, ok, remember

from tree_ring.model.project import store_path

TEMPORARY = "Staging is frozen for the quarterly audit"
KEPT = "The catalog cache keeps entries for ten minutes"


def _expire(root: Path, memory_id: str) -> None:
    conn = sqlite3.connect(store_path(root))
    try:
        with conn:
            conn.execute(
                "UPDATE memories SET expires_at = '2020-01-01T00:00:00.000000Z' WHERE id = ?",
                (memory_id,),
            )
    finally:
        conn.close()


def test_an_expiry_sweep_rewrites_the_ledger(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    gone, kept = remember(alice, TEMPORARY), remember(alice, KEPT)
    _expire(alice, gone)
    ok(alice, "maintain", "--apply-expired")
    assert TEMPORARY not in (alice / LEDGER).read_text(encoding="utf-8")
    assert {(e["id"], e["record"]) for e in ledger_entries(alice)} == {
        (kept, "memory"),
        (gone, "tombstone"),
    }
    assert ledger_check(alice)["ok"] is True
