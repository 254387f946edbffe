"""Promote: a person's decision that a partition memory is shared knowledge.

An agent's capture or note lands in its own partition (agent, workflow or
session scope), where only that harness's sessions see it. Promoting moves it
into a shared scope of the project, in place: the same id, origin, source,
session and history, so the brief of every harness in the project can show
it from the next session on. `--scope global` instead moves it into the
person's own store (`store/user.py`), where every project's brief sees it:
the row is copied there under the same id (audited there as a promotion) and
retired in the project (audited here), user store first, so a promote cut
short between the two completes when it is run again. Both happen while the
project's write lock is held, so a forget of the row comes wholly before the
promote (which then writes nothing) or wholly after it.

A promote is a review decision: a person's, or the coordinator's (PERSON_ONLY
in `govern/coordinator.py`); an agent's is refused and the refusal recorded.
Only a live, accepted, partition row can be promoted: pending and disputed
rows go through `review approve` first; rejected, forgotten, superseded and
expired rows are gone; a row already in a shared scope has nothing to gain.
A row whose text a newer guard rule reads as a secret is refused, not spread.
Every refusal is one line and changes nothing but the policy audit's record
of a denial.
"""

from __future__ import annotations

from tree_ring import guard
from tree_ring.govern import admission, coordinator, reasons
from tree_ring.model.errors import Conflict, UsageError
from tree_ring.model.frozen import Frozen
from tree_ring.model.record import PRIVATE_SCOPES, RINGS, SHARED_SCOPES, Memory, now_iso
from tree_ring.store import audit, rows, tombstones
from tree_ring.store.user import USER_PROJECT
from tree_ring.tree import seal
from tree_ring.write import correct, pipeline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_ring.model.actor import Actor
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db

GLOBAL = "global"
# Where a promote may send a memory: the project's shared scopes, and the
# person's own store. `global` in a project store is what the original's
# imports wrote; a promote to it means the user store.
TARGETS = (*(s for s in SHARED_SCOPES if s != GLOBAL), GLOBAL)


class Promoted(Frozen):
    id: str
    scope: str  # where it is now
    ring: str
    store: str  # "project" or "user"
    from_scope: str
    reason: str
    at: str
    # Agents' notes in their own partitions it contradicts, now disputed.
    disputes: tuple[str, ...] = ()


def check(memory: Memory, now: str) -> None:
    """Refuse, with what to do instead, a row that cannot be promoted."""
    if memory.redacted_at is not None:
        raise Conflict(f"{memory.id} was forgotten (redacted); there is nothing to promote")
    if memory.trust == "rejected":
        raise Conflict(f"{memory.id} was rejected in review; it cannot be promoted")
    if memory.superseded_by is not None:
        raise Conflict(
            f"{memory.id} was superseded by {memory.superseded_by}; promote that one instead"
        )
    if memory.retired_at is not None:
        raise Conflict(f"{memory.id} was retired; it cannot be promoted")
    if memory.expires_at is not None and memory.expires_at <= now:
        raise Conflict(f"{memory.id} expired at {memory.expires_at}; it cannot be promoted")
    if memory.trust != "accepted":
        raise Conflict(
            f"{memory.id} is {memory.trust}; decide it first "
            f"(`tree-ring review approve {memory.id}` or `review reject`)"
        )
    if memory.scope not in PRIVATE_SCOPES:
        raise Conflict(
            f"{memory.id} is already in the shared {memory.scope} scope; nothing to promote"
        )
    # A row stored before a newer guard rule: spreading it would spread the secret.
    guard.check_fields(memory.text_fields())


def _target(scope: str, ring: str | None) -> None:
    if scope not in TARGETS:
        raise UsageError(f"promote takes --scope {' or '.join(TARGETS)}; got {scope!r}")
    if ring is not None and ring not in RINGS:
        raise UsageError(f"unknown ring {ring!r}; use one of: {', '.join(RINGS)}")


def _action(ring: str) -> str:
    # Heartwood is durable truth: in coordinated mode it needs the capability
    # as approving heartwood does.
    return "review.promote" if ring == "heartwood" else "promote"


