"""`doctor` on the team ledger: conflicts a text merge left, and the audit anchor.

Kept apart from `doctor.py`, whose checks read only the store: this one reads
the ledger file and git's index, and repairs the file, never the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from tree_ring.model import jsontext, project
from tree_ring.model.errors import TreeRingError, UnsafePath
from tree_ring.model.imported import from_mapping
from tree_ring.store import rows, settings, tombstones
from tree_ring.store.sql import Db
from tree_ring.team import ledger, sync
from tree_ring.team import repository as team
from tree_ring.write import readmit


def check(root: Path, db: Db, *, repair: bool) -> tuple[bool, str, bool, str] | None:
    """(ok, detail, repairable, repaired), or None when there is no ledger."""
    path = sync.path_of(root)
    try:
        # Its kind before any read: a FIFO there would hold the read forever.
        if not project.expect(path, "file", project.LEDGER_FIX):
            return None
    except UnsafePath as exc:
        return (False, str(exc), False, "")
    name = f"{project.DIR}/{ledger.PATH}"
    found = team.resolve(root)
    if found is not None:
        if not repair:
            return (
                False,
                f"{name} holds {found.conflicts} conflict(s) from a text merge "
                "(git's merge driver for it is not configured here)",
                True,
                "",
            )
        done = team.repair(root)
        assert done is not None
        repaired = (
            f"resolved {done.conflicts} conflict(s) in {name} by the ledger's rule from "
            f"{done.source}; run `git add {name}`, then `tree-ring sync`"
        )
        return (True, "no conflicts", True, repaired)
    lines = list(ledger.loose(ledger.numbered(path.read_text(encoding="utf-8", errors="replace"))))
    anchor = _own_anchor(lines, db)
    problem = sync.anchor_problem(db, anchor) if anchor is not None else None
    if problem:
        return (False, problem, False, "")
    try:
        recorded = settings.recorded_project(db)
    except TreeRingError:  # a store too damaged or too old to say
        recorded = None
    # The ledger as a fresh clone's build reads it (`project.ledger_problem`):
    # a header naming another project, or none, or a newer schema.
    problem = project.ledger_problem(root, recorded) if recorded is not None else None
    if problem:
        return (False, problem, False, "")
    header = _header_project(lines)
    behind = _forgotten_here(lines, db, header)
    if behind:
        return (
            False,
            f"{name} still holds {len(behind)} memory(ies) this store forgot "
            f"({', '.join(sorted(behind)[:3])}{', ...' if len(behind) > 3 else ''}): a forget "
            "stopped before it rewrote the ledger; run `tree-ring sync` before committing it",
            False,
            "",
        )
    copied = _forgotten_text(lines, db, header)
    if copied:
        return (
            False,
            f"{name} holds text this store forgot under {len(copied)} id(s) it does not hold "
            f"({', '.join(copied[:3])}{', ...' if len(copied) > 3 else ''}): a line copied "
            "or edited into the file; run `tree-ring sync`, which refuses those lines and "
            "rewrites the ledger, before committing it",
            False,
            "",
        )
    driver = "" if team.driver_configured(root) else "; merge driver not configured (run init)"
    return (True, f"{name}: no conflicts, audit anchor ok{driver}", False, "")


def _own_anchor(lines: list[ledger.Line], db: Db) -> ledger.Line | None:
    try:
        clone = settings.stored(db, "ledger")
    except TreeRingError:  # a store too damaged or too old to say: nothing anchored
        return None
    state = jsontext.as_object(clone)
    mine = state.get("clone") if state is not None else None
    if not mine:
        return None
    for line in lines:
        if line.data.get("record") == ledger.ANCHOR and line.data.get("clone") == mine:
            return line
    return None


def _header_project(lines: list[ledger.Line]) -> str | None:
    header = next((line for line in lines if line.data.get("record") == ledger.HEADER), None)
    named = header.data.get("project") if header is not None else None
    return named if isinstance(named, str) else None


def _forgotten_here(lines: list[ledger.Line], db: Db, project_id: str | None) -> set[str]:
    """The ids of the ledger's memory lines whose memory this store forgot: a
    forget commits the store, then rewrites the ledger, and one killed between
    the two leaves the text in a file the person may commit. (A later write
    or sync rewrites it; until then git would take the forgotten text.)"""
    if project_id is None:
        return set()
    try:
        forgotten = tombstones.forgotten_ids(db, project_id)
    except TreeRingError:  # a store too damaged or too old to say
        return set()
    return {str(line.data["id"]) for line in _memory_lines(lines) if line.data["id"] in forgotten}


def _forgotten_text(lines: list[ledger.Line], db: Db, project_id: str | None) -> list[str]:
    """The ids of the ledger's memory lines that hold what this store's
    forgets tombstoned (read as a write of each line would be checked,
    `tombstones.check_keys`), under an id the store does not hold as that
    line's content: the forgotten text again, which a `sync` refuses but
    a `git commit` would take. A line the store writes itself (its own
    live memory, a person's re-admission among them) and a line carrying a
    person's re-admission to a teammate are left alone."""
    if project_id is None:
        return []
    memory_lines = [line for line in _memory_lines(lines) if readmit.CARRIED not in line.data]
    try:
        held = rows.content_hashes(db, [line.data["id"] for line in memory_lines])
        found: list[str] = []
        for line in memory_lines:
            memory_id = line.data["id"]
            try:
                memory = from_mapping(line.data).with_hash()
            except (TreeRingError, TypeError, ValueError):
                # No memory `sync` could take, yet a commit takes its words:
                # each text it holds is read as a write's would be.
                if tombstones.quoted(db, project_id, _texts(line.data), forgets_only=True):
                    found.append(memory_id)
                continue
            if held.get(memory_id) == memory.content_hash:
                continue
            keys = tombstones.check_keys(memory)
            if tombstones.held(db, project_id, keys, forgets_only=True):
                found.append(memory_id)
    except TreeRingError:  # a store too damaged or too old to say
        return []
    return found


def _memory_lines(lines: list[ledger.Line]) -> list[ledger.Line]:
    """The memory lines whose id is text: a hand-edited line may hold
    anything there, which `sync` refuses and nothing here may trip on."""
    return [
        line
        for line in lines
        if line.data.get("record") == ledger.MEMORY and isinstance(line.data.get("id"), str)
    ]


def _texts(value: object, depth: int = 0) -> list[str]:
    """Every string a line's value holds, its nested lists and objects
    read a few levels down."""
    if isinstance(value, str):
        return [value]
    items: list[object] = []
    if isinstance(value, dict):
        items = list(cast("dict[object, object]", value).values())
    elif isinstance(value, list):
        items = list(cast("list[object]", value))
    if depth >= 4:
        return []
    return [text for item in items for text in _texts(item, depth + 1)]
