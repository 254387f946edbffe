"""The SessionStart hook's full pass over a large ledger, a bounded part per session.

A store far behind its ledger (a fresh clone of a long-lived project, a pull
that added thousands of lines) cannot take the whole ledger within the
harness's hook timeout: the harness kills the hook, the transaction rolls
back, and the next session starts over. So when the full pass (`sync.refresh`)
would check more than PART_LINES lines, each hook run takes one part: at most
PART_LINES lines the store does not already hold as its own, and PART_BYTES
of them, checked and applied in one transaction that commits, with how far it
got. The next session takes the next part; `tree-ring sync` takes all that
remains at once.

A part is whole ids: every line of an id, the file's and the upstream's, is
read together, so the merge rule picks the winner the full pass picks. The
ids go in the order the full pass applies them: those with a tombstone or
redaction line first (their content is recorded before any memory is
written, so forgotten content does not come in under another id), then those
with a trusted line, then the claims, each in id order. The lines that name
no id (the header, anchors, lines this version cannot read) are read with
every part, so a newer schema or another project's header is refused as the
full pass refuses it. The first part also reads the upstream's history of
the ledger when the full pass would (`ledger_history.py`), and the last
records the file and the upstream as seen, as the full pass does. Each line
is checked and applied exactly as the full pass checks and applies it
(`ledger_read.check_numbered`, `ledger_apply.apply`).

How far the parts got (`catchup` in the ledger setting) holds for one file
and one upstream: when either changed, the next part starts from the first id
again, where what was applied reads as the store's own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict
from tree_ring.model.identity import Origin
from tree_ring.store import settings
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.team import ledger, ledger_anchor, ledger_delta, ledger_history, sync, upstream
from tree_ring.team.ledger import Line
from tree_ring.team.ledger_apply import apply
from tree_ring.team.ledger_read import check_numbered, read_bytes
from tree_ring.team.ledger_report import SyncReport
from tree_ring.team.ledger_state import store_lines
from tree_ring.write import bulk

PART_LINES = 2_000  # lines checked per hook run: about a second on a slow machine
PART_BYTES = 4_000_000  # and their bytes: the guard's time grows with a line's length
LOOKUP = 256  # ids whose store lines are read at a time while a part is chosen
CATCHUP = "catchup"  # the ledger setting's key: [file sha256, upstream blob id, ids done]

Group = tuple[str, list[tuple[int, bytes]]]  # an id's key and its (line number, line)


def refresh(store: Store, root: Path, project_id: str) -> tuple[SyncReport | None, str | None]:
    """The hook's full pass: whole when the ledger is small, else one part.
    The report (None when only the file's time had moved) and, while lines
    remain, one line for a person saying how far the import got."""
    path = sync.path_of(root)
    data = read_bytes(path)
    if data.count(b"\n") <= PART_LINES or not sync.changed(store.db, path):
        return sync.refresh(store, root, project_id), None
    up = upstream.read(root)
    shared, groups = _groups(data, up)
    if sum(len(lines) for _, lines in groups) <= PART_LINES:
        return sync.refresh(store, root, project_id), None
    return _part(store, root, project_id, data, up, shared, groups)


def _groups(data: bytes, up: upstream.Upstream) -> tuple[list[tuple[int, bytes]], list[Group]]:
    """The lines every part reads, and the ids' lines in the order they are applied."""
    text = data.decode("utf-8", "replace")
    if ledger.has_markers(text):
        _, _, conflicts = ledger.sides(text)
        raise Conflict(
            f"the ledger holds {conflicts} conflict(s) from a text merge; run "
            "`tree-ring doctor --repair` to resolve them by the ledger's rule"
        )
    pieces = data.split(b"\n")
    numbered = [(n, piece) for n, piece in enumerate(pieces, start=1) if piece.strip()]
    present = set(pieces)
    numbered += [(0, piece) for piece in sorted(up.lines - present)]
    shared: list[tuple[int, bytes]] = []
    by_key: dict[str, list[tuple[int, bytes]]] = {}
    stones: set[str] = set()
    trusted: set[str] = set()
    for number, piece in numbered:
        found = _entry(piece)
        if found is None:
            shared.append((number, piece))
            continue
        key, record = found
        by_key.setdefault(key, []).append((number, piece))
        if record != ledger.MEMORY:
            stones.add(key)
        if number == 0 or piece in up.lines:
            trusted.add(key)

    def order(key: str) -> tuple[int, str]:
        return (0 if key in stones else 1 if key in trusted else 2, key)

    return shared, [(key, by_key[key]) for key in sorted(by_key, key=order)]


def _entry(piece: bytes) -> tuple[str, str] | None:
    """A memory, tombstone or redaction line's key and record; None for any other."""
    return ledger.record_of(piece, ledger.ENTRY_RANK)


def _part(
    store: Store,
    root: Path,
    project_id: str,
    data: bytes,
    up: upstream.Upstream,
    shared: list[tuple[int, bytes]],
    groups: list[Group],
) -> tuple[SyncReport, str | None]:
    path = sync.path_of(root)
    report = SyncReport(str(path))
    report.upstream = up.ref
    actor = Actor("ledger", Origin("import"))
    mark = ["sha256:" + hashlib.sha256(data).hexdigest(), up.oid]
    with bulk.page_cache(store.db, bulk.CACHE_KIB // 2), store.write() as db:
        state: dict[str, Any] = ledger_anchor.state_of(db)
        held: Any = state.get(CATCHUP)
        start = 0
        if isinstance(held, list) and held[:2] == mark and isinstance(held[2], int):  # pyright: ignore[reportUnknownMemberType]
            start = min(int(held[2]), len(groups))  # pyright: ignore[reportUnknownArgumentType]
        if start == 0:
            first = state.get("sha256") is None and state.get("seen") is None
            if ledger_history.due(state, first):
                report.history = ledger_history.take_checked(
                    db, up, project_id, actor, report.notes
                )
        end, mine = _choose(db, project_id, groups, start)
        numbered = list(shared)
        for _, lines in groups[start:end]:
            numbered += lines
        known = {line.text: line for line in mine.values()}
        read = check_numbered(numbered, project_id, known, trusted=up, judge_unknown=False)
        report.skipped = read.skipped
        apply(db, read, mine, project_id, actor, report, up)
        ledger_delta.record_claims(db, report.claim_lines)
        state = ledger_anchor.state_of(db)  # the history's read may have moved it
        if end < len(groups):
            settings.write(db, ledger_anchor.SETTING, {**state, CATCHUP: [*mark, end]})
        else:
            sync.remember_file(db, path, data, up)
    sync.settle(store, report)
    if end >= len(groups):
        return report, None
    done = len(shared) + sum(len(lines) for _, lines in groups[:end])
    total = len(shared) + sum(len(lines) for _, lines in groups)
    return report, (
        f"{done:,} of {total:,} lines imported so far; the next session imports more, "
        "or `tree-ring sync` imports the rest now"
    )


def _choose(
    db: Db, project_id: str, groups: list[Group], start: int
) -> tuple[int, dict[str, Line]]:
    """Where this part ends, and the store's own lines for its ids. A line
    the store already holds as its own is not checked again, so only the
    others count against PART_LINES and PART_BYTES; every part takes at
    least one id."""
    mine: dict[str, Line] = {}
    lines = size = 0
    end = start
    while end < len(groups):
        batch = groups[end : end + LOOKUP]
        ids = [key[1:] for key, _ in batch]
        found = store_lines(db, project_id, ids)
        texts = {line.text for line in found.values()}
        for key, group in batch:
            fresh = [piece for _, piece in group if piece.decode("utf-8", "replace") not in texts]
            cost, weight = len(fresh), sum(len(piece) for piece in fresh)
            if end > start and (lines + cost > PART_LINES or size + weight > PART_BYTES):
                return end, mine
            lines, size, end = lines + cost, size + weight, end + 1
            if key in found:
                mine[key] = found[key]
    return end, mine
