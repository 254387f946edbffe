"""The content tombstone lines of an import file: checked, and for an agent's
import taken as the claims they are.

An export writes the project's content tombstones after its memories, one a
line (`{"record": "content_tombstone", ...}`); an import records them before
any memory (`jsonl.import_lines`), so what was forgotten where the file came
from stays forgotten here.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter
from typing import Any, Protocol

from tree_ring.model import imported
from tree_ring.model.actor import Actor
from tree_ring.model.errors import UsageError
from tree_ring.model.record import Memory, compiled_patterns, now_iso, parse_time
from tree_ring.store import holders, rows, tombstones
from tree_ring.store.sql import Db
from tree_ring.write import correct, requests
from tree_ring.write.correct import check_reason

TOMBSTONE = "content_tombstone"
# A tombstone line's values in `tombstones.record_absent`'s order.
VALUES = itemgetter("project", "content_hash", "kind", "reason", "memory_id", "actor", "created_at")


def check(row: dict[str, Any], project: str) -> dict[str, Any]:
    """A tombstone line, checked as strictly as a memory: its hash and id by
    shape, its reason and actor (free text someone else wrote) by the guard."""
    needed = ("content_hash", "kind", "reason", "memory_id", "created_at")
    missing = [key for key in needed if not (isinstance(row.get(key), str) and row.get(key))]
    if missing:
        raise UsageError(f"a content tombstone needs {', '.join(needed)}; {missing[0]} is missing")
    patterns = compiled_patterns()
    if not patterns.content_hash.match(row["content_hash"]) or not patterns.memory_id.match(
        row["memory_id"]
    ):
        raise UsageError("a content tombstone's content_hash and memory_id are malformed")
    if row["kind"] not in ("forgotten", "rejected"):
        raise UsageError("a content tombstone's kind is forgotten or rejected")
    actor = imported.text(row.get("actor"), "a content tombstone's actor") or "import"
    reason = check_reason(row["reason"])
    check_reason(actor)
    return {key: row[key] for key in needed} | {
        "project": project,
        "reason": reason,
        "actor": actor,
        "created_at": parse_time(row["created_at"], "created_at"),
    }


class Names(Protocol):
    """What an agent's import may name (`reach.Reach`)."""

    def may_read(self, memory_id: str) -> bool:
        """Whether the agent may read the memory `memory_id` names."""
        ...

    def name(self, memory_id: str) -> str:
        """The id `memory_id` stands for in this import."""
        ...


def as_claims(
    db: Db, stones: list[dict[str, Any]], actor: Actor, requested: list[str], reach: Names
) -> list[dict[str, Any]]:
    """An agent's tombstone lines as the claims they are, as a team ledger's
    unvouched lines are (`team/sync.py`): one naming a memory this store holds
    that the agent may read becomes a request to forget it, which a person
    approves or rejects, and nothing is tombstoned, as does one naming another
    id with the content of a memory held here that the agent may read
    (`holders.holding`); any other
    is kept as the agent's withdrawal (`tombstones.WITHDRAWN`), as of now: it
    binds agents' writes only, hides nothing of the person's (their global
    notes read here among them), and reaches neither the team ledger nor an
    export; the kind, actor and date the file claims are its words. A memory
    the agent may not read (another partition's) is no memory to it
    (`reach.py`): a line naming its id is read as one naming an id never held
    here, and the withdrawal names the id the import gives every id it may
    not read, for a hidden memory and for none alike; a hash only hidden
    memories hold is a hash none holds. Returns the tombstones
    to record; the requests raised are added to `requested`."""
    now = now_iso()
    kept: list[dict[str, Any]] = []
    asked: set[str] = set()
    why = f"an imported content tombstone from {actor.origin.kind}, not a person's"
    for stone in stones:
        found = _holders(db, stone, by_id=True, reach=reach)
        if not found:
            named = reach.name(stone["memory_id"])
            kept.append(
                stone
                | {
                    "memory_id": named,
                    "kind": tombstones.WITHDRAWN,
                    "actor": actor.name,
                    "created_at": now,
                }
            )
        _ask(db, found, asked, why, actor, now, requested)
    return kept


