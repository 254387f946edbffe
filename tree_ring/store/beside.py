"""The ids of the store read beside this one, which no row here may take.

A project's brief and recall read the person's user store beside the
project's rows, and the user store's reads from a project read that project
beside it; an id names one memory in both. So no row written here (an
import's, a team ledger line's) may take an id the store beside holds, or
one it forgot: `show ID` and `refute ID` would reach the wrong memory, and
a forgotten note's id would name a live row in the brief beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tree_ring.model.user_home import USER_PROJECT
from tree_ring.store import rows, tombstones
from tree_ring.store.sql import Db

Source = Callable[[], tuple[Db, str] | None]


def taken(sources: Iterable[Source], ids: list[str]) -> dict[str, str]:
    """The ids among `ids` that a store of `sources` (each a function giving
    its Db and the project its rows are under, or None when there is none)
    holds or forgot, each with how a message names the memory."""
    found: dict[str, str] = {}
    for source in sources if ids else ():
        other = source()
        if other is None:
            continue
        there = (
            ("your user store", "this project's")
            if other[1] == USER_PROJECT
            else ("this project", "your user store")
        )
        forgot = set(map(str.casefold, tombstones.memory_ids(other[0], other[1])))
        gone = [memory_id for memory_id in ids if memory_id.casefold() in forgot]
        found |= dict.fromkeys(gone, "a memory {} forgot (read beside {})".format(*there))
        held = [*rows.content_hashes(other[0], ids), *rows.held_in_other_case(other[0], ids)]
        found |= dict.fromkeys(held, "a memory of {} (read beside {})".format(*there))
    return found


def of(db: Db) -> list[Source]:
    """The stores read beside `db`'s: those its writes answer to, and the
    one its opener named for ids alone (`Db.beside`)."""
    return [*db.answers_to, *([db.beside] if db.beside is not None else [])]
