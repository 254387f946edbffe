"""Refutations: an agent's word that a memory proved wrong, until a person decides.

The table is `REFUTATIONS`; `review/refute.py` decides who may write
here and what it does to the row. One refutation waits per memory. A
person's decision on the row, or forgetting it, removes it (`clear`).
"""

from __future__ import annotations

from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_ring.model.actor import Actor
    from tree_ring.store.sql import Db


class Refutation(Frozen):
    memory_id: str
    actor: str
    origin: str
    session: str | None
    reason: str
    was_trust: str
    created_at: str

    def to_dict(self) -> dict[str, str | None]:
        return {
            "memory_id": self.memory_id,
            "actor": self.actor,
            "origin": self.origin,
            "session": self.session,
            "reason": self.reason,
            "was_trust": self.was_trust,
            "created_at": self.created_at,
        }


# An agent's word that a memory proved wrong (review/refute.py): the row is
# disputed and waits for a person, and the brief keeps showing it, marked with
# who refuted it and why, until they decide. A person's decision (approve,
# reject, their own refute) or forgetting the memory removes the refutation:
# its reason may quote the memory, so it goes where the memory goes.
REFUTATIONS = (
    """CREATE TABLE refutations (
        memory_id   TEXT PRIMARY KEY,  -- the refuted memory: one refutation waits per memory
        project     TEXT,              -- its project, as the memory's row has it
        actor       TEXT NOT NULL,     -- the refuting agent's profile
        origin      TEXT NOT NULL,     -- its harness: claude-code, codex, agent
        session     TEXT,              -- the harness session that refuted it, if any
        reason      TEXT NOT NULL,     -- why, one line in the agent's words (guarded as any field)
        was_trust   TEXT NOT NULL,     -- the trust before: only an accepted row stays in the brief
        created_at  TEXT NOT NULL
    )""",
)


# The `refute` audit entry of each refutation, which the team ledger reads
# for the line the row had before (`ledger_rows.refuted`): found by target
# without reading the whole log.
REFUTES_INDEX = "CREATE INDEX audit_refutes ON audit_log(target) WHERE action = 'refute'"

INSERT_SQL = (
    "INSERT INTO refutations"
    "(memory_id, project, actor, origin, session, reason, was_trust, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
FIND_SQL = (
    "SELECT memory_id, actor, origin, session, reason, was_trust, created_at FROM refutations"
    " WHERE memory_id IN (SELECT value FROM json_each(?))"
)
PROJECT_SQL = (
    "SELECT memory_id, actor, origin, session, reason, was_trust, created_at FROM refutations"
    " WHERE project IS ? ORDER BY created_at, memory_id"
)
CLEAR_SQL = "DELETE FROM refutations WHERE memory_id = ?"
# Which refuted rows the brief keeps is `store/live.REFUTED_SQL`
# (`View.include_refuted`), beside the rest of the brief's clause.


def add(
    db: Db, memory_id: str, project: str | None, actor: Actor, reason: str, was: str, at: str
) -> None:
    origin = actor.origin
    db.execute(
        INSERT_SQL, (memory_id, project, actor.name, origin.kind, origin.session, reason, was, at)
    )


def find(db: Db, memory_ids: Iterable[str]) -> dict[str, Refutation]:
    """The refutation waiting on each of `memory_ids` that has one."""
    from tree_ring.model import jsontext

    wanted = sorted(set(memory_ids))
    if not wanted:
        return {}
    return {row[0]: Refutation(*row) for row in db.execute(FIND_SQL, (jsontext.dumps(wanted),))}


def of_project(db: Db, project: str | None) -> list[Refutation]:
    return [Refutation(*row) for row in db.execute(PROJECT_SQL, (project,))]


def clear(db: Db, memory_id: str) -> bool:
    """Remove the refutation of `memory_id`; whether there was one."""
    return db.execute(CLEAR_SQL, (memory_id,)).rowcount > 0
