"""The review queue and a reviewer's decisions: approve, reject, dispute.

The queue is every pending or disputed row of the project that is still on
record (not retired, not redacted), oldest first, each with the reason it
waits. `status` shows its size so it cannot fill up unnoticed.

A decision is a person's, or the coordinator's: an agent's is refused by
`coordinator.authorize` (PERSON_ONLY). Each one is stored on the row (reviewed_by,
reviewed_at, review_reason) and in the audit log, in one transaction.

- approve: the row becomes accepted (tombstoned content only when a person
  wrote it over those tombstones, `write/readmit.py`); replacements it was waiting to make
  (`remember --supersedes`, `supersede`) take effect now; with `supersede`,
  the live rows it contradicts are superseded by it too.
- reject: the row is retired and its content tombstoned (kind "rejected"), so
  the same claim cannot come back under a new id, through remember, capture or
  import; the copies agents wrote of the same claim (in any spelling the
  tombstone folds, `correct.agent_copies`) are rejected with it, and the
  words leave the summary tree. Only a memory a person stands behind that
  holds now (`admission.shields`) keeps the claim writable.
- dispute: the row stays on record and stops being believed; the
  consolidations citing it retire (`propagate.retired`), so none goes on
  stating it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tree_ring.govern import admission, coordinator, reasons
from tree_ring.guard import messages
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict
from tree_ring.model.identity import Identity
from tree_ring.model.record import PRIVATE_SCOPES, Memory, now_iso
from tree_ring.read import withheld
from tree_ring.store import audit, holders, live, refutations, rows, tombstones
from tree_ring.store import queue as store_queue
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.tree import seal
from tree_ring.write import correct, propagate, readmit, requests

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.read.forgotten_here import ForgottenHere


@dataclass(frozen=True)
class Waiting:
    memory: Memory
    contradicts: tuple[Memory, ...]  # the rows it is linked to by `contradicts`


@dataclass(frozen=True)
class Decision:
    id: str
    decision: str  # approve | reject | dispute
    trust: str
    reason: str
    reviewed_by: str
    reviewed_at: str
    superseded: tuple[str, ...] = ()  # rows retired by this approval
    request: requests.Request | None = None  # set when the decision was on a request to forget
    lingering: str | None = None  # see `correct.scrub`
    tombstoned: bool = True  # a rejection's content kept out (not when an accepted row holds it)
    copies: tuple[str, ...] = ()  # the copies agents wrote of the claim, rejected with it
    # What approving a request to forget did, as a direct forget says it.
    forgotten: correct.Forgotten | None = None
    # The shared scope an approved replacement took from the rows it retired.
    shared: str | None = None
    # Agents' notes in their own partitions the approved row contradicts, now disputed.
    disputes: tuple[str, ...] = ()

    def said(self) -> list[str]:
        """What a decision on a memory did, as every client says it: the
        outcome, then the copies rejected with it, if any. On a request: what
        approving it did (the content tombstoned, or kept writable by another
        accepted memory), or that rejecting it left the memory as it is."""
        if self.request is not None:
            r = self.request
            if self.decision != "approve":
                return [f"rejected {r.id}: {r.memory_id} stays as it is"]
            done = requests.approved_words(r)
            text = f"approved {r.id}: {r.memory_id} {done} by {self.reviewed_by}"
            if self.forgotten is not None:
                text += f"; {self.forgotten.outcome()}"
            return [text]
        done = {"approve": "approved", "reject": "rejected", "dispute": "disputed"}
        text = f"{done[self.decision]} {self.id} (now {self.trust}) by {self.reviewed_by}"
        if self.decision == "reject" and self.tombstoned:
            text += "; its content is tombstoned and will not be stored again"
        elif self.decision == "reject":
            text += "; an accepted memory holds the same text, so it stays writable"
        if self.superseded:
            text += f"; it supersedes {', '.join(self.superseded)}"
        if self.shared is not None:
            whose = "its" if len(self.superseded) == 1 else "their"
            text += f" and takes {whose} {self.shared} scope"
        lines = [text]
        if self.copies:
            n = len(self.copies)
            noun = "copy an agent" if n == 1 else "copies agents"
            lines.append(
                f"also rejected {n} {noun} wrote of the same claim: {', '.join(self.copies)}"
            )
        return lines + admission.disputes_said(self.disputes)


def queue(
    db: Db,
    project: str | None,
    reader: Identity | None = None,
    forgotten: ForgottenHere | None = None,
) -> list[Waiting]:
    """The rows that wait, oldest first; with `reader` (an agent's identity),
    those it may read, each with the rows it contradicts that it may read.
    Each row's review reason is as a read may show it (`reasons.shown`).
    A row whose content the other store forgot (`forgotten`) stays, for it
    still waits for a person's decision, but its words are withheld
    (`withheld.forgotten`), as every other read of the project leaves them out."""
    waiting: list[Waiting] = []
    for row in store_queue.waiting(db, project, reader):
        memory = reasons.memory_shown(db, rows.from_row(row))
        others = [
            rows.find(db, link.target)
            for link in memory.links
            if link.type == admission.CONTRADICTS
            and (reader is None or live.sees(db, reader, link.target))
        ]
        waiting.append(Waiting(memory, tuple(m for m in others if m is not None)))
    if forgotten is None or not waiting:
        return waiting
    gone = forgotten.hidden([m for w in waiting for m in (w.memory, *w.contradicts)])

    def shown(memory: Memory) -> Memory:
        return withheld.forgotten(memory) if memory.id in gone else memory

    return [Waiting(shown(w.memory), tuple(map(shown, w.contradicts))) for w in waiting]


def queue_size(db: Db, project: str | None, reader: Identity | None = None) -> int:
    return store_queue.size(db, project, reader)


def requests_waiting(db: Db, project: str | None) -> int:
    """How many requests to forget or confirm wait for a person (`review list` lists them)."""
    from tree_ring.store import forget_requests

    return forget_requests.waiting_count(db, project or "")


def waiting_requests(
    db: Db, project: str | None, view: View, reader: Identity | None = None
) -> list[requests.Request]:
    """The project's requests that wait for a person, oldest first, as a read
    under `view` may show them: every client's review listing reads them here.
    With `reader` (an agent's identity), only those about rows it may read.
    A reason is free text and may quote the row it is about: when the read
    withholds that row's text (`read/withheld.py`), the reason is withheld
    with it, and from any reason whatever looks like a secret is taken out
    (`guard/messages.py`: a hand-edited store or ledger line is not guarded)."""
    shown: list[requests.Request] = []
    for request in requests.waiting(db, project, reader):
        memory = rows.find(db, request.memory_id)
        if memory is not None and withheld.hidden(memory, view):
            reason = withheld.marker(memory)
        else:
            reason = messages.withhold(request.reason)
            reason = messages.BARE if reason == messages.WHOLE else reason
            reason = reasons.shown(db, request.project or "", reason)
        shown.append(replace(request, reason=reason))
    return shown


def asked_about(
    db: Db,
    asked: list[requests.Request],
    view: View,
    forgotten: ForgottenHere | None = None,
) -> dict[str, str]:
    """request id -> the summary of the row it names, as a read under `view`
    may show it (a sensitive row's withheld, a forgotten quote taken out, the
    words of a row whose content the other store forgot, `forgotten`, withheld
    as the queue withholds them), so a person sees what approving would
    forget; "(no such memory)" for a request naming none."""
    withholding = reasons.Withholding(db)
    named = {r.id: rows.find(db, r.memory_id) for r in asked}
    found = [m for m in named.values() if m is not None]
    gone = forgotten.hidden(found) if forgotten is not None and found else set[str]()
    about: dict[str, str] = {}
    for request_id, memory in named.items():
        if memory is None:
            about[request_id] = "(no such memory)"
        elif memory.id in gone:
            about[request_id] = withheld.forgotten(memory).summary
        else:
            about[request_id] = withheld.summary(withholding.memory(memory), view)
    return about


def _on_record(memory: Memory) -> None:
    if memory.redacted_at is not None:
        raise Conflict(f"{memory.id} was redacted; there is nothing left to review")
    if memory.trust == "rejected":
        raise Conflict(f"{memory.id} was already rejected ({memory.review_reason})")


def _mark(
    db: Db,
    memory: Memory,
    decision: str,
    trust: str,
    reason: str,
    actor: Actor,
    at: str,
    *,
    tombstoned: list[str] | None = None,
    detail: dict[str, str] | None = None,
    **extra: str,
) -> None:
    # A person's decision settles an agent's refutation, whichever way it goes.
    refutations.clear(db, memory.id)
    rows.update(
        db,
        memory.id,
        trust=trust,
        review_reason=reason,
        reviewed_by=actor.name,
        reviewed_at=at,
        updated_at=at,
        **extra,
    )
    entry: dict[str, object] = {
        "decision": decision,
        "from": memory.trust,
        "to": trust,
        "reason": reason,
        **(detail or {}),
    }
    if tombstoned:
        entry["tombstones"] = tombstoned
    audit.record(db, actor, "review", memory.id, entry, changed=[memory.id], at=at)


def refusal(db: Db, memory: Memory) -> Conflict | None:
    """Why approving `memory` is refused for content that either store forgot
    or a review rejected (`tombstones.refused`), or None: the tombstones a
    person wrote the row over (`readmit.overridden`) let it through."""
    keys = tombstones.check_keys(memory)
    if not tombstones.find_all(db, memory.project, keys):
        return None
    # Only then the audit log is read: the tombstones a person wrote this row over.
    skip = set(readmit.overridden(db, memory.id))
    stone = tombstones.find(db, memory.project, [k for k in keys if k not in skip])
    return None if stone is None else tombstones.refused(stone)


def approve_in(
    db: Db,
    memory: Memory,
    reason: str,
    actor: Actor,
    at: str,
    *,
    supersede: bool = False,
) -> Decision:
    _on_record(memory)
    if memory.trust == "accepted":
        raise Conflict(f"{memory.id} is already accepted")
    if memory.retired_at is not None:
        raise Conflict(
            f"{memory.id} was retired on {memory.retired_at[:19]}Z; it cannot be approved"
        )
    # Approving heartwood is a promotion: in coordinated mode it needs the capability.
    action = "review.promote" if memory.ring == "heartwood" else "review.approve"
    coordinator.authorize(db, action, actor, memory.id)
    refused = refusal(db, memory)
    if refused is not None:
        raise refused
    _mark(db, memory, "approve", "accepted", reason, actor, at)
    # Now believed, it joins the project's summary tree like any accepted
    # write, and, the project's, disputes an agent's note that contradicts it.
    seal.on_insert(db, memory.replace(trust="accepted"))
    disputed = admission.dispute_in(db, rows.get(db, memory.id), actor, at)
    targets = list(memory.supersedes)
    if supersede:
        targets += [link.target for link in memory.links if link.type == admission.CONTRADICTS]
    done: list[str] = []
    wider: list[str] = []
    for old_id in dict.fromkeys(targets):
        old = rows.find(db, old_id)
        if old is None or old.superseded_by is not None or old.retired_at is not None:
            continue
        if old.redacted_at is not None or old.trust == "rejected":
            continue
        if correct.supersede_in(db, old, memory.id, reason, actor, at):
            done.append(old_id)
            wider.append(old.scope)
    shared = shared_scope(memory, wider)
    if shared is not None:
        # An agent's replacement, written in its own partition, of memory
        # every session read: approved, it is read where the retired rows were.
        from tree_ring.review.promote import promote_in

        approved = rows.get(db, memory.id)
        promoted = promote_in(
            db, approved, scope=shared, ring=None, reason=reason, actor=actor, at=at
        )
        disputed += promoted.disputes
    return Decision(
        memory.id,
        "approve",
        "accepted",
        reason,
        actor.name,
        at,
        tuple(done),
        shared=shared,
        disputes=tuple(disputed),
    )


def _would_share(db: Db, memory: Memory) -> str | None:
    """The shared scope approving `memory` would give it (`shared_scope`)."""
    live = [rows.find(db, old_id) for old_id in memory.supersedes]
    return shared_scope(
        memory,
        [old.scope for old in live if old is not None and old.retired_at is None],
    )


def shared_scope(memory: Memory, retired: list[str]) -> str | None:
    """The shared scope of the project a private replacement takes from the
    rows it retired (the first, where they differ), or None: it stays where it is."""
    if memory.scope not in PRIVATE_SCOPES:
        return None
    return next((s for s in retired if s not in PRIVATE_SCOPES and s != "global"), None)


def reject_in(db: Db, memory: Memory, reason: str, actor: Actor, at: str) -> Decision:
    _on_record(memory)
    coordinator.authorize(db, "review.reject", actor, memory.id)
    # The copies agents wrote of the same words go with it, first, as a
    # forget takes them: an agent's own copy must not keep a rejected claim
    # in its partition's briefs, nor writable. Only what a person stands
    # behind and holds now (`admission.shields`) stays writable: rejecting an
    # agent's copy of a person's memory rejects the copy, not the person's
    # claim; a person's memory that ended or expired vouches for no claim now.
    copies = [c for c in correct.agent_copies(db, memory) if not admission.vouched(c)]
    for copy in copies:
        coordinator.authorize(db, "review.reject", actor, copy.id)
        _rejected(db, copy, reason, actor, at, [], copy_of=memory.id)
    shields = admission.shields(at)
    keys = holders.unheld(
        db, memory, tombstones.forget_keys(memory), shields, proposal=not admission.vouched(memory)
    )
    keys = correct.tombstone(db, memory, tombstones.REJECTED, reason, actor, at, keys)
    tombstoned = memory.content_hash in keys
    if tombstoned:
        # A write would refuse these words now: no summary node quotes them.
        for row in (*copies, memory):
            keys += propagate.out_of_tree(db, row, actor, at, kind=tombstones.REJECTED)
    _rejected(db, memory, reason, actor, at, keys)
    return Decision(
        memory.id,
        "reject",
        "rejected",
        reason,
        actor.name,
        at,
        tombstoned=tombstoned,
        copies=tuple(copy.id for copy in copies),
    )


def _rejected(
    db: Db,
    memory: Memory,
    reason: str,
    actor: Actor,
    at: str,
    keys: list[str],
    **detail: str,
) -> None:
    """Mark one row rejected and retire the consolidations citing it."""
    _mark(
        db,
        memory,
        "reject",
        "rejected",
        reason,
        actor,
        at,
        tombstoned=keys,
        detail=detail,
        retired_at=memory.retired_at or at,
    )
    if memory.retired_at is None and memory.superseded_by is None:
        # A summary citing a rejected claim would go on stating it.
        propagate.retired(db, memory, actor, at, "rejected in review")


def dispute_in(db: Db, memory: Memory, reason: str, actor: Actor, at: str) -> Decision:
    _on_record(memory)
    if memory.retired_at is not None:
        raise Conflict(f"{memory.id} is no longer current; there is nothing to dispute")
    if memory.trust == "disputed":
        raise Conflict(f"{memory.id} is already disputed ({memory.review_reason})")
    coordinator.authorize(db, "review.dispute", actor, memory.id)
    _mark(db, memory, "dispute", "disputed", reason, actor, at)
    # No longer believed: the summaries stating it retire, as with a rejected
    # or superseded source; the row itself stays on record.
    propagate.retired(db, memory, actor, at, "disputed in review")
    return Decision(memory.id, "dispute", "disputed", reason, actor.name, at)


def approve(
    store: Store,
    memory_id: str,
    *,
    actor: Actor,
    reason: str | None = None,
    supersede: bool = False,
) -> Decision:
    text = correct.check_reason(reason) if reason else "approved"
    if requests.is_request_id(memory_id):
        return _decide_request(store, memory_id, "approved", text, actor)
    with store.write() as db:
        memory = _given(db, memory_id, text)
        return approve_in(db, memory, text, actor, now_iso(), supersede=supersede)


def reject(store: Store, memory_id: str, *, actor: Actor, reason: str) -> Decision:
    text = correct.check_reason(reason)
    if requests.is_request_id(memory_id):
        return _decide_request(store, memory_id, "rejected", text, actor)
    with store.write() as db:
        decision = reject_in(db, _given(db, memory_id, text), text, actor, now_iso())
    return decision


def dispute(store: Store, memory_id: str, *, actor: Actor, reason: str) -> Decision:
    text = correct.check_reason(reason)
    with store.write() as db:
        return dispute_in(db, _given(db, memory_id, text), text, actor, now_iso())


def _given(db: Db, memory_id: str, reason: str) -> Memory:
    """The row a decision is about, once its reason is one the row may keep
    (`reasons.kept`): a reason quoting what was already forgotten is refused.
    Checked before a rejection tombstones the row's own words, which its
    reason may quote."""
    memory = rows.get(db, memory_id)
    reasons.kept(db, memory.project or "", reason, reasons.ON_MEMORY)
    return memory


def _decide_request(
    store: Store, request_id: str, decision: str, reason: str, actor: Actor
) -> Decision:
    """A person's decision on an agent's request to forget: approving it
    forgets the memory as the agent asked, with the person as the one who
    forgets it and both reasons kept."""
    now = now_iso()
    action = "review.approve" if decision == "approved" else "review.reject"
    forgotten: correct.Forgotten | None = None
    gone: list[Memory] = []
    with store.write() as db:
        request = requests.get(db, request_id)
        coordinator.authorize(db, action, actor, request.memory_id)
        reasons.kept(db, request.project or "", reason, reasons.IN_AUDIT_LOG)
        closed = requests.decide(db, request, decision, reason, actor, now)
        # The agent's reason, written again with the person's: without what
        # was forgotten since it was asked.
        asked = reasons.shown(db, request.project or "", request.reason)
        why = f"{asked} (asked by {request.actor} in {request.id}; {reason})"
        if decision == "approved" and request.mode == requests.CONFIRM:
            # An agent's confirm: the person's approval re-anchors the memory.
            from tree_ring.write import anchors

            memory = rows.get(db, request.memory_id)
            anchors.reanchor_in(db, store.root_str, memory, actor, why, now)
        elif decision == "approved":
            memory = rows.get(db, request.memory_id)
            why = why[: reasons.MAX_REASON]
            keys = correct.forget_in(db, memory, request.mode, why, actor, now)
            gone.append(memory)
            forgotten = correct.Forgotten(
                memory.id, request.mode, why, tombstoned=correct.kept_out(memory, keys)
            )
    forgot = forgotten is not None
    lingering = correct.scrub(store, gone) if forgot else None
    verb = "approve" if decision == "approved" else "reject"
    return Decision(
        closed.id,
        verb,
        "forgotten" if forgot else "kept",
        reason,
        actor.name,
        now,
        request=closed,
        lingering=lingering,
        tombstoned=forgotten is not None and forgotten.tombstoned,
        forgotten=forgotten,
    )


def show_policy(store: Store) -> dict[str, bool]:
    return admission.policy_settings(store.db)


def set_policy(store: Store, changes: dict[str, bool], actor: Actor) -> dict[str, bool]:
    with store.write() as db:
        return admission.set_policy(db, changes, actor)


# ------------------------------------------------------------ approve --all


@dataclass(frozen=True)
class Selection:
    """Which pending rows `approve_all` takes: every filter given must hold."""

    origin: str | None = None  # the record's `origin` (import, person, claude-code, ...)
    since: str | None = None  # created_at at or after this time
    scope: str | None = None
    ring: str | None = None
    batch: str | None = None  # an import's batch id: the rows its audit entries name


def pending_matching(db: Db, project: str | None, selection: Selection) -> list[Memory]:
    found = store_queue.pending(
        db,
        project,
        origin=selection.origin,
        scope=selection.scope,
        ring=selection.ring,
        batch=selection.batch,
        since=selection.since,
    )
    return [rows.from_row(row) for row in found]


def approve_all(
    store: Store,
    project: str | None,
    selection: Selection,
    *,
    actor: Actor,
    reason: str | None = None,
    dry_run: bool = False,
) -> list[Decision]:
    """Approve every pending row the selection names, in one transaction: each
    row decided, authorized and audited exactly as `approve` decides one, so
    any refusal (an agent without the capability, a row over a tombstone)
    leaves every row as it was. The caller is asked first, even when no row
    matches, so an agent is refused the same way whatever the queue holds.
    `dry_run` answers which rows it would approve, as decisions not taken,
    and which it would refuse (`refusal`: decision "refuse", with why), for
    which the real run approves none. The real run's error names the
    waiting row refused, not the tombstone that refuses it."""
    text = correct.check_reason(reason) if reason else "approved"
    at = now_iso()
    with store.write() as db:
        first = coordinator.decide(db, "review.approve", actor, "review approve --all")
        if not first.allowed:
            coordinator.refuse(db, first)
        found = pending_matching(db, project, selection)
        for project_id in sorted({m.project or "" for m in found} if reason else ()):
            reasons.kept(db, project_id, text, reasons.ON_MEMORY)
        refused = {m.id: why for m in found if (why := refusal(db, m)) is not None}
        if dry_run:
            return [
                Decision(m.id, "refuse", "pending", str(refused[m.id]), actor.name, at)
                if m.id in refused
                else Decision(
                    m.id, "approve", "pending", text, actor.name, at, shared=_would_share(db, m)
                )
                for m in found
            ]
        if refused:
            memory_id, why = next(iter(refused.items()))
            more = (
                f" (and {len(refused) - 1} more: --dry-run names them)" if len(refused) > 1 else ""
            )
            raise Conflict(
                f"waiting memory {memory_id}{more} cannot be approved: {why}; nothing was "
                f"approved: reject it (`tree-ring review reject {memory_id} --reason WHY`) "
                "or narrow the filters"
            )
        coordinator.record(db, [first])
        return [approve_in(db, memory, text, actor, at) for memory in found]
