"""The SessionStart hook's import of a changed team ledger.

The change alone (`ledger_delta.py`) when it can be read apart from the rest;
what it leaves to apply goes through `sync.apply_lines`, in one transaction
with the record of what was seen; otherwise the full pass (`sync.refresh`),
a bounded part per session when the ledger is large (`ledger_catchup.py`).
`sync.py` is imported only when a line must be applied.
"""

from __future__ import annotations

from tree_ring.model import project
from tree_ring.team import ledger_delta
from tree_ring.team.ledger_delta import FullPass, Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.db import Store


def refresh(store: Store, root: str, project_id: str, notes: list[str] | None = None) -> str:
    """What the pass took: "unchanged" (only the file's time moved), "seen"
    (nothing new to apply), "applied" (the change), "full" (the full pass) or
    "part" (a part of it, `ledger_catchup.py`: lines remain for the next
    session). What a person reads goes into `notes`: the full pass's notes
    (a shallow clone, the lines that remain), and each line either pass read
    and skipped, named as `sync` names it (`ledger_report.named`). The
    change alone reads only the memory, tombstone and redaction lines it
    applies: a line it cannot read as one (not JSON, too long, an anchor, a
    record this version does not know) it passes over unread and unnamed."""
    said: list[str] = [] if notes is None else notes
    try:
        found = ledger_delta.delta(store, root, project_id)
        if not isinstance(found, Work):
            return found
        return _apply(store, root, project_id, found, said)
    except FullPass:
        from pathlib import Path

        from tree_ring.team import ledger_catchup
        from tree_ring.team.ledger_report import named

        report, left = ledger_catchup.refresh(store, Path(root), project_id)
        if report is not None:
            said += report.notes + named(report.skipped, NAME, SHOWN)
        said += [left] if left else []
        return "part" if left else "full"


# How the hook names the ledger, and how many of the lines it skipped it names.
NAME = f"{project.DIR}/{project.LEDGER}"
SHOWN = 5


def _apply(store: Store, root: str, project_id: str, work: Work, notes: list[str]) -> str:
    from tree_ring.team import sync
    from tree_ring.team.ledger_report import named

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
            whole=work.now,
        )
        work.remember(db, report.claim_lines)
    sync.settle(store, report)
    notes += report.notes + named(report.skipped, NAME, SHOWN)
    return "applied"
