"""`maintain --suggest`: memories a person may want to look at, and why.

Three kinds, each a list of ids with the reason, for a person to decide
(approve, reject, refute, forget); nothing here changes anything:

- refuted: disputed rows still on record, with why (an agent's refutation,
  or a contradiction waiting for review).
- unused: live, believed memories recorded more than `UNUSED_DAYS` days ago
  that the usage log shows neither injected by a brief nor recalled in that
  time. The log is bounded, so a project with more history than it holds
  may list memories used before its oldest line; the report says how far
  back the log reaches.
- stale: memories on record whose anchored files changed or went since
  they were written or a person confirmed them (`read/staleness`), judged
  against this checkout's files.

A person's report covers every partition; an agent's (`reader`, its
identity) the rows its recall reads (`live.visible`), as `stale` and
`audit findings` do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tree_ring.govern import reasons
from tree_ring.model.identity import Identity
from tree_ring.store import refutations, usage_log, usage_rows
from tree_ring.store.db import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.read.forgotten_here import ForgottenHere

UNUSED_DAYS = 90
DAY_NS = 86_400 * 1_000_000_000


@dataclass(frozen=True)
class Suggestion:
    kind: str  # refuted | unused | stale
    id: str
    summary: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "summary": self.summary, "why": self.why}


@dataclass
class Suggestions:
    items: list[Suggestion] = field(default_factory=lambda: [])
    log_since: str | None = None  # the oldest line the usage log still holds
    skipped: int = 0
    notes: list[str] = field(default_factory=lambda: [])
    stale_checked: bool = False  # whether anchored files were judged (`stale_ids`)

    def of(self, kind: str) -> list[Suggestion]:
        return [s for s in self.items if s.kind == kind]


def stale_ids(
    store: Store, project_id: str, reader: Identity | None = None
) -> dict[str, tuple[str, str]]:
    """Each stale memory of the project (of `reader`'s rows): id -> (its summary,
    what changed in its anchored files: `src/x.py changed since 2026-11-30; ...`)."""
    from tree_ring.read import staleness, withheld
    from tree_ring.store.live import View

    # A sensitive row's text is not the report's to print (`read/withheld.py`).
    return {
        memory.id: (withheld.summary(memory, View()), "; ".join(c.words() for c in changed))
        for memory, changed in staleness.project_stale(store, project_id, reader)
    }


def suggest(
    store: Store,
    project_id: str,
    now_ns: int,
    days: int = UNUSED_DAYS,
    *,
    reader: Identity | None = None,
    forgotten: ForgottenHere | None = None,
) -> Suggestions:
    """The suggestions of every partition, or of the rows `reader` may read;
    none of a row whose content the other store a project reads forgot
    (`forgotten`, `read/forgotten_here.py`), which every read leaves out."""
    found = Suggestions()
    db = store.db
    disputed = usage_rows.disputed(db, project_id, reader)
    waiting = refutations.find(db, [row[0] for row in disputed])
    # Each reason as a read may show it (`govern/reasons.shown`).
    withholding = reasons.Withholding(db)
    for memory_id, summary, _ring, _created, reason, shown in disputed:
        refuted = waiting.get(memory_id)
        why = withholding.reason(project_id, reason)
        if refuted is not None:
            # A refutation's words about a sensitive row stay with its withheld text.
            said = withholding.reason(project_id, refuted.reason) if shown else summary
            why = f"refuted by {refuted.origin}: {said}"
        found.items.append(Suggestion("refuted", memory_id, summary, why or "disputed"))
    for memory_id, (summary, why) in sorted(stale_ids(store, project_id, reader).items()):
        found.items.append(Suggestion("stale", memory_id, summary, why))
    found.stale_checked = True
    cutoff = usage_log.iso(now_ns - days * DAY_NS)
    read = usage_log.read(store.root)
    found.skipped, found.notes = read.skipped, list(read.notes)
    found.log_since = str(read.entries[0]["at"]) if read.entries else None
    used: set[str] = set()
    for entry in read.entries:
        if entry["event"] != "checkpoint" and str(entry["at"]) >= cutoff:
            used.update(entry["ids"])
    for memory_id, summary, _ring, created in usage_rows.older_than(db, project_id, cutoff, reader):
        if memory_id not in used:
            why = f"recorded {created[:10]}; neither injected nor recalled in {days} days"
            found.items.append(Suggestion("unused", memory_id, summary, why))
    if forgotten is not None:
        gone = forgotten.hidden_ids(db, {item.id for item in found.items})
        found.items = [item for item in found.items if item.id not in gone]
    return found
