"""`maintain --apply-expired` removes rows as a forget does, and rewrites the
team ledger at once, as a forget does: the deleted text leaves the file a
person commits, and `doctor` finds no lag."""

from __future__ import annotations

from pathlib import Path

from team_support import LEDGER, expire, first_repo, ledger_check, ledger_entries, ok, remember

TEMPORARY = "Staging is frozen for the quarterly audit"
KEPT = "The catalog cache keeps entries for ten minutes"


def test_an_expiry_sweep_rewrites_the_ledger(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    gone, kept = remember(alice, TEMPORARY), remember(alice, KEPT)
    expire(alice, gone)
    ok(alice, "maintain", "--apply-expired")
    assert TEMPORARY not in (alice / LEDGER).read_text(encoding="utf-8")
    assert {(e["id"], e["record"]) for e in ledger_entries(alice)} == {
        (kept, "memory"),
        (gone, "tombstone"),
    }
    assert ledger_check(alice)["ok"] is True
