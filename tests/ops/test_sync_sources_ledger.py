"""A person's `dox sync` and `revolve sync` reach the team ledger at once.

Both write shared rows (scopes `dox` and `revolve`), and a person's write
to a shared scope updates the ledger at once (docs/TEAM.md), as every other
verb's does: a commit right after the sync carries the rows. A dry run
writes neither the store nor the ledger.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_support import first_repo, ok

LEDGER = Path(".tree-ring") / "ledger.jsonl"


def _ledger_ids(root: Path, scope: str) -> set[str]:
    lines = (root / LEDGER).read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return {r["id"] for r in rows if r.get("record") == "memory" and r.get("scope") == scope}


def _write(root: Path, scope: str) -> None:
    if scope == "dox":
        text = "# Rules\n\nYou must run the linter before every commit to main.\n"
        (root / "AGENTS.md").write_text(text, encoding="utf-8")
    else:
        (root / "revolve" / "evals").mkdir(parents=True)
        text = "Outcome: rejected\nAggressive cache warmup caused stale reads in rollback.\n"
        (root / "revolve" / "evals" / "cache.md").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("scope", ["dox", "revolve"])
def test_a_persons_file_sync_reaches_the_ledger_at_once(tmp_path: Path, scope: str) -> None:
    root = first_repo(tmp_path)
    _write(root, scope)
    ok(root, scope, "sync", "--dry-run")
    assert _ledger_ids(root, scope) == set()
    done = ok(root, "--json", scope, "sync").json()
    stored = {
        str(row["id"])
        for row in json.loads(
            ok(root, "--json", "list", "--include-unreviewed", "--limit", "50").out
        )["items"]
        if row.get("scope") == scope
    }
    assert stored, done
    assert _ledger_ids(root, scope) == stored
