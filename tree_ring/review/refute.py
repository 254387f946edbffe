"""Refute: saying a memory proved wrong, with the reason.

- An agent's refutation never retires anything. The memory becomes
  `disputed` with the reason (`refuted by codex: ...`) and joins the review
  queue; its refutation is kept (`store/refutations.py`) so the brief keeps
  showing it, marked `(disputed by codex: ...)`, and a consolidation stating
  it marked with it (`read/brief.disputed_notes`), until a person approves it
  again (it was right), rejects it, or refutes it themselves. Like an agent's
  request to forget, it is a request for a person: it takes no capability
  and no coordinated-mode permission, and holding the coordinator's
  capability does not make an agent's refutation a person's. Nothing of it
  travels: the team ledger keeps the memory's line as it was (its audit
  entry records the review reason and time it replaced) until they decide.
- A person's refutation retires the memory with the reason (`retire_in`:
  the row stays on record, its validity closed, audited), and settles any
  refutation waiting on it.

The agent sees only what its recall sees: a memory in another partition is
"no memory", as from `show`. A forgotten, rejected, superseded or retired
memory, or one already disputed, is a one-line error.
"""

from __future__ import annotations

from tree_ring.govern import reasons
from tree_ring.model import jsontext
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict, UsageError
from tree_ring.model.frozen import Frozen
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, now_iso
from tree_ring.model.text import no_fence, no_tags, one_line
from tree_ring.model.user_home import USER_PROJECT
from tree_ring.store import audit, ledger_rows, live, refutations, rows
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import correct


class Refuted(Frozen):
    id: str
    trust: str  # disputed (an agent's) or the row's own (a person's: it is retired)
    reason: str
    by: str  # the origin: a harness, or person
    retired: bool  # a person's refutation retired it
    # A note of the person's user store, refuted from a project's brief or
    # recall: a person decides it there (`tree-ring review list --user`).
    user_store: bool = False


def refute(
    store: Store, memory_id: str, *, reason: str, actor: Actor, reader: Identity | None = None
) -> Refuted:
    """Refute `memory_id` as `actor`; `reader` is the agent's identity (what
    it may see), by default the harness's partitions as the actor names them."""
    text = correct.check_reason(reason)
    at = now_iso()
    with store.write() as db:
        memory = rows.get(db, memory_id)
        agent = actor.origin.is_agent  # anyone but a person: only a person retires
        if agent:
            session = actor.origin.session
            reader = reader or Identity(memory.project or "", actor.name, session, session)
            if not live.sees(db, reader, memory_id):
                raise rows.not_found(memory_id)
        problem = correct.not_live(memory)
        if problem is not None:
            raise Conflict(f"{memory.id} cannot be refuted: {problem}")
        if not agent:
            reasons.kept(db, memory.project or "", text, reasons.IN_AUDIT_LOG)
            memory = _settled(db, memory, at)
            correct.retire_in(db, memory, f"refuted: {text}", actor, at)
            refutations.clear(db, memory.id)
            return Refuted(memory.id, memory.trust, text, actor.origin.kind, True)
        if memory.trust == "disputed":
            # The earlier reason as the brief shows it: data, no fence nor tag of it.
            earlier = no_tags(no_fence(one_line(memory.review_reason or "")))[:120]
            queue = "review list --user" if memory.project == USER_PROJECT else "review list"
            raise Conflict(
                f"{memory.id} is already disputed ({earlier}); "
                f"it waits for a person (`tree-ring {queue}`)"
            )
        problem = reasons.problem(db, memory.project or "", text, memory.sensitivity)
        if problem is not None:
            raise UsageError(
                f"the reason is shown in every brief, and {problem}; give the reason without it"
            )
        by = actor.origin.kind
        rows.update(
            db,
            memory.id,
            trust="disputed",
            review_reason=f"refuted by {by}: {text}",
            updated_at=at,
        )
        refutations.add(db, memory.id, memory.project, actor, text, memory.trust, at)
        # The row as it stood: the team ledger keeps saying it until a person
        # decides (`team/ledger_state.py`), as it says nothing of any claim.
        was = {"review_reason": memory.review_reason, "updated_at": memory.updated_at}
        detail = {"from": memory.trust, "to": "disputed", "reason": text, "was": was}
        audit.record(db, actor, "refute", memory.id, detail, changed=[memory.id], at=at)
    return Refuted(memory.id, "disputed", text, by, False)


def _settled(db: Db, memory: Memory, at: str) -> Memory:
    """`memory` as it stood before an agent's refutation waiting on it
    (`ledger_rows.refuted`: its trust, and the review reason its `refute`
    entry kept): the person's refutation decides it, and retires the row as
    it was believed, so the team ledger says it retired (a disputed row is no
    line of the ledger's, and a teammate would keep the wrong fact live)."""
    if memory.trust != "disputed":
        return memory
    for _, was_trust, _, detail in ledger_rows.refuted(db, memory.project or "", [memory.id]):
        said = jsontext.as_object(jsontext.loads(detail)) if detail else None
        was = said.get("was") if said else None
        reason = was.get("review_reason") if isinstance(was, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        text = reason if isinstance(reason, str) else None
        rows.update(db, memory.id, trust=was_trust, review_reason=text, updated_at=at)
        return rows.get(db, memory.id)
    return memory