def promote_in(
    db: Db, memory: Memory, *, scope: str, ring: str | None, reason: str, actor: Actor, at: str
) -> Promoted:
    """Promote within the project, in the caller's transaction."""
    new_ring = ring or memory.ring
    coordinator.authorize(db, _action(new_ring), actor, memory.id)
    check(memory, at)
    # As any write into the shared scope: what the project forgot, or the
    # person's user store (a person's promote writes into the store that
    # answers to it, `Project.store_to_write`), stays out of it and so out
    # of the team ledger, though the partition row was hidden, not taken.
    stone = tombstones.find(db, memory.project, tombstones.check_keys(memory))
    if stone is not None:
        raise tombstones.refused(stone)
    # The reason becomes the row's review reason, which its ledger line carries.
    reasons.kept(db, memory.project or "", reason, reasons.ON_MEMORY)
    rows.update(
        db,
        memory.id,
        scope=scope,
        ring=new_ring,
        review_reason=reason,
        reviewed_by=actor.name,
        reviewed_at=at,
        updated_at=at,
    )
    detail = {"from": memory.scope, "to": scope, "ring": new_ring, "reason": reason}
    audit.record(db, actor, "promote", memory.id, detail, changed=[memory.id], at=at)
    # Now shared and believed, it joins the project's summary tree, and an
    # agent's note that contradicts it waits, disputed, as for a person's write.
    promoted = rows.get(db, memory.id)
    seal.on_insert(db, promoted)
    disputed = tuple(admission.dispute_in(db, promoted, actor, at))
    return Promoted(memory.id, scope, new_ring, "project", memory.scope, reason, at, disputed)


def promote(
    store: Store,
    memory_id: str,
    *,
    actor: Actor,
    reason: str,
    scope: str = "project",
    ring: str | None = None,
    user_store: Store | None = None,
) -> Promoted:
    """Promote one memory; see the module's docstring for what is refused."""
    return promote_many(
        store, [memory_id], actor=actor, reason=reason, scope=scope, ring=ring,
        user_store=user_store,
    )[0]  # fmt: skip


def promote_many(
    store: Store,
    memory_ids: Iterable[str],
    *,
    actor: Actor,
    reason: str,
    scope: str = "project",
    ring: str | None = None,
    user_store: Store | None = None,
) -> list[Promoted]:
    """Promote each memory in order; within the project all in one transaction
    (one refusal leaves every row as it was)."""
    ids = list(dict.fromkeys(memory_ids))
    _target(scope, ring)
    reason = correct.check_reason(reason)
    if scope == GLOBAL:
        return [_to_user(store, user_store, i, ring, reason, actor) for i in ids]
    at = now_iso()
    with store.write() as db:
        return [
            promote_in(
                db, rows.get(db, i), scope=scope, ring=ring, reason=reason, actor=actor, at=at
            )
            for i in ids
        ]


def _to_user(
    store: Store,
    user_store: Store | None,
    memory_id: str,
    ring: str | None,
    reason: str,
    actor: Actor,
) -> Promoted:
    at = now_iso()
    # One transaction of the project's, holding its write lock from the check
    # to the retirement, with the user store's write inside it: a forget of
    # the row either commits first, and the check refuses with nothing
    # written to the user store, or waits until the promote is done and then
    # forgets the retired row as after any promote. Checked in one
    # transaction and retired in another, a forget committed between them
    # left the forgotten text in the user store, every project's brief.
    # No write holds the user store's lock while it waits for a project's,
    # so the two cannot wait on each other.
    with store.write() as db:
        memory = rows.get(db, memory_id)
        new_ring = ring or memory.ring
        coordinator.authorize(db, _action(new_ring), actor, memory_id)
        check(memory, at)
        if user_store is None:
            raise UsageError("promote --scope global needs the user store; open or create it")
        copy = memory.replace(
            project=USER_PROJECT,
            scope=GLOBAL,
            ring=new_ring,
            review_reason=reason,
            reviewed_by=actor.name,
            reviewed_at=at,
            updated_at=at,
            links=(),  # links name rows of the project's store
        )
        copy = pipeline.prepare(copy)
        # User store first: a promote cut short after this commit (a killed
        # process) leaves the project's row live, and completes when run again.
        with user_store.write() as udb:
            coordinator.authorize(udb, _action(new_ring), actor, memory_id)
            # The copy's review reason: every project's reads of the user
            # store show it, this one's among them.
            reasons.kept(udb, USER_PROJECT, reason, reasons.ON_MEMORY, (db, memory.project or ""))
            if rows.find(udb, memory_id) is None:
                # As any write: the user store's tombstones refuse what was
                # forgotten there, and the project's what was forgotten here.
                pipeline.insert_prepared(udb, copy, actor, action="promote", admit=False)
        rows.update(db, memory_id, retired_at=at, updated_at=at)
        detail = {"from": memory.scope, "to": "user store", "ring": new_ring, "reason": reason}
        audit.record(db, actor, "promote", memory_id, detail, changed=[memory_id], at=at)
    return Promoted(memory_id, GLOBAL, new_ring, "user", memory.scope, reason, at)