def held_content(
    db: Db,
    stones: list[dict[str, Any]],
    actor: Actor,
    requested: list[str],
    spared: list[str],
    *,
    beside: bool = True,
    readmitted: Mapping[str, frozenset[str]] | None = None,
) -> list[dict[str, Any]]:
    """A person's tombstone lines, but those that name an id this store does
    not hold with the content of a memory it does (`holders.holding`):
    each such memory gets a request to forget it, for the person to decide
    (`review list`), and its line is not recorded. Recorded, it would keep
    the memory here while the team ledger this store writes tells every
    clone to refuse it; a file that only says the content was forgotten
    under another id does not say which memory here goes. Nor is a line
    recorded that holds the words of a note of the store read beside this
    one (the person's global notes): it would hide the note here; the
    note's id is added to `spared`, for the person to forget it there if
    they mean to; not for the user store itself (`beside` False), whose
    forgets hide the project's rows that hold them, as `forget --user`
    does. A memory the file's own row of it re-admits over the line's key
    (`readmitted`: a restore of a store where a person wrote it again over
    the forget) holds it by that decision: no request. Returns the lines to
    record; the requests raised are added to `requested`."""
    now = now_iso()
    kept: list[dict[str, Any]] = []
    asked: set[str] = set()
    why = "an imported content tombstone holds its content under another id"
    over = readmitted or {}
    for stone in stones:
        found = _unreadmitted(db, stone, _holders(db, stone, by_id=False))
        found = [m for m in found if stone["content_hash"] not in over.get(m.id, ())]
        notes = [] if found or not beside else _notes_holding(db, stone)
        if not found and not notes:
            kept.append(stone)
        _ask(db, found, asked, why, actor, now, requested)
        spared.extend(note.id for note in notes if note.id not in spared)
    return kept


def _unreadmitted(db: Db, stone: dict[str, Any], found: list[Memory]) -> list[Memory]:
    """Of the memories holding a tombstone line's content, those not written
    over it: a row a person re-admitted over that very key (an expired note
    written again, `write/readmit.py`) holds it by their decision, and the
    line (the forget it was written over, exported beside it) asks nothing of it."""
    if not found:
        return found
    from tree_ring.store import audit

    overrides = audit.readmissions(db, [m.id for m in found])
    key = stone["content_hash"]
    return [m for m in found if key not in overrides.get(m.id, {}).get("overrides", ())]


def _notes_holding(db: Db, stone: dict[str, Any]) -> list[Memory]:
    """The notes of the stores `db` answers to (the person's user store, for
    a project) whose write the line's hash would refuse."""
    found: list[Memory] = []
    for source in db.answers_to:
        other = source()
        if other is not None:
            found += holders.holding(other[0], other[1], [stone["content_hash"]])
    return found


def _holders(
    db: Db, stone: dict[str, Any], *, by_id: bool, reach: Names | None = None
) -> list[Memory]:
    """The memories here a tombstone line would take: the one it names, if
    held (only `by_id`; else none), or, for an id never held, those holding
    its content under other ids (`holders.holding`). With `reach` (an
    agent's import), a memory the agent may not read is not held, by its id
    or by its content: a line whose hash only hidden memories hold takes
    none, so it is kept as the agent's withdrawal as an unmatched one is
    (the import's answer, tables and review queue the same either way)."""
    held = rows.find(db, stone["memory_id"])
    if held is not None and (reach is None or reach.may_read(held.id)):
        return [held] if by_id else []
    found = holders.holding(db, stone["project"], [stone["content_hash"]])
    if reach is None:
        return found
    # The content of a memory the agent may not read is no content to it: a
    # hash only a hidden memory holds is answered as one no memory holds.
    return [memory for memory in found if reach.may_read(memory.id)]


def _ask(
    db: Db,
    found: list[Memory],
    asked: set[str],
    why: str,
    actor: Actor,
    now: str,
    requested: list[str],
) -> None:
    """A request to forget each of `found` not asked for yet, and not
    forgotten or rejected already (its own tombstones hold)."""
    for memory in found:
        if memory.id in asked or memory.redacted_at is not None or memory.trust == "rejected":
            continue
        asked.add(memory.id)
        requested.append(requests.ask(db, memory, "delete", why, actor, now))


def forget_named(db: Db, stones: list[dict[str, Any]], actor: Actor) -> list[str]:
    """A person's forgotten-tombstone lines that name a memory this store
    holds, live: the person's forget, carried by the file, forgets it here
    too (deleted, the line's reason kept), as a ledger line from the
    upstream does. Else this store would show the memory while the team
    ledger it writes says the id was forgotten, and every teammate deletes
    it. The ids forgotten."""
    now = now_iso()
    done: list[str] = []
    for stone in stones:
        memory = rows.find(db, stone["memory_id"])
        if (
            stone["kind"] != tombstones.FORGOTTEN
            or memory is None
            or memory.project != stone["project"]
            or memory.id in done
            or memory.redacted_at is not None
        ):
            continue
        decided = [s["content_hash"] for s in stones if s["memory_id"] == memory.id]
        correct.forget_in(db, memory, "delete", stone["reason"], actor, now, decided=decided)
        done.append(memory.id)
    return done
