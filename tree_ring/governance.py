"""What a new memory's trust state is, and what waits for a person.

Agents cannot mint authority: agent-written heartwood and project-wide rules
from agents land `pending`, as do imported rules. A person's own `remember` is
accepted. The policy is a setting (`review_policy`) so a team can widen it.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from typing import Any

from tree_ring.audit import Actor
from tree_ring.record import PRIVATE_SCOPES, Memory

# Event types that state a rule for everyone who works in the project.
RULE_TYPES = frozenset({"decision", "preference", "rule", "constraint", "convention", "policy"})

DEFAULT_POLICY: dict[str, bool] = {
    "agent_heartwood": True,  # an agent may not write durable truth on its own
    "agent_project_rules": True,  # nor a rule every session will see
    "imported_rules": True,  # an import is only as good as its source
}


def policy(conn: sqlite3.Connection) -> dict[str, bool]:
    row = conn.execute("SELECT value FROM settings WHERE key = 'review_policy'").fetchone()
    merged: dict[str, Any] = dict(DEFAULT_POLICY)
    if row is not None:
        merged.update(json.loads(row[0]))
    return {key: bool(value) for key, value in merged.items()}


def waiting_reason(conn: sqlite3.Connection, memory: Memory, actor: Actor) -> str | None:
    """Why this write should wait for review, or None to accept it."""
    rules = policy(conn)
    shared_rule = memory.scope not in PRIVATE_SCOPES and memory.event_type in RULE_TYPES
    if actor.origin.kind == "import":
        if rules["imported_rules"] and (memory.ring == "heartwood" or shared_rule):
            return "imported rule: check its source before it becomes project memory"
        return None
    if not actor.origin.is_agent or actor.name == "coordinator":
        return None
    if rules["agent_heartwood"] and memory.ring == "heartwood":
        return f"heartwood written by {actor.origin.kind}: durable truth needs a person's approval"
    if rules["agent_project_rules"] and shared_rule:
        return f"project-wide {memory.event_type} from {actor.origin.kind} waits for approval"
    return None


def admit(conn: sqlite3.Connection, memory: Memory, actor: Actor) -> Memory:
    if memory.trust != "accepted":
        return memory
    reason = waiting_reason(conn, memory, actor)
    if reason is None:
        return memory
    return dataclasses.replace(memory, trust="pending", review_reason=reason)


def after_insert(conn: sqlite3.Connection, memory: Memory, actor: Actor) -> None:
    """Hook for checks that need the row in place (contradictions)."""
    del conn, memory, actor
