"""Requests to forget: what an agent asked to forget outside its own partition.
An agent's `confirm` of a memory's files waits here too, as mode `confirm`
(`write/anchors.py`): approving it re-anchors the memory, forgetting nothing.

An agent may forget what it wrote into its own partition; anything else (a
person's memory, another agent's, shared project memory) is a decision for a
person. The agent's `forget` then records a request here, with its mode and
reason, and forgets nothing. `tree-ring review list` shows the waiting
requests beside the review queue; `review approve REQUEST` forgets the memory
as asked (the person is the one who forgets it), `review reject REQUEST
--reason` closes the request. A repeated request for the same memory and mode
returns the one already waiting.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict, NotFound
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.store import audit, forget_requests
from tree_ring.store.sql import Db

PREFIX = "req_"


@dataclass(frozen=True)
class Request:
    id: str
    project: str
    memory_id: str
    mode: str
    reason: str
    actor: str
    origin: str
    session: str | None
    created_at: str
    decision: str | None = None
    decided_by: str | None = None
    decided_at: str | None = None
    decision_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


CONFIRM = "confirm"


def asked_for(request: Request) -> str:
    """What the request asks, in a few words: `forget ID (redact)`, `confirm ID`."""
    if request.mode == CONFIRM:
        return f"confirm {request.memory_id} (re-anchor its files)"
    return f"forget {request.memory_id} ({request.mode})"


def approved_words(request: Request) -> str:
    """What approving it did, after the memory's id."""
    if request.mode == CONFIRM:
        return "is re-anchored to its files as they are now"
    return f"is forgotten ({request.mode})"


def _from_row(row: Any) -> Request:
    return Request(**dict(row))


def is_request_id(text: str) -> bool:
    return text.startswith(PREFIX)


def ask(db: Db, memory: Memory, mode: str, reason: str, actor: Actor, now: str) -> str:
    """Record (or find) the request to forget `memory`; its id."""
    waiting = forget_requests.waiting_id(db, memory.id, mode)
    if waiting is not None:
        return str(waiting)
    request_id = PREFIX + os.urandom(6).hex()
    forget_requests.insert(
        db,
        (
            request_id,
            memory.project or "",
            memory.id,
            mode,
            reason,
            actor.name,
            actor.origin.kind,
            actor.origin.session,
            now,
        ),
    )
    audit.append(
        db,
        actor,
        "forget-request",
        memory.id,
        {"request": request_id, "mode": mode, "reason": reason},
        at=now,
    )
    return request_id


def waiting(db: Db, project: str | None, reader: Identity | None = None) -> list[Request]:
    """The project's requests that wait for a person, oldest first; with
    `reader` (an agent's identity), those about rows it may read."""
    found = forget_requests.waiting(db, project or "", reader)
    return [_from_row(row) for row in found]


def get(db: Db, request_id: str) -> Request:
    row = forget_requests.get(db, request_id)
    if row is None:
        raise NotFound(f"no request {request_id[:40]!r}; `tree-ring review list` shows them")
    return _from_row(row)


def decide(db: Db, request: Request, decision: str, reason: str, actor: Actor, now: str) -> Request:
    """Close a waiting request; the caller forgets the memory on approval."""
    if request.decision is not None:
        raise Conflict(f"{request.id} was already {request.decision}")
    forget_requests.decide(db, request.id, decision, actor.name, now, reason)
    audit.append(
        db,
        actor,
        "forget-request",
        request.memory_id,
        {"request": request.id, "decision": decision, "reason": reason},
        at=now,
    )
    return get(db, request.id)
