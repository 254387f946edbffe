"""`tree-ring maintain`: expiry, a secret sweep with today's guard, and compaction.

Report-only unless asked. What it applies goes through `correct.forget_in`,
the same transactional path as `forget`, so every removal leaves a content
tombstone, an audit entry with its reason, and no trace in the FTS indexes:

- `--apply-expired` deletes expired rows whose retention is temporary
  (ephemeral, normal, forget_after_date). A protected row (ring scar or
  heartwood, retention durable or user_pinned) is only flagged, as in the
  original: a person decides whether an old lesson still holds. No read shows
  an expired row either way (see `live.py`); this is about the file.
- `--apply-secret-sweep` runs the guard over every stored row's text and
  redacts any row that a rule added since it was written now catches.
- `--vacuum` merges the FTS indexes and rewrites the file without free pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tree_ring import guard
from tree_ring.govern import coordinator
from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.record import Memory, now_iso
from tree_ring.store import fts, maintenance, meaning, pages, rows
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct

PROTECTED_RINGS = ("scar", "heartwood")
PROTECTED_RETENTIONS = ("durable", "user_pinned")
EXPIRED_REASON = "expired"
# Rows are read in pages so a sweep over a million memories stays small.
PAGE = 2_000


@dataclass(frozen=True)
class Expired:
    id: str
    ring: str
    retention: str
    expires_at: str

    @property
    def protected(self) -> bool:
        return self.ring in PROTECTED_RINGS or self.retention in PROTECTED_RETENTIONS


@dataclass(frozen=True)
class SecretHit:
    id: str
    field: str
    rule: str


@dataclass
class MaintainReport:
    now: str
    memories: int = 0
    expired: list[Expired] = field(default_factory=lambda: [])
    secrets: list[SecretHit] = field(default_factory=lambda: [])
    deleted: list[str] = field(default_factory=lambda: [])
    redacted: list[str] = field(default_factory=lambda: [])
    vacuumed: bool = False
    bytes_before: int = 0
    bytes_after: int = 0

    @property
    def deletable(self) -> list[Expired]:
        return [e for e in self.expired if not e.protected]

    @property
    def flagged(self) -> list[Expired]:
        return [e for e in self.expired if e.protected]

    def to_dict(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "memories": self.memories,
            "expired_deletable": [e.id for e in self.deletable],
            "expired_protected": [
                {"id": e.id, "ring": e.ring, "retention": e.retention, "expires_at": e.expires_at}
                for e in self.flagged
            ],
            "secrets": [{"id": s.id, "field": s.field, "rule": s.rule} for s in self.secrets],
            "deleted": self.deleted,
            "redacted": self.redacted,
            "vacuumed": self.vacuumed,
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
        }


def find_expired(db: Db, now: str) -> list[Expired]:
    found = maintenance.expired(db, now)
    return [Expired(r["id"], r["ring"], r["retention"], r["expires_at"]) for r in found]


def secret_in(memory: Memory) -> SecretHit | None:
    """The first text field a guard rule catches, with the rule's name."""
    for name, text in memory.text_fields().items():
        rule = guard.find_secret(text)
        if rule is not None:
            return SecretHit(memory.id, name, rule)
    return None


def find_secrets(store: Store) -> list[SecretHit]:
    hits: list[SecretHit] = []
    last = -1
    while True:
        page = maintenance.unredacted_after(store.db, last, PAGE)
        if not page:
            return hits
        for row in page:
            hit = secret_in(rows.from_row(row))
            if hit is not None:
                hits.append(hit)
        last = page[-1]["rid"]


def maintain(
    store: Store,
    actor: Actor,
    *,
    apply_expired: bool = False,
    apply_secret_sweep: bool = False,
    vacuum: bool = False,
    now: str | None = None,
) -> MaintainReport:
    now = now or now_iso()
    report = MaintainReport(now)
    report.bytes_before = project.store_bytes(store.db.path)
    report.memories = maintenance.count(store.db)
    report.expired = find_expired(store.db, now)
    report.secrets = find_secrets(store)
    if apply_expired and report.deletable:
        with store.write() as db:
            coordinator.authorize(db, "maintain.apply", actor, f"expired:{len(report.deletable)}")
            for item in report.deletable:
                # Re-read inside the transaction: another process may have
                # changed or removed the row since the plan was made.
                memory = rows.find(db, item.id)
                if memory is None or memory.expires_at is None or memory.expires_at > now:
                    continue
                reason = (
                    f"{EXPIRED_REASON} at {memory.expires_at[:19]}Z (retention {memory.retention})"
                )
                correct.forget_in(db, memory, "delete", reason, actor, now)
                report.deleted.append(item.id)
    if apply_secret_sweep and report.secrets:
        with store.write() as db:
            coordinator.authorize(db, "maintain.apply", actor, "secret-sweep")
            for hit in report.secrets:
                memory = rows.find(db, hit.id)
                if memory is None or memory.redacted_at is not None:
                    continue
                current = secret_in(memory)
                if current is None:
                    continue
                reason = f"secret sweep: {current.field} matches guard rule {current.rule}"
                correct.forget_in(db, memory, "redact", reason, actor, now)
                report.redacted.append(hit.id)
    if report.deleted or report.redacted:
        correct.scrub(store)  # forgotten words leave the index and the free pages
    if vacuum:
        with store.write() as db:
            coordinator.authorize(db, "maintain.apply", actor, "vacuum")
            fts.optimize(db)
        # Memories written while the vector table was missing have no
        # meaning code (store/meaning.py): coded here, a page of rowids to a
        # transaction; codes another vector table made are all made again,
        # and codes edited outside Tree Ring are deleted and made again.
        if meaning.stale(store.db):
            with store.write() as db:
                meaning.recode(db)
        else:
            with store.write() as db:
                meaning.drop_unsound(db)
            top = rows.last_rowid(store.db)
            for low in range(0, top, PAGE * 10):
                with store.write() as db:
                    meaning.code_missing(db, low, low + PAGE * 10)
        # VACUUM cannot run inside a transaction; it takes the lock itself.
        pages.vacuum(store.db)
        pages.checkpoint(store.db)
        report.vacuumed = True
    report.bytes_after = project.store_bytes(store.db.path)
    return report
