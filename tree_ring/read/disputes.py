"""What an agent's refutation waiting for a person says of the rows a read
shows, for every client that lists them (`recall` and `list` on the command
line, MCP's recall): a refuted row's note, and a consolidation's that states a
refuted source (`brief.disputed_notes`, the brief's own marks), each reason
withheld with its row's text where the read withholds that
(`read/withheld.py`). A view of the past gets none: a refutation says what
is believed now."""

from __future__ import annotations

from tree_ring.read import withheld

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_ring.model.record import Memory
    from tree_ring.store.db import Store
    from tree_ring.store.live import View
    from tree_ring.store.sql import Db


def notes(
    store: Store, memories: Sequence[Memory], view: View, around: tuple[Db, str] | None = None
) -> dict[str, list[str]]:
    """Each of `memories` (read from `store` under `view`) that a waiting
    refutation speaks of, with what it says; `around`: for the user store's
    rows, the store and id of the project they are read in, whose forgets
    the reasons withhold too."""
    if not view.is_now():
        return {}
    # The brief's module only when a row could carry a note: a read's path stays light.
    if not any(m.trust == "disputed" or m.source_type == "consolidation" for m in memories):
        return {}
    from tree_ring.read import brief

    hidden = {m.id for m in memories if withheld.hidden(m, view)}
    return brief.disputed_notes(store, memories, hidden, around)
