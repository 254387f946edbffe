"""The write verbs a person or an agent calls: remember, evidence, capture.

Each turns its arguments into a `Memory` and hands it to the one write path.
`capture` is the narrow verb the stop hook names: agent scope, normal
sensitivity, six fixed event-type/ring pairs, and every identity field given.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import PRIVATE_SCOPES, Memory, new_memory_id, now_iso, parse_time
from tree_ring.store.audit import Actor
from tree_ring.store.db import Store
from tree_ring.write import correct, pipeline
from tree_ring.write.pipeline import WriteResult

# outcome -> (ring, retention, salience, default confidence)
EVIDENCE_OUTCOMES: dict[str, tuple[str, str, float, float]] = {
    "promoted": ("heartwood", "durable", 0.9, 0.8),
    "rejected": ("scar", "durable", 0.8, 0.7),
    "deferred": ("seed", "normal", 0.5, 0.5),
    "observed": ("outer", "normal", 0.4, 0.6),
}

CAPTURE_PAIRS: dict[str, str] = {
    "preference": "cambium",
    "decision": "cambium",
    "lesson": "cambium",
    "correction": "cambium",
    "warning": "scar",
    "seed": "seed",
}


@dataclass(frozen=True)
class Draft:
    """What the caller said; everything else is filled in by `compose`."""

    summary: str
    event_type: str = "note"
    ring: str = "cambium"
    scope: str | None = None
    details: str = ""
    source_type: str = "manual"
    source_ref: str = ""
    source_quote: str = ""
    tags: tuple[str, ...] = ()
    salience: float = 0.5
    confidence: float = 0.5
    sensitivity: str = "normal"
    retention: str = "normal"
    expires_at: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    operation_id: str | None = None
    supersedes: str | None = None


def compose(draft: Draft, identity: Identity, actor: Actor) -> Memory:
    now = now_iso()
    # A person's note is project memory; an agent's goes to its own partition
    # unless it names a scope, so agents cannot publish to everyone by default.
    scope = draft.scope
    if scope is None:
        scope = "agent" if actor.origin.is_agent and identity.agent_profile else "project"
    return Memory(
        id=new_memory_id(),
        created_at=now,
        updated_at=now,
        summary=draft.summary,
        event_type=draft.event_type,
        project=identity.project,
        agent_profile=identity.agent_profile,
        workflow_id=identity.workflow_id,
        session_id=identity.session_id,
        operation_id=draft.operation_id,
        scope=scope,
        ring=draft.ring,
        details=draft.details,
        # Where the claim comes from, as the environment says: an agent's
        # memory is never labelled as a person's manual note.
        source_type="agent"
        if draft.source_type == "manual" and actor.origin.is_agent
        else draft.source_type,
        source_ref=draft.source_ref,
        source_quote=draft.source_quote,
        tags=draft.tags,
        salience=draft.salience,
        confidence=draft.confidence,
        sensitivity=draft.sensitivity,
        retention=draft.retention,
        expires_at=parse_time(draft.expires_at, "expires-at") if draft.expires_at else None,
        valid_from=parse_time(draft.valid_from, "valid-from") if draft.valid_from else now,
        valid_to=parse_time(draft.valid_to, "valid-to") if draft.valid_to else None,
        origin=actor.origin.kind,
        origin_session=actor.origin.session,
    )


def remember(store: Store, draft: Draft, identity: Identity, actor: Actor) -> WriteResult:
    memory = compose(draft, identity, actor)
    if draft.supersedes:
        return correct.remember_superseding(store, memory, draft.supersedes, actor)
    return pipeline.store_memory(store, memory, actor)


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
    if not evidence_ref.strip():
        raise UsageError("evidence needs --evidence-ref: the run, eval or incident it comes from")
    ring, retention, salience, confidence = EVIDENCE_OUTCOMES[outcome]
    draft = dataclasses.replace(
        draft,
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


def capture(store: Store, draft: Draft, identity: Identity, actor: Actor) -> WriteResult:
    """Only what the stop checkpoint may write; anything else is refused."""
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
    draft = dataclasses.replace(draft, scope="agent", source_type="agent")
    memory = compose(draft, identity, actor)
    result = pipeline.prepare(memory)
    if result.sensitivity != "normal":
        raise UsageError(
            f"capture stores normal sensitivity only; this reads as {result.sensitivity}, "
            "so leave it out"
        )
    assert memory.scope in PRIVATE_SCOPES
    return pipeline.store_memory(store, memory, actor)
