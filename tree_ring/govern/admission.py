"""What a new memory's trust state is, and what waits for a person.

Agents cannot mint authority: agent-written heartwood, project-wide rules from
agents and an agent's replacement of memory it did not write land `pending`,
as do imported rules; a person's own `remember` is accepted. The coordinator
capability (coordinator.py) counts as a person's word. The policy is a setting
(`review_policy`, shown and changed by `tree-ring review policy`) so a team
can widen or narrow it.

A write that contradicts a live memory (contradictions.py) is linked to it
both ways and lands `disputed`, whoever wrote it: the store then holds both
claims, believes the older one, and the review queue shows the pair until a
person approves one (optionally superseding the other), rejects one, or
decides they do not conflict. `disputed` rather than `pending` because that is
what it is: on record, contradicted, not believed.
"""

from __future__ import annotations

from typing import Any

from tree_ring.govern import contradictions
from tree_ring.govern import coordinator as write_policy
from tree_ring.model.errors import UsageError
from tree_ring.model.record import PRIVATE_SCOPES, Link, Memory, now_iso
from tree_ring.store import audit, rows, settings
from tree_ring.store.audit import Actor
from tree_ring.store.sql import Db

# Event types that state a rule for everyone who works in the project.
RULE_TYPES = frozenset({"decision", "preference", "rule", "constraint", "convention", "policy"})
# Origins of a harness's tool call: the writer is a model, not a person.
AGENT_ORIGINS = frozenset({"claude-code", "codex", "agent"})
CONTRADICTS = "contradicts"
SETTING = "review_policy"


def policy_settings(db: Db) -> dict[str, bool]:
    """The review policy: stored keys over the declared defaults."""
    stored: dict[str, Any] = settings.read(db, SETTING)
    merged = settings.default(SETTING)
    merged.update({k: v for k, v in stored.items() if k in settings.REVIEW_POLICY})
    return {key: bool(value) for key, value in merged.items()}


def set_policy(db: Db, changes: dict[str, bool], actor: Actor) -> dict[str, bool]:
    """Change review policy keys; a person's (or the coordinator's) decision."""
    unknown = sorted(set(changes) - set(settings.REVIEW_POLICY))
    if unknown:
        raise UsageError(
            f"unknown review policy key {unknown[0]!r}; "
            f"use one of: {', '.join(settings.REVIEW_POLICY)}"
        )
    write_policy.authorize(db, "review.policy", actor, SETTING)
    merged = {**policy_settings(db), **changes}
    settings.write(db, SETTING, merged)
    audit.append(db, actor, "review-policy", SETTING, {"set": changes})
    return merged


def is_agent(actor: Actor) -> bool:
    return actor.origin.kind in AGENT_ORIGINS


def owns(memory: Memory, actor: Actor) -> bool:
    """An agent may retire what it wrote itself, until a person vouches for it."""
    return (
        memory.origin == actor.origin.kind
        and memory.agent_profile == actor.name
        and memory.ring != "heartwood"
        and memory.reviewed_by is None
    )


def waiting_reason(db: Db, memory: Memory, actor: Actor) -> str | None:
    """Why this write should wait for review, or None to accept it."""
    rules = policy_settings(db)
    shared_rule = memory.scope not in PRIVATE_SCOPES and memory.event_type in RULE_TYPES
    if actor.origin.kind == "import":
        if rules["imported_rules"] and (memory.ring == "heartwood" or shared_rule):
            return "imported rule: check its source before it becomes project memory"
        return None
    if not is_agent(actor) or write_policy.holds(db, actor):
        return None
    kind = actor.origin.kind
    if rules["agent_heartwood"] and memory.ring == "heartwood":
        return f"heartwood written by {kind}: durable truth needs a person's approval"
    if rules["agent_project_rules"] and shared_rule:
        return f"project-wide {memory.event_type} from {kind} waits for approval"
    if rules["agent_replacements"]:
        for old_id in memory.supersedes:
            old = rows.find(db, old_id)
            if old is not None and not owns(old, actor):
                return (
                    f"replaces {old_id}, which {kind} did not write: "
                    "the replacement takes effect when a person approves it"
                )
    return None


def admit(
    db: Db,
    memory: Memory,
    actor: Actor,
    pending: contradictions.Pending | None = None,
) -> Memory:
    """The trust state and contradiction links a new row is stored with;
    `pending` holds the rows of its batch the FTS index may not have yet."""
    if memory.trust == "rejected":
        return memory
    reasons: list[str] = []
    trust = memory.trust
    if trust == "accepted":
        reason = waiting_reason(db, memory, actor)
        if reason is not None:
            trust = "pending"
            reasons.append(reason)
    found = contradictions.find(db, memory, pending)
    links = list(memory.links)
    for item in found:
        link = Link(CONTRADICTS, item.memory.id)
        if link not in links:
            links.append(link)
    if found and policy_settings(db)["contradictions"]:
        trust = "disputed"
        named = ", ".join(
            f"{item.memory.id} ({'a changed value' if item.kind == 'value' else 'the opposite'})"
            for item in found
        )
        reasons.insert(0, f"contradicts live memory {named}")
    if trust == memory.trust and not found:
        return memory
    reason = "; ".join(reasons) if reasons else memory.review_reason
    return memory.replace(trust=trust, review_reason=reason, links=tuple(links))


def after_insert(db: Db, memory: Memory, actor: Actor) -> None:
    """Link the rows a new memory contradicts back to it, and record the finding."""
    others = [link.target for link in memory.links if link.type == CONTRADICTS]
    linked: list[str] = []
    for other_id in others:
        other = rows.find(db, other_id)
        if other is None:
            continue
        back = Link(CONTRADICTS, memory.id)
        if back not in other.links:
            rows.update(db, other_id, links=(*other.links, back), updated_at=now_iso())
        linked.append(other_id)
    if linked:
        audit.append(
            db,
            actor,
            "contradiction",
            memory.id,
            {"contradicts": linked, "trust": memory.trust},
            at=memory.created_at,
        )
