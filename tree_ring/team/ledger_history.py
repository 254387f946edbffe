"""What the upstream's history of the team ledger forgot: read once, when a
store is built from the ledger.

Deleting a tombstone or redaction line in a later commit (a restored older
ledger, a text merge gone wrong) must not bring the content back, so a first
build records the hashes of every tombstone and redaction line the
upstream's ledger ever held (`upstream.forgotten_ever`), for an id the store
does not hold live, before anything is imported. Only the content is kept
out: what the id is now is the current ledger's to say.

A shallow clone has not fetched that history. The sync says so in one line
(`SyncReport.notes`) and keeps the read due (`UNREAD` in the ledger setting),
so the sync after `git fetch --unshallow` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tree_ring.model.actor import Actor
from tree_ring.model.errors import TreeRingError
from tree_ring.store import ledger_rows, settings
from tree_ring.store.sql import Db
from tree_ring.team import ledger, ledger_stones
from tree_ring.team.ledger import Line
from tree_ring.team.ledger_delta import SETTING
from tree_ring.team.upstream import Upstream

UNREAD = "history_unread"
SHALLOW = (
    "the clone is shallow: forgotten content in the ledger's history was not read; "
    "run `git fetch --unshallow` and `tree-ring sync`"
)
_FORGETTING = (ledger.TOMBSTONE, ledger.REDACTION)


def take(
    db: Db,
    up: Upstream,
    project_id: str,
    actor: Actor,
    check: Callable[[bytes], Line],
    notes: list[str],
) -> int:
    """Record the content of every tombstone and redaction line the
    upstream's ledger history held and no longer holds; how many lines.
    A shallow clone reads none: a note says so and the read stays due."""
    value: Any = settings.read(db, SETTING)
    state: dict[str, Any] = dict(value) if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownArgumentType]
    shallow = up.ref is not None and up.shallow()
    if shallow:
        notes.append(SHALLOW)
    if bool(state.get(UNREAD)) != shallow:
        settings.write(db, SETTING, {**state, UNREAD: shallow})
    if shallow:
        return 0
    live_ids = ledger_rows.unretired_ids(db, project_id)
    taken = 0
    pieces = up.forgotten_ever()
    notes.extend(up.skipped)  # a version of the ledger too large to diff, one line each
    for piece in pieces:
        if piece in up.lines:
            continue  # still in the ledger: imported with the rest
        try:
            line = check(piece)
        except (ValueError, RecursionError, TreeRingError):
            continue
        if line.data.get("record") not in _FORGETTING or line.data["id"] in live_ids:
            continue
        ledger_stones.record(db, project_id, line, actor, content_only=True)
        taken += 1
    return taken


def take_checked(db: Db, up: Upstream, project_id: str, actor: Actor, notes: list[str]) -> int:
    """`take`, each line checked as a line of the ledger read on its own."""
    from tree_ring.team.ledger_read import Read, check_line

    scratch = Read({}, {}, [], {})
    return take(db, up, project_id, actor, lambda p: check_line(p, project_id, scratch), notes)


def due(state: dict[str, Any], first: bool) -> bool:
    """Whether this sync reads the history: a first build, or one a shallow
    clone could not read."""
    return first or bool(state.get(UNREAD))
