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
from tree_ring.team import ledger, ledger_state, sync
from tree_ring.team import repository as team
from tree_ring.team.ledger_verdicts import texts_of


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
    numbered = ledger.numbered(path.read_text(encoding="utf-8", errors="replace"))
    lines = list(ledger.loose(numbered))
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
    copied = _forgotten_text(numbered, db, header)
    if copied:
        return (
            False,
            f"{name} holds text this store forgot in {len(copied)} line(s) it did not write "
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
        named = {str(line.data["id"]) for line in _memory_lines(lines)} & forgotten
        # A consolidation rewritten in place, when one of its sources was
        # forgotten, keeps its id with its old text tombstoned under it: an
        # id the store still holds is no memory it forgot (its line's text
        # is `_forgotten_text`'s to read).
        return named - rows.content_hashes(db, named).keys()
    except TreeRingError:  # a store too damaged or too old to say
        return set()


def _forgotten_text(numbered: list[tuple[int, str]], db: Db, project_id: str | None) -> list[str]:
    """Where the ledger holds what this store's forgets tombstoned, in a line
    other than the store's own memory lines (a line of a memory the store
    holds, with its content): a line copied or edited into the file, of any
    record, this version's or not, whatever it says of itself (a
    re-admission included: the store that holds one writes its line).
    `sync` drops such a line; a `git commit` would take it. A memory line is
    read as a write of it would be checked (`tombstones.check_keys`), and
    every line's texts, its other fields and a line that is no JSON object
    too, each as a write's text. Each is named by its id, or its line."""
    if project_id is None:
        return []
    found: list[str] = []
    parsed: list[tuple[str, dict[str, object] | None, str]] = []  # (name, object, raw)
    for number, raw in numbered:
        if not raw.strip():
            continue
        data: object
        try:
            data = jsontext.loads(raw)
        except (ValueError, RecursionError):
            data = None
        line = cast("dict[str, object]", data) if isinstance(data, dict) else None
        named = line.get("id") if line is not None else None
        parsed.append((named if isinstance(named, str) else f"line {number}", line, raw))
    try:
        held = rows.content_hashes(db, [name for name, _, _ in parsed])
        own = {
            name
            for name, line, _ in parsed
            if line is not None
            and name in held
            and line.get("record") == ledger.MEMORY
            and _content_hash(line) == held[name]
        }
        written = {
            str(line.data["id"]): line.data
            for line in ledger_state.store_lines(db, project_id, own).values()
        }
        for name, line, raw in parsed:
            if line is None:
                texts = [raw]
            elif name in own:
                # The store's own line: only what it does not write there.
                mine = written.get(name, {})
                texts = texts_of([value for key, value in line.items() if mine.get(key) != value])
            else:
                texts = texts_of(line)
            if tombstones.quoted(db, project_id, texts, forgets_only=True) or (
                line is not None and name not in own and _holds_forgotten(line, db, project_id)
            ):
                found.append(name)
    except TreeRingError:  # a store too damaged or too old to say
        return []
    return found


def _content_hash(line: dict[str, object]) -> str | None:
    try:
        return from_mapping(line).with_hash().content_hash
    except (TreeRingError, TypeError, ValueError):
        return None


def _holds_forgotten(line: dict[str, object], db: Db, project_id: str) -> bool:
    """Whether a memory line, read as a write of it would be checked, holds
    what this store's forgets tombstoned."""
    if line.get("record") != ledger.MEMORY:
        return False
    try:
        memory = from_mapping(line).with_hash()
    except (TreeRingError, TypeError, ValueError):
        return False
    return bool(tombstones.held(db, project_id, tombstones.check_keys(memory), forgets_only=True))


def _memory_lines(lines: list[ledger.Line]) -> list[ledger.Line]:
    """The memory lines whose id is text: a hand-edited line may hold
    anything there, which `sync` refuses and nothing here may trip on."""
    return [
        line
        for line in lines
        if line.data.get("record") == ledger.MEMORY and isinstance(line.data.get("id"), str)
    ]
