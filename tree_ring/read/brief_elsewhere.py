"""Whether an empty brief's project holds memories other sessions read.

A brief that shows a session nothing says so, and says when other partitions
of the project (another agent's or harness's own notes) hold a row a person
could share with it (`brief.ELSEWHERE`). Rows every read hides do not count:
those the person forgot in their user store (`read/forgotten_here.py`), read
a batch at a time, to a bound past which the brief says nothing. Loaded only
for an empty brief.
"""

from __future__ import annotations

from tree_ring.store import live, rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.identity import Identity
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.store.db import Store
    from tree_ring.store.live import View

# The rows of other partitions read, a batch at a time, at most.
BATCH, MOST = 32, 256


def held(store: Store, identity: Identity, view: View, forgotten: ForgottenHere | None) -> bool:
    """Whether other partitions of the project hold a row a person could
    share with this session: one the user store did not forget, among the
    first `MOST` (past them, the brief says nothing)."""
    found = live.elsewhere(store.db, identity, view)
    read = 0
    while read < MOST and (batch := found.fetchmany(BATCH)):
        read += len(batch)
        memories = [rows.from_row(row) for row in batch]
        hidden = forgotten.hidden(memories) if forgotten is not None else set[str]()
        if any(m.id not in hidden for m in memories):
            return True
    return False
