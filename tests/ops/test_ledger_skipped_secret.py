"""A ledger line not taken is named with why, quoting what it says: what of
that looks like a secret is withheld, in `init`'s notes and `sync`'s lines
alike, as from an error message."""

from __future__ import annotations

import json
from pathlib import Path

from team_support import LEDGER, cli, clone, commit, first_repo, ok, remember

# Built, so no scanner takes this file for one that holds a token.
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
KEY = "AKIA" + "Q3EGZXH7RK2PLM4T"


def _crafted(tmp_path: Path) -> Path:
    alice = first_repo(tmp_path)
    remember(alice, "A normal team memory")
    path = alice / LEDGER
    lines = path.read_text(encoding="utf-8").splitlines()
    base = json.loads(next(text for text in lines if '"record":"memory"' in text))
    bad = [
        {**base, "id": "mem_20261205_000001_aaaaaaaaaaaa", "scope": TOKEN, "summary": "one"},
        {**base, "id": "mem_20261205_000002_aaaaaaaaaaaa", "project": KEY, "summary": "two"},
        {**base, "id": "mem_20261205_000003_aaaaaaaaaaaa", "ring": TOKEN, "summary": "three"},
    ]
    path.write_text("\n".join([*lines, *map(json.dumps, bad)]) + "\n", encoding="utf-8")
    commit(alice, "crafted lines")
    return alice


def test_init_and_sync_withhold_a_secret_a_skipped_line_says(tmp_path: Path) -> None:
    alice = _crafted(tmp_path)
    bob = clone(alice, tmp_path, "bob", init=False)
    init = ok(bob, "--json", "init")
    notes = [n for n in init.json()["notes"] if n.startswith(f"{LEDGER}:")]
    synced = cli(bob, "sync")
    assert synced.code == 0, synced.err
    named = [line for line in synced.out.splitlines() if line.strip().startswith(f"{LEDGER}:")]
    for said in (init.out, synced.out, synced.err):
        assert TOKEN not in said and KEY not in said
    assert len(notes) == len(named) == 3
    # Each says why without the value: withheld where it would be quoted, or
    # never quoted at all (a ring or scope that is no word is not echoed).
    for line in [*notes, *named]:
        assert "[withheld: it looks like a secret]" in line or (
            "unknown ring;" in line or "unknown scope;" in line
        ), line
        assert TOKEN[4:12] not in line and KEY[4:12] not in line
