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

import json
from typing import Any, Protocol

from tree_ring.govern import contradictions
from tree_ring.govern import coordinator as write_policy
from tree_ring.model.errors import UsageError
from tree_ring.model.record import PRIVATE_SCOPES, Link, Memory, canonical_json, now_iso
from tree_ring.store import audit, rows
from tree_ring.store.audit import Actor
from tree_ring.store.sql import Db

# Event types that state a rule for everyone who works in the project.
RULE_TYPES = frozenset({"decision", "preference", "rule", "constraint", "convention", "policy"})
# Origins of a harness's tool call: the writer is a model, not a person.
AGENT_ORIGINS = frozenset({"claude-code", "codex", "agent"})
CONTRADICTS = "contradicts"
SETTING = "review_policy"

DEFAULT_POLICY: dict[str, bool] = {
    "agent_heartwood": True,  # an agent may not write durable truth on its own
    "agent_project_rules": True,  # nor a rule every session will see
    "agent_replacements": True,  # nor retire shared memory it did not write
    "imported_rules": True,  # an import is only as good as its source
    "contradictions": True,  # a write that contradicts a live memory waits
}


def policy_settings(db: Db) -> dict[str, bool]:
    row = db.execute("SELECT value FROM settings WHERE key = ?", (SETTING,)).fetchone()
    merged: dict[str, Any] = dict(DEFAULT_POLICY)
    if row is not None:
        stored: dict[str, Any] = json.loads(row[0])
        merged.update({k: v for k, v in stored.items() if k in DEFAULT_POLICY})
    return {key: bool(value) for key, value in merged.items()}


def set_policy(db: Db, changes: dict[str, bool], actor: Actor) -> dict[str, bool]:
    """Change review policy keys; a person's (or the coordinator's) decision."""
    unknown = sorted(set(changes) - set(DEFAULT_POLICY))
    if unknown:
        raise UsageError(
            f"unknown review policy key {unknown[0]!r}; use one of: {', '.join(DEFAULT_POLICY)}"
        )
    write_policy.authorize(db, "review.policy", actor, SETTING)
    merged = {**policy_settings(db), **changes}
    db.execute(
        "INSERT INTO settings(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (SETTING, json.dumps(merged, sort_keys=True, separators=(",", ":"))),
    )
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


class Rows(Protocol):
    """Where a decision reads a stored memory: the table (`store.rows`), or a
    batch that has decided memories it has not written yet (`contradictions.Batch`)."""

    def find(self, db: Db, memory_id: str) -> Memory | None: ...


def waiting_reason(db: Db, memory: Memory, actor: Actor, rows: Rows = rows) -> str | None:
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
    batch: contradictions.Batch | None = None,
) -> Memory:
    """The trust state and contradiction links a new row is stored with. Reads
    only: `batch` holds the memories decided before it and not written yet."""
    if memory.trust == "rejected":
        return memory
    reasons: list[str] = []
    trust = memory.trust
    if trust == "accepted":
        reason = waiting_reason(db, memory, actor, batch or rows)
        if reason is not None:
            trust = "pending"
            reasons.append(reason)
    found = contradictions.find(db, memory, batch)
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


def link_back(db: Db, memory: Memory, batch: contradictions.Batch) -> str | None:
    """Plan the links back from the rows a new memory contradicts (in `batch`,
    or stored) to it; the detail of the audit entry that records the finding,
    or None when none of them exists."""
    linked: list[str] = []
    back = Link(CONTRADICTS, memory.id)
    for link in memory.links:
        if link.type != CONTRADICTS:
            continue
        other = batch.find(db, link.target)
        if other is None:
            continue  # not stored, nor decided earlier in the batch
        if back not in other.links:
            batch.update(other.replace(links=(*other.links, back), updated_at=now_iso()))
        linked.append(other.id)
    if not linked:
        return None
    return canonical_json({"contradicts": linked, "trust": memory.trust})
