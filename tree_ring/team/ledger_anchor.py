"""This clone's anchor in the team ledger: the head of its audit log, so a
truncated or rewritten log shows against the committed history (docs/TEAM.md).

The store records the anchor it last wrote (its `ledger` setting), and that
record and the upstream's line for this clone are the anchors someone vouches
for (`own_anchors`); any other line of this clone's is a claim. A sync moves
the anchor when it writes a change of the ledger's other lines (what stays in
this clone, as an agent's own notes, changes no line: the file stays as it
is), and a person's write moves it as it writes the ledger (`moved`), unless
the log no longer holds what the anchor anchored: then it stays as evidence.
"""

from __future__ import annotations

import os
from typing import Any

from tree_ring.model import jsontext
from tree_ring.model.record import now_iso
from tree_ring.store import audit, settings
from tree_ring.store.sql import Db
from tree_ring.team import ledger
from tree_ring.team.ledger import Line

SETTING = "ledger"


def state_of(db: Db) -> dict[str, Any]:
    value: Any = settings.read(db, SETTING)
    return dict(value) if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownArgumentType]


def clone_id(db: Db) -> str:
    """This store's id among the clones that anchor in the ledger (made on first use)."""
    state = state_of(db)
    clone = state.get("clone")
    if not isinstance(clone, str) or not clone:
        clone = os.urandom(8).hex()
        settings.write(db, SETTING, {**state, "clone": clone})
    return clone


def _head(db: Db) -> tuple[int, str]:
    return audit.head(db)


def anchor_now(db: Db) -> Line:
    """This clone's anchor at its audit log's head as it now stands, recorded
    as the one the store wrote: `doctor --repair`'s answer to a log cut
    short with no backup to restore, a person's decision it audits."""
    seq, head = _head(db)
    line = Line(
        {"record": ledger.ANCHOR, "clone": clone_id(db), "seq": seq, "head": head, "at": now_iso()}
    )
    settings.write(db, SETTING, {**state_of(db), "anchor": anchor_fields(line.data)})
    return line


def own_anchors(
    db: Db, file_line: Line | None, theirs: set[bytes], seen: bool = False
) -> tuple[list[Line], Line | None]:
    """(this clone's anchors someone vouches for, the file's line of it when
    no one does). Vouched: the upstream's line for this clone, and the one
    the store records writing (a store from before that record: the file's
    line when the file is as the store last saw it, `seen`). Any other
    anchor of this clone's in the file (a working-tree edit, a local
    commit) is a claim: checked against nothing, rewritten by the next sync,
    so an edit raises no alarm against the audit log, while a log truncated
    behind a vouched anchor still does."""
    state = state_of(db)
    clone = state.get("clone")
    if not isinstance(clone, str) or not clone:
        return [], None
    vouched: list[Line] = []
    recorded = state.get("anchor")
    if isinstance(recorded, dict):
        try:
            fields = anchor_fields(recorded)  # pyright: ignore[reportUnknownArgumentType]
            vouched.append(Line({**fields, "record": ledger.ANCHOR, "clone": clone}))
        except (KeyError, TypeError, ValueError):
            pass
    mark = f'"clone":"{clone}"'.encode()
    for raw in sorted(theirs):
        if mark in raw and ledger.record_of(raw, frozenset((ledger.ANCHOR,))) is not None:
            line = Line(jsontext.loads_utf8(raw.decode("utf-8")))
            if line.key == "1" + clone and _anchor_shaped(line):
                vouched.append(line)
    if file_line is None:
        return vouched, None
    # The file's line first when vouched for: a sync that changed nothing keeps it.
    if any(line.text == file_line.text for line in vouched) or (
        not isinstance(recorded, dict) and seen
    ):
        return [file_line, *(line for line in vouched if line.text != file_line.text)], None
    return vouched, file_line


def anchor_fields(recorded: dict[str, Any]) -> dict[str, Any]:
    seq, head, at = recorded["seq"], recorded["head"], recorded["at"]
    if not (isinstance(seq, int) and isinstance(head, str) and isinstance(at, str)):
        raise ValueError("not an anchor")
    return {"seq": seq, "head": head, "at": at}


def _anchor_shaped(line: Line) -> bool:
    try:
        anchor_fields(line.data)
    except (KeyError, ValueError):
        return False
    return True


def anchors_problem(db: Db, anchors: list[Line]) -> str | None:
    """The first thing this clone's audit log says against a vouched anchor."""
    for anchor in anchors:
        problem = anchor_problem(db, anchor)
        if problem is not None:
            return problem
    return None


CLAIMED_ANCHOR = (
    "this clone's anchor line in the ledger (seq {seq}) is neither the one this store "
    "wrote nor the upstream's: a claim, not checked against the audit log; {then}"
)


OTHERS_ANCHORS = (
    "{n} anchor line(s) of other clones that the upstream's ledger does not hold left "
    "out (a claim: only that clone's own sync moves its anchor)"
)


def anchor_problem(db: Db, anchor: Line | None) -> str | None:
    """What this clone's audit log says against its anchor in the ledger."""
    if anchor is None:
        return None
    seq, head = int(anchor.data["seq"]), str(anchor.data["head"])
    if seq == 0:
        return None
    held = audit.hash_at(db, seq)
    if held is None:
        return (
            f"the audit log no longer holds entry {seq}, which the ledger anchored at "
            f"{anchor.data['at'][:19]}Z: it was truncated; restore it from a backup"
        )
    if held != head:
        return (
            f"audit entry {seq} differs from the one the ledger anchored at "
            f"{anchor.data['at'][:19]}Z: the log was rewritten; restore it from a backup"
        )
    return None


def moved(db: Db) -> Line | None:
    """This clone's anchor at its audit log's head, recorded, for a person's
    write of the ledger (`sync.after_write`): what it writes is committed
    with the entries that made it, so a cut of them shows. None when the
    head has not moved since the anchor the store recorded, or when the log
    no longer holds what that anchor anchored (it stays as the evidence)."""
    state = state_of(db)
    recorded = state.get("anchor")
    held = None
    if isinstance(recorded, dict):
        try:
            fields = anchor_fields(recorded)  # pyright: ignore[reportUnknownArgumentType]
        except (KeyError, TypeError, ValueError):
            return None
        held = Line({**fields, "record": ledger.ANCHOR, "clone": clone_id(db)})
        if anchor_problem(db, held) is not None:
            return None
    seq, head = _head(db)
    if held is not None and (held.data["seq"], held.data["head"]) == (seq, head):
        return None
    line = Line({"record": ledger.ANCHOR, "clone": clone_id(db), "seq": seq, "head": head,
                 "at": now_iso()})  # fmt: skip
    settings.write(db, SETTING, {**state_of(db), "anchor": anchor_fields(line.data)})
    return line
