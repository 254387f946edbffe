"""The team ledger's tombstone and redaction lines: checked, and kept in the store.

A store keeps what was forgotten in two tables: content tombstones (the
hashes of a memory's claims, so its content never comes back under any id)
and redaction tombstones (the ids of redacted memories, never used again; a
hard delete releases its id). A tombstone line of the ledger is the first
alone; a redaction line is both. So a line is kept as both tables say it:

- a redaction line records its hashes and marks its id redacted, whether or
  not this clone holds the row the redaction left as a placeholder;
- a tombstone line records its hashes and releases the id's mark, as
  deleting a redacted row does.

`ledger_state.state_line` reads the same two tables back, so a clone writes a
line it took from the ledger as it came: a redaction of a memory this clone
never held stays a redaction, rather than turning into a tombstone that
would delete the placeholder on every clone that keeps one. A claimed line
(not the upstream's) for an id never held is kept as a withdrawal
(`unheld`), which that reading leaves out: the line stays in this store.
"""

from __future__ import annotations

from typing import Any

from tree_ring.model.actor import Actor
from tree_ring.model.errors import UsageError
from tree_ring.model.record import Memory, compiled_patterns, parse_time
from tree_ring.store import audit, holders, redactions, tombstones
from tree_ring.store.sql import Db
from tree_ring.team import ledger
from tree_ring.team.ledger import Line

REASON = "forgotten on another clone (team ledger)"
# A claim's hashes kept (`unheld`): withdrawn, so they bind agents only.
CLAIMED = "claimed by a team ledger line the upstream does not hold"


def check(line: dict[str, Any]) -> dict[str, Any]:
    """A tombstone or redaction line, checked, in the form the store writes it."""
    memory_id, hashes, at = line.get("id"), line.get("hashes"), line.get("at")
    patterns = compiled_patterns()
    if not (isinstance(memory_id, str) and patterns.memory_id.match(memory_id)):
        raise UsageError("a tombstone's id is a memory id")
    from tree_ring.guard import find_secret

    if find_secret(memory_id) is not None:
        # Its id is printed (`audit log`, `doctor`) and written back: never a secret.
        raise UsageError("a tombstone's id looks like a secret")
    if not (isinstance(hashes, list) and hashes):
        raise UsageError("a tombstone needs its content hashes")
    texts = [h for h in hashes if isinstance(h, str) and patterns.content_hash.match(h)]  # pyright: ignore[reportUnknownVariableType]
    if len(texts) != len(hashes) or len(texts) > 1_000:  # pyright: ignore[reportUnknownArgumentType]
        raise UsageError("a tombstone's hashes are sha256:<hex>, at most 1,000")
    out: dict[str, Any] = {
        "record": line["record"],
        "id": memory_id,
        "at": parse_time(str(at), "at"),
        "hashes": sorted(set(texts)),  # pyright: ignore[reportUnknownArgumentType]
    }
    if line["record"] == ledger.TOMBSTONE:
        kind = line.get("kind", "forgotten")
        if kind not in ("forgotten", "rejected"):
            raise UsageError("a tombstone's kind is forgotten or rejected")
        out["kind"] = kind
    return out


def record(
    db: Db,
    project_id: str,
    line: Line,
    actor: Actor,
    *,
    content_only: bool = False,
    claimed: bool = False,
) -> None:
    """Keep a tombstone or redaction line in the store: its content hashes, and
    (unless `content_only`: a tombstone read from the upstream's history, which
    keeps content out and says nothing of the id now) the id's redaction mark
    set by a redaction, released by a tombstone. A `claimed` line's hashes
    are a withdrawal (`unheld`). The row, when this clone holds one, is the
    caller's to forget (`correct.forget_in`)."""
    memory_id = str(line.data["id"])
    redaction = line.data["record"] == ledger.REDACTION
    kind = tombstones.WITHDRAWN if claimed else str(line.data.get("kind", "forgotten"))
    reason = CLAIMED if claimed else REASON
    hashes: list[str] = list(line.data["hashes"])
    at = str(line.data["at"])
    tombstones.record_absent(
        db,
        [(project_id, h, kind, reason, memory_id, actor.name, at) for h in hashes],
        named=not content_only,
    )
    detail: dict[str, Any] = {"tombstones": hashes, "kind": kind}
    if content_only:  # names no memory (`audit.verify` reads it so)
        detail["history"] = True
    elif claimed:
        # A claim's word on an id binds nothing of it: marked redacted, the
        # id would refuse the memory the upstream later brings under it.
        pass
    elif redaction:
        redactions.mark(db, memory_id, at)
        detail["redacted"] = True
    else:
        redactions.unmark(db, memory_id)
    audit.append(db, actor, "tombstone", memory_id, detail)


def unheld(db: Db, project_id: str, line: Line, actor: Actor, now: str) -> list[Memory]:
    """A claimed tombstone or redaction line (not the upstream's, not the
    store's own) for an id this store never held. When its hashes are the
    content of memories the store holds under other ids, it would forget
    them unasked: nothing is recorded, and those memories are returned, for
    the caller to raise a request to forget each. Otherwise it is kept as a
    withdrawal (`tombstones.WITHDRAWN`), dated `now`: the kind and date a
    claim carries are its word (`holders.holding`). A line anyone could
    add to the working tree (an agent among them) so keeps the content from
    agents' writes only: it does not refuse a person's write, hide the
    person's global notes read here, or go into the ledger this clone writes,
    where every teammate would take it as a person's forget."""
    found = holders.holding(db, project_id, line.data["hashes"])
    if not found:
        record(db, project_id, Line(line.data | {"at": now}), actor, claimed=True)
    return found
