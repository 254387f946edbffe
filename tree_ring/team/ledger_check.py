"""`doctor` on the team ledger: conflicts a text merge left, and the audit anchor.

Kept apart from `doctor.py`, whose checks read only the store: this one reads
the ledger file and git's index, and repairs the file, never the store.
"""

from __future__ import annotations

from pathlib import Path

from tree_ring.model import jsontext, project
from tree_ring.model.errors import TreeRingError, UnsafePath
from tree_ring.store import settings
from tree_ring.store.sql import Db
from tree_ring.team import ledger, sync
from tree_ring.team import repository as team


def check(root: Path, db: Db, *, repair: bool) -> tuple[bool, str, bool, str] | None:
    """(ok, detail, repairable, repaired), or None when there is no ledger."""
    path = sync.path_of(root)
    try:
        # Its kind before any read: a FIFO there would hold the read forever.
        if not project.expect(path, "file", project.LEDGER_FIX):
            return None
    except UnsafePath as exc:
        return (False, str(exc), False, "")
    name = f"{project.DIR}/{ledger.PATH}"
    found = team.resolve(root)
    if found is not None:
        if not repair:
            return (
                False,
                f"{name} holds {found.conflicts} conflict(s) from a text merge "
                "(git's merge driver for it is not configured here)",
                True,
                "",
            )
        done = team.repair(root)
        assert done is not None
        repaired = (
            f"resolved {done.conflicts} conflict(s) in {name} by the ledger's rule from "
            f"{done.source}; run `git add {name}`, then `tree-ring sync`"
        )
        return (True, "no conflicts", True, repaired)
    anchor = _own_anchor(path, db)
    problem = sync.anchor_problem(db, anchor) if anchor is not None else None
    if problem:
        return (False, problem, False, "")
    driver = "" if team.driver_configured(root) else "; merge driver not configured (run init)"
    return (True, f"{name}: no conflicts, audit anchor ok{driver}", False, "")


def _own_anchor(path: Path, db: Db) -> ledger.Line | None:
    try:
        clone = settings.stored(db, "ledger")
    except TreeRingError:  # a store too damaged or too old to say: nothing anchored
        return None
    state = jsontext.as_object(clone)
    mine = state.get("clone") if state is not None else None
    if not mine:
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    for line in ledger.loose(ledger.numbered(text)):
        if line.data.get("record") == ledger.ANCHOR and line.data.get("clone") == mine:
            return line
    return None
