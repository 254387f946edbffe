"""An upstream line the merge driver wrote with this clone's forgotten words withheld.

Bob forgets a note and commits the forget without pushing it. Alice, who has
not taken that forget, shares a memory whose review reason quotes the note's
words. When Bob pulls, the merge driver keeps Alice's line and withholds the
words Bob's tombstone forgot (`ledger.withhold_carried`), so his working tree
holds the upstream's line as his clone writes it. That line is no claim of a
local commit: a sync reads the upstream's own line in its place and skips it
as it skips any upstream line quoting what the clone forgot, named once,
with nothing waiting in the review queue.
"""

from __future__ import annotations

import json
from pathlib import Path

from provenance_support import LEDGER, cli, git, pair

from tree_ring.model.text import WITHHELD_FORGOTTEN
from tree_ring.store.db import Store

FORGOTTEN = "Use tabs in the Makefile"
SHARED = "Teammate build note about targets"


def _pulled(tmp: Path) -> tuple[Path, str]:
    """Bob forgets a note and commits the forget; Alice, who never took it,
    shares a memory whose review reason quotes it; Bob pulls, the merge
    driver withholding the words. (Bob's clone, the shared memory's id.)"""
    alice, bob = pair(tmp)
    noted = cli(bob, "remember", FORGOTTEN, "--scope", "project")["id"]
    cli(bob, "forget", noted, "--mode", "delete", "--reason", "wrong")
    git(bob, "commit", "-q", "-am", "forget")
    rows = tmp / "rows.jsonl"
    row = {"summary": SHARED, "scope": "project", "review": {"review_reason": FORGOTTEN.lower()}}
    rows.write_text(json.dumps(row) + "\n", encoding="utf-8")
    cli(alice, "import", str(rows))
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "a note")
    git(alice, "push", "-q")
    shared = next(
        json.loads(text)["id"]
        for text in (alice / LEDGER).read_text(encoding="utf-8").splitlines()
        if SHARED in text
    )
    git(bob, "pull", "-q", "--no-rebase", "--no-edit")
    return bob, shared


def test_an_upstream_line_withheld_by_the_merge_is_no_local_claim(
    tmp_path: Path,
) -> None:
    bob, shared = _pulled(tmp_path)
    merged = (bob / LEDGER).read_text(encoding="utf-8")
    assert WITHHELD_FORGOTTEN in merged and "makefile" not in merged.lower()
    report = cli(bob, "sync")

    assert (report["imported"], report["claimed"], report["skipped"]) == (0, [], 1)
    [named] = [item for item in report["items"] if shared in json.dumps(item)]
    assert "review.review_reason holds content" in json.dumps(named)
    with Store.open(bob) as store:
        held = store.conn.execute("SELECT count(*) FROM memories WHERE id = ?", (shared,))
        assert held.fetchone()[0] == 0
        waiting = store.conn.execute("SELECT count(*) FROM memories WHERE trust = 'pending'")
        assert waiting.fetchone()[0] == 0
    assert "makefile" not in (bob / LEDGER).read_text(encoding="utf-8").lower()


def test_a_line_that_is_not_the_upstreams_withheld_is_still_a_claim(tmp_path: Path) -> None:
    """The same id with other words (a hand edit beside the withholding) is a claim."""
    bob, _ = _pulled(tmp_path)
    lines = (bob / LEDGER).read_text(encoding="utf-8").splitlines()
    edited = [
        text.replace(SHARED, SHARED + " and the release targets") if SHARED in text else text
        for text in lines
    ]
    (bob / LEDGER).write_text("\n".join(edited) + "\n", encoding="utf-8")
    report = cli(bob, "sync")

    assert len(report["claimed"]) == 1 and report["imported"] == 0
