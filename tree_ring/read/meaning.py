"""Recall's second stage: memories near the question in meaning, and how near.

Each memory's code (model/vectors.py) sits in `memory_meaning`, kept by
triggers beside the row. For a question whose words the vector table knows:

- `nearest` reads the signs of the newest SCAN codes of the memories the
  caller may see, live (recall's own predicate, in the scan's SQL, so the
  cap comes after it), keeps the KEEP whose signs differ least from the
  question's (XOR and popcount, a fraction of a microsecond each), and
  orders them by cosine; recall takes the POOL nearest;
- `cosines` gives the cosine of every candidate, whichever stage found it,
  for the ranking's `meaning` part.

The scan is bounded, so its cost is too: at most SCAN codes of a store of
any size, the newest; older memories are found by the words they share.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from tree_ring.model import vectors
from tree_ring.store import live
from tree_ring.store.db import Store

# How many of the newest memories the scan reads the signs of.
SCAN = 2_048
# How many the signs keep, to be weighed by cosine.
KEEP = 96
# How many of the nearest recall takes as candidates.
POOL = 24
# Below this nearness a memory is no nearer than most memories are to any question.
FLOOR = 0.4
# A memory holding none of the question's words ranks with those that do
# when it is at least this near (recall.py).
TIER = 0.3


def signs_sql(clause: live.Clause) -> str:
    """The signs of the newest codes of memories the caller may see, live:
    the predicate runs before the scan keeps its nearest, so hidden rows
    nearer the question can never crowd out a visible one."""
    return (
        "SELECT c.rowid, substr(c.code, 1, :width) FROM memory_meaning c "
        "CROSS JOIN memories m ON m.rowid = c.rowid "
        f"WHERE c.rowid > :low AND {clause.sql}"
    )


CODES_SQL = (
    "SELECT memory_meaning.rowid, code FROM json_each(:ids) AS wanted "
    "CROSS JOIN memory_meaning ON memory_meaning.rowid = wanted.value"
)


def question(text: str) -> vectors.Meaning | None:
    """The question's meaning, or None when the table knows none of its words."""
    return vectors.read(text)


def nearest(
    store: Store, meant: vectors.Meaning, newest: int, clause: live.Clause
) -> list[tuple[int, float]]:
    """(rowid, nearness) of the newest visible, live memories nearest the
    question, nearest first, at most KEEP of them, above FLOOR (`cosines`)."""
    width = vectors.dims() // 8
    wanted = vectors.signs(vectors.code(meant.vector))
    params = {**clause.params, "width": width, "low": max(newest - SCAN, 0)}
    rows = store.query(signs_sql(clause), params)
    if not rows:
        return []
    close = heapq.nsmallest(
        KEEP,
        [((wanted ^ int.from_bytes(signs, "little")).bit_count(), rowid) for rowid, signs in rows],
    )
    weighed = cosines(store, meant, [rowid for _, rowid in close])
    ranked = sorted(weighed.items(), key=lambda item: (-item[1], -item[0]))
    return [(rowid, cos) for rowid, cos in ranked if cos > FLOOR]


def cosines(store: Store, meant: vectors.Meaning, rowids: Iterable[int]) -> dict[int, float]:
    """rowid -> nearness to the question, for each of `rowids` that has a
    code: the cosine of their vectors times the share of the question the
    table knows, so a question that is mostly an unknown word is near nothing."""
    ids = "[" + ",".join(str(int(rowid)) for rowid in rowids) + "]"
    known, vector = meant.known, meant.vector
    return {
        rowid: known * vectors.cosine(vector, code)
        for rowid, code in store.query(CODES_SQL, {"ids": ids})
    }


def from_text(meant: vectors.Meaning, summary: str, details: str, tags: str) -> float:
    """The nearness of a memory that has no code (written while the vector
    table was missing), from its text as the trigger would have coded it."""
    found = vectors.embed(f"{summary} {details} {tags}")
    if found is None:
        return 0.0
    return meant.known * sum(a * b for a, b in zip(meant.vector, found, strict=True))
