"""The write verbs a person or an agent calls: remember, evidence, capture.

Each turns its arguments into a `Memory` and hands it to the one write path.
`capture` is the narrow verb the stop hook names: agent scope, normal
sensitivity, six fixed event-type/ring pairs, and every identity field given.
"""

from __future__ import annotations

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Frozen, fields
from tree_ring.model.identity import Identity
from tree_ring.model.record import (
    CAPTURE_PAIRS,
    EVIDENCE_OUTCOMES,
    PRIVATE_SCOPES,
    Memory,
    caller_fields,
    new_memory_id,
    now_iso,
    parse_time,
)
from tree_ring.store.audit import Actor
from tree_ring.store.db import Store
from tree_ring.write import anchors as anchoring
from tree_ring.write import correct, pipeline, share
from tree_ring.write.pipeline import WriteResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from tree_ring.model.anchor import Anchor


class Draft(Frozen, declared=caller_fields()):
    """What the caller said; everything else is filled in by `compose`.

    Its fields are those `Memory` declares a write's caller may set, with a
    draft's defaults: the summary (by position or name), then the rest by
    name. Three differ from the row: `scope` None lets `compose` choose,
    `valid_from` None means now, and `supersedes` names the one memory this
    one replaces. Times are as the caller wrote them; `compose` reads them.
    """

    if TYPE_CHECKING:
        # The checker cannot see fields made from another class's, so it is
        # told the constructor's shape and that every field reads as Any.
        def __init__(self, summary: str, **fields: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...


def compose(draft: Draft, identity: Identity, actor: Actor) -> Memory:
    now = now_iso()
    said: dict[str, Any] = dict(vars(draft))
    # A person's note is project memory; an agent's goes to its own partition
    # unless it names a scope, so agents cannot publish to everyone by default.
    if said["scope"] is None:
        said["scope"] = "agent" if actor.origin.is_agent and identity.agent_profile else "project"
    for spec in fields(Draft):
        if spec.get("time"):
            raw = said[spec.name]
            said[spec.name] = parse_time(raw, spec.name.replace("_", "-")) if raw else None
    said["valid_from"] = said["valid_from"] or now
    # Where the claim comes from, as the environment says: an agent's memory
    # is never labelled as a person's manual note.
    if said["source_type"] == "manual" and actor.origin.is_agent:
        said["source_type"] = "agent"
    # The memory a draft replaces is recorded by `correct`, once it is replaced.
    said["supersedes"] = ()
    return Memory(
        **said,
        id=new_memory_id(),
        created_at=now,
        updated_at=now,
        project=identity.project,
        agent_profile=identity.agent_profile,
        workflow_id=identity.workflow_id,
        session_id=identity.session_id,
        origin=actor.origin.kind,
        origin_session=actor.origin.session,
    )


def remember(
    store: Store,
    draft: Draft,
    identity: Identity,
    actor: Actor,
    anchors: Sequence[Anchor] = (),
) -> WriteResult:
    """`anchors`: the files the memory is about (`write/anchors.resolve`)."""
    memory = compose(draft, identity, actor)
    if draft.supersedes:
        return correct.remember_superseding(store, memory, draft.supersedes, actor, anchors)
    return pipeline.store_memory(store, memory, actor, anchors)


def require_evidence_ref(evidence_ref: str) -> None:
    """An evaluation's outcome is stored only with the run, eval or incident it
    comes from; the `evidence` verb's rule, which quality scenarios hold an
    evaluation's write candidate to as well."""
    if not evidence_ref.strip():
        raise UsageError("evidence needs --evidence-ref: the run, eval or incident it comes from")


def evidence(
    store: Store,
    draft: Draft,
    identity: Identity,
    actor: Actor,
    *,
    outcome: str,
    evidence_ref: str,
    score: float | None,
) -> WriteResult:
    if outcome not in EVIDENCE_OUTCOMES:
        raise UsageError(f"unknown outcome {outcome!r}; use one of: {', '.join(EVIDENCE_OUTCOMES)}")
    require_evidence_ref(evidence_ref)
    ring, retention, salience, confidence = EVIDENCE_OUTCOMES[outcome]
    draft = draft.replace(
        ring=ring,
        retention=retention,
        salience=salience,
        confidence=confidence if score is None else score,
        source_type="evidence",
        source_ref=evidence_ref,
        event_type=draft.event_type if draft.event_type != "note" else "evaluation",
        tags=(*draft.tags, f"outcome:{outcome}"),
    )
    return pipeline.store_memory(store, compose(draft, identity, actor), actor)


def capture(
    store: Store,
    draft: Draft,
    identity: Identity,
    actor: Actor,
    anchors: Sequence[Anchor] = (),
) -> WriteResult:
    """Only what the stop checkpoint may write; anything else is refused.
    `anchors`: the files it is about (those the turn changed, by default)."""
    expected = CAPTURE_PAIRS.get(draft.event_type)
    if expected is None:
        raise UsageError(
            f"capture takes event types {', '.join(CAPTURE_PAIRS)}; got {draft.event_type!r}"
        )
    if draft.ring != expected:
        raise UsageError(
            f"capture writes {draft.event_type} with ring {expected}, not {draft.ring}"
        )
    if draft.scope not in (None, "agent"):
        raise UsageError("capture writes agent scope only; use remember for other scopes")
    if draft.sensitivity != "normal":
        raise UsageError("capture stores normal sensitivity only; do not capture sensitive facts")
    missing = [
        flag
        for flag, value in (
            ("--project", identity.project),
            ("--agent-profile", identity.agent_profile),
            ("--workflow-id", identity.workflow_id),
            ("--session-id", identity.session_id),
            ("--operation-id", draft.operation_id),
            ("--source-ref", draft.source_ref.strip()),
        )
        if not value
    ]
    if missing:
        raise UsageError(f"capture needs {', '.join(missing)}; copy the command the stop hook gave")
    draft = draft.replace(scope="agent", source_type="agent")
    memory = compose(draft, identity, actor)
    result = pipeline.prepare(memory)
    if result.sensitivity != "normal":
        raise UsageError(
            f"capture stores normal sensitivity only; this reads as {result.sensitivity}, "
            "so leave it out"
        )
    assert memory.scope in PRIVATE_SCOPES
    memory = result  # prepared: validated, guarded, hashed
    with store.write() as db:
        written = pipeline.insert_prepared(db, memory, actor)
        if written.created:
            anchoring.attach(db, written.id, anchors)
        if written.created and written.trust == "accepted" and share.sharing(db):
            share.share_in(db, written.id, actor, memory.created_at)
    return written
