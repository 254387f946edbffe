"""What a project forgot stays out of what it reads from the person's user store.

A project's brief and recall read the user store beside the project's store.
A global write made in this project answers to this project's tombstones
(`store/user.py`), but one made in another project answered only to that
project's and the user store's: a global note can hold what this project
forgot. Here such a row is hidden from this project's reads, as a forgotten
row is: a user-store row is hidden when a write of it into this project would
be refused (`tombstones.check_keys` against the project's own tombstones,
forgotten or rejected), but for the keys a person wrote it over
(`remember --override-tombstone`, recorded in the user store's audit log).
The project that wrote it, which forgot nothing of it, still reads it.

The filter runs before each read's cap, so hidden rows never take the place
of the rows after them: the brief reads the user store's rows in its order
until enough are kept (`read/brief.select`), and recall searches again with
the rows hidden so far left out until its best are all kept (`recall`).

Most projects have forgotten nothing: one probe of the tombstones' primary
key says so, and then nothing more is loaded or read (the SessionStart hook
keeps its own copy of the probe, `read/brief.py`). Otherwise each batch of
candidates costs one indexed lookup of their keys, and the keys' module is
loaded then.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.read.recall import Hit
    from tree_ring.store.db import Store
    from tree_ring.store.live import View
    from tree_ring.store.sql import Db

# Whether the project has any tombstone: a probe of the primary key's prefix.
ANY_SQL = "SELECT 1 FROM content_tombstones WHERE project = ? LIMIT 1"
# The most a recall asks for (`read/recall.recall` caps its limit there).
MOST = 256


class ForgottenHere:
    """The tombstones of `project` in its store `db`, as a filter of the rows
    read from the user store `mine`."""

    def __init__(self, db: Db, project: str, mine: Db) -> None:
        self.db = db
        self.project = project
        self.mine = mine

    def hidden(self, memories: Sequence[Memory]) -> set[str]:
        """The ids among `memories` that the project forgot: one lookup of all
        their keys, and one of the re-admissions of those that match."""
        from tree_ring.store import tombstones

        # What a write of each into the project would be checked by.
        keys = {m.id: set(tombstones.check_keys(m)) for m in memories}
        wanted = list(dict.fromkeys(k for own in keys.values() for k in own))
        stones = tombstones.held(self.db, self.project, wanted)
        matched = {i: own & stones for i, own in keys.items() if not own.isdisjoint(stones)}
        if not matched:
            return set()
        from tree_ring.store import audit

        # A person who wrote a row over these tombstones decided it may come back.
        allowed = audit.readmissions(self.mine, list(matched))
        return {
            i for i, own in matched.items() if own - set(allowed.get(i, {}).get("overrides", ()))
        }


def of(store: Store, project: str, mine: Store) -> ForgottenHere | None:
    """The filter for reads of `mine` in `project`, or None when the project
    forgot nothing (nothing to hide)."""
    if store.db.execute(ANY_SQL, (project,)).fetchone() is None:
        return None
    return ForgottenHere(store.db, project, mine.db)


def recall(
    mine: Store,
    reader: Identity,
    query: str,
    *,
    limit: int,
    view: View | None,
    forgotten: ForgottenHere,
) -> list[Hit]:
    """The best `limit` hits in the user store that the project did not forget.

    Each round leaves out every row hidden so far and asks for more than the
    last, so hundreds of hidden rows ranked first cost a few rounds, not one
    per row; a round that hides nothing is the answer."""
    from tree_ring.read.recall import recall as search

    hidden: set[str] = set()
    wanted = limit
    while True:
        hits = search(mine, reader, query, limit=wanted, view=view, hidden=hidden)
        newly = forgotten.hidden([h.memory for h in hits]) - hidden
        if not newly:
            return [h for h in hits if h.memory.id not in hidden][:limit]
        hidden |= newly
        wanted = min(MOST, max(wanted, limit + 2 * len(hidden)))
