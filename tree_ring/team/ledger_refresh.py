"""The SessionStart hook's import of a changed team ledger.

The change alone (`ledger_delta.py`) when it can be read apart from the rest;
what it leaves to apply goes through `sync.apply_lines`, in one transaction
with the record of what was seen; otherwise the full pass (`sync.refresh`),
a bounded part per session when the ledger is large (`ledger_catchup.py`).
`sync.py` is imported only when a line must be applied.
"""

from __future__ import annotations

from tree_ring.team import ledger_delta
from tree_ring.team.ledger_delta import FullPass, Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.db import Store


def refresh(store: Store, root: str, project_id: str, notes: list[str] | None = None) -> str:
    """What the pass took: "unchanged" (only the file's time moved), "seen"
    (nothing new to apply), "applied" (the change), "full" (the full pass) or
    "part" (a part of it, `ledger_catchup.py`: lines remain for the next
    session). The full pass's notes for a person (a shallow clone, the lines
    that remain) go into `notes`."""
    try:
        found = ledger_delta.delta(store, root, project_id)
        if not isinstance(found, Work):
            return found
        return _apply(store, root, project_id, found)
    except FullPass:
        from pathlib import Path

        from tree_ring.team import ledger_catchup

        report, left = ledger_catchup.refresh(store, Path(root), project_id)
        if notes is not None:
            notes += ([] if report is None else report.notes) + ([left] if left else [])
        return "part" if left else "full"


def _apply(store: Store, root: str, project_id: str, work: Work) -> str:
    from tree_ring.team import sync

    up = work.up
    with store.write() as db:
        report = sync.apply_lines(
            db,
            root,
            project_id,
            b"\n".join(sorted(work.lines)),
            up.ref,
            up.oid,
            work.theirs,
            work.ids,
        )
        work.remember(db, report.claim_lines)
    sync.settle(store, report)
    return "applied"
