"""The id a forget or rejection decided here names: the memory's own, but
for a row a team ledger claim made under an id the claim chose."""

from __future__ import annotations

from tree_ring.model.record import Memory, new_memory_id
from tree_ring.store import ledger_rows
from tree_ring.store.sql import Db


def claim_made(db: Db, memory: Memory) -> bool:
    """Whether `memory` is a row a team ledger claim made (a line the
    upstream does not hold) that no person has accepted: its id is the
    claim's word, not the team's."""
    return memory.trust != "accepted" and bool(
        ledger_rows.subjects_not_from(db, ledger_rows.UPSTREAM, [memory.id])
    )


def named_as(db: Db, memory: Memory) -> str:
    """The id a forget or rejection decided here names in its tombstones:
    the memory's own, but for a row a claim made (`claim_made`). Anyone
    who can edit the working tree can claim any id, a teammate's memory the
    upstream has yet to take among them; named by it, the rejection of the
    claim's words would travel in the ledger this clone writes as the team's
    forget of that memory. A fresh id keeps the words out all the same."""
    return new_memory_id() if claim_made(db, memory) else memory.id
