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

An expiry deletes a row with the authority of whoever wrote it, never of
whoever runs maintain (`expiry`): the writer chose when it ends, so running
maintain decides nothing about its content. A row no person stands behind
(an agent's note no person approved or promoted, or any row waiting for
review) is deleted as its writer's end of it, with no tombstone: an expiry
says nothing against its words, and a recurring note ("the deploy freeze
holds") is written again next time. Any other row is a person's: its
expiry is a person's forget, which only a person's maintain (or the
coordinator's) applies. An agent's maintain leaves what it could not forget itself, and
says so, writing nothing for it: a person's row, and an agent's row the
team ledger already carries (an agent's writes reach the ledger only at its
next sync, whose reading of the ledger's line would bring the row back).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tree_ring import guard
from tree_ring.govern import admission, coordinator
from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.record import PRIVATE_SCOPES, Memory, now_iso
from tree_ring.store import fts, maintenance, meaning, pages, rows
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct

PROTECTED_RINGS = ("scar", "heartwood")
PROTECTED_RETENTIONS = ("durable", "user_pinned")
EXPIRED_REASON = "expired"
# Rows are read in pages so a sweep over a million memories stays small.
PAGE = 2_000
# How an expiry is applied (`expiry`): its writer's withdrawal, a person's
# forget, or left for a person by an agent's maintain.
WITHDRAWN, FORGOTTEN, LEFT = "withdrawn", "forgotten", "left"


@dataclass(frozen=True)
class Expired:
    id: str
    ring: str
    retention: str
    expires_at: str
    # How its expiry is applied for the caller (`expiry`).
    how: str = FORGOTTEN

    @property
    def protected(self) -> bool:
        return protected(self.ring, self.retention)

    def said(self) -> dict[str, str]:
        return {"id": self.id, "ring": self.ring, "retention": self.retention,
                "expires_at": self.expires_at}  # fmt: skip


def protected(ring: str, retention: str) -> bool:
    """Whether an expired row of `ring` and `retention` is only flagged: a
    person decides whether an old lesson still holds."""
    return ring in PROTECTED_RINGS or retention in PROTECTED_RETENTIONS


def stands_behind(memory: Memory) -> bool:
    """Whether a person stands behind `memory`: they wrote it, or approved or
    promoted it (`admission.vouched`), and it is not waiting for review."""
    return admission.vouched(memory) and memory.trust != "pending"


def expiry(memory: Memory, asks: bool) -> str:
    """How `memory`'s expiry is applied, with its writer's authority, for a
    caller that `asks` a person for what it did not write itself (an agent
    without the coordinator capability, `correct.asks`) or not.

    WITHDRAWN: no person stands behind it, so its deletion is its writer's
    withdrawal, whoever runs maintain, but for an agent's row the team
    ledger carries (accepted into a shared scope), which an agent leaves.
    FORGOTTEN: a person's row, deleted as a person's forget. LEFT: a row the
    caller could not forget itself, left for a person."""
    if not stands_behind(memory):
        shared = memory.scope not in PRIVATE_SCOPES and memory.trust != "pending"
        return LEFT if asks and shared else WITHDRAWN
    return LEFT if asks else FORGOTTEN


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
    # Of `deleted`, those withdrawn: their writer's withdrawal (`expiry`).
    withdrew: list[str] = field(default_factory=lambda: [])
    redacted: list[str] = field(default_factory=lambda: [])
    vacuumed: bool = False
    bytes_before: int = 0
    bytes_after: int = 0

    @property
    def deletable(self) -> list[Expired]:
        """What `--apply-expired` deletes for this caller."""
        return [e for e in self.expired if not e.protected and e.how != LEFT]

    @property
    def withdrawn(self) -> list[Expired]:
        """Of `deletable`, those whose deletion is their writer's withdrawal."""
        return [e for e in self.deletable if e.how == WITHDRAWN]

    @property
    def flagged(self) -> list[Expired]:
        return [e for e in self.expired if e.protected]

    @property
    def left(self) -> list[Expired]:
        """What this caller (an agent) leaves for a person to delete."""
        return [e for e in self.expired if not e.protected and e.how == LEFT]

    def to_dict(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "memories": self.memories,
            "expired_deletable": [e.id for e in self.deletable],
            "expired_withdrawn": [e.id for e in self.withdrawn],
            "expired_protected": [e.said() for e in self.flagged],
            "expired_for_person": [e.said() for e in self.left],
            "secrets": [{"id": s.id, "field": s.field, "rule": s.rule} for s in self.secrets],
            "deleted": self.deleted,
            "withdrew": self.withdrew,
            "redacted": self.redacted,
            "vacuumed": self.vacuumed,
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
        }


def find_expired(db: Db, now: str, asks: bool = False) -> list[Expired]:
    """The rows expired at `now`, each with how its expiry is applied for a
    caller that `asks` (`expiry`)."""
    found = [rows.from_row(row) for row in maintenance.expired(db, now)]
    return [Expired(m.id, m.ring, m.retention, m.expires_at or now, expiry(m, asks)) for m in found]


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
    report.expired = find_expired(store.db, now, correct.asks(store.db, actor))
    report.secrets = find_secrets(store)
    if apply_expired and report.deletable:
        with store.write() as db:
            coordinator.authorize(db, "maintain.apply", actor, f"expired:{len(report.deletable)}")
            asks = correct.asks(db, actor)
            for item in report.deletable:
                # Re-read and judged again inside the transaction: another
                # process may have changed, approved or removed the row since
                # the plan was made.
                memory = rows.find(db, item.id)
                if memory is None or memory.expires_at is None or memory.expires_at > now:
                    continue
                how = expiry(memory, asks)
                if how == LEFT or protected(memory.ring, memory.retention):
                    continue
                reason = (
                    f"{EXPIRED_REASON} at {memory.expires_at[:19]}Z (retention {memory.retention})"
                )
                withdraw = how == WITHDRAWN
                correct.forget_in(
                    db, memory, "delete", reason, actor, now, withdraw=withdraw,
                    keep_out=not withdraw,
                )  # fmt: skip
                report.deleted.append(item.id)
                if withdraw:
                    report.withdrew.append(item.id)
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
