"""A team ledger's tombstone line whose id looks like a secret is skipped,
named by its line number only: its id would be printed by `audit log` and
`doctor` and written back into the ledger this clone writes."""

from __future__ import annotations

import json
from pathlib import Path

from team_support import LEDGER, first_repo, ok

SECRET_ID = "mem_ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"


def test_a_secret_looking_tombstone_id_is_skipped_unechoed(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    line = {
        "record": "tombstone",
        "id": SECRET_ID,
        "hashes": ["sha256:" + "a" * 64],
        "at": "2026-12-01T00:00:00Z",
        "kind": "forgotten",
    }
    with (root / LEDGER).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
    synced = ok(root, "sync")
    assert "a tombstone's id looks like a secret" in synced.out
    said = synced.out + synced.err + ok(root, "audit", "log").out + ok(root, "doctor").out
    assert SECRET_ID[8:20] not in said
    assert SECRET_ID not in (root / LEDGER).read_text(encoding="utf-8")
