"""`sync` names the first SKIPPED_SHOWN ledger lines it did not take, then a
count of the rest; `--json` lists every one."""

from __future__ import annotations

import json
from pathlib import Path

from team_support import LEDGER, cli, first_repo, remember

from tree_ring.cli.context import SKIPPED_SHOWN

EXTRA = SKIPPED_SHOWN + 7


def _append_bad(root: Path) -> None:
    """EXTRA lines no sync takes (each is dropped as it is named)."""
    with (root / LEDGER).open("a", encoding="utf-8") as ledger:
        for n in range(EXTRA):
            ledger.write(json.dumps({"record": "memory", "id": f"not-an-id-{n}"}) + "\n")


def test_sync_names_the_first_skipped_lines_and_counts_the_rest(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "A normal team memory")
    _append_bad(alice)
    shown = cli(alice, "sync")
    assert shown.code == 0, shown.err
    named = [line for line in shown.out.splitlines() if line.startswith(f"  {LEDGER}:")]
    assert len(named) == SKIPPED_SHOWN
    assert "  ... and 7 more skipped lines (--json lists them all)" in shown.out.splitlines()
    _append_bad(alice)
    listed = cli(alice, "--json", "sync")
    assert listed.code == 0, listed.err
    assert listed.json()["skipped"] == EXTRA
