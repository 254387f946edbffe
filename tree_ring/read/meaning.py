"""Recall's second stage: memories near the question in meaning, and how near.

Each memory's code (model/vectors.py) sits in `memory_meaning`, kept by
triggers beside the row. For a question whose words the vector table knows:

- `nearest` reads the signs of the newest SCAN codes, orders them by how
  little they differ from the question's (XOR and popcount, a fraction of a
  microsecond each), and weighs them by cosine KEEP at a time. Those near
  enough are read through recall's own visibility and liveness predicate; a
  hidden one takes no place, and while a batch held any, the next batch is
  weighed too, so hidden rows nearer the question never crowd out a
  visible one. At most POOL are kept;
- `widen` adds them to recall's candidates (the fewer of the question's
  words the words found, the further off they may be), and `weigh` gives every
  candidate its nearness, whichever stage found it, for the ranking's
  `meaning` part (`cosines` of the codes; a memory without one, or whose
  code is not a code's type and size, is weighed from its text).

The scan is bounded, so its cost is too: at most SCAN codes of a store of
any size, the newest; older memories are found by the words they share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tree_ring.model import vectors
from tree_ring.model.errors import StoreBusy, StoreFault
from tree_ring.store import meaning as codes
from tree_ring.store.db import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sqlite3 import Row

# How many of the newest memories the scan reads the signs of.
SCAN = 1_024
# How many the signs keep, to be weighed by cosine.
KEEP = 64
# How many of the nearest recall takes as candidates.
POOL = 24
# Below this nearness a memory is no nearer than most memories are to any
# question (nine in ten unrelated notes are further off).
FLOOR = 0.2
# A memory holding none of the question's words ranks with those that do
# when it is at least this share of the nearest candidate's nearness (recall.py).
TIER = 0.4
# Below this share of the question's words held by one candidate, a memory
# found by meaning alone joins when nearer than FLOOR, however near the
# memories the words found are (`admission`).
OPEN = 0.5
# How recall names a candidate this stage found.
MATCH = "near in meaning"


def near(nearness: float, nearest: float) -> bool:
    """Whether a candidate this near the question (the nearest candidate
    being `nearest`) says what was asked, for literal-first ranking: at
    least TIER of the nearest's nearness, or of FLOOR when none is that
    near, and more than half FLOOR, so faint nearness is never promoted."""
    return nearness > FLOOR / 2 and nearness >= TIER * max(nearest, FLOOR)


def admission(covered: float, closest: float) -> float:
    """How near the question a memory found by meaning alone must be to join
    the candidates, when the candidate holding most of the question's words
    holds `covered` of them (by idf) and the nearest found by its words is
    `closest`: nearer than that one when it holds them all, nearer than
    FLOOR when it holds OPEN or less, and in between, in proportion."""
    shut = max(0.0, min((covered - OPEN) / (1.0 - OPEN), 1.0))
    return FLOOR + shut * max(closest - FLOOR, 0.0)


def scaled(nearness: float, nearest: float) -> float:
    """A candidate's nearness on ranking's scale: the nearest candidate's is
    1, as relevance is the best's, unless none is nearer than FLOOR, when
    FLOOR is (faint nearness is not inflated)."""
    return nearness / max(nearest, FLOOR)


# Only sound codes are read (`codes.SOUND`): one edited outside Tree Ring
# into another type or length, however large, is never loaded, and its
# memory is weighed as one without a code.
SIGNS_SQL = (
    "SELECT rowid, substr(code, 1, :width) FROM memory_meaning "
    f"WHERE rowid > :low AND {codes.SOUND}"
)

CODES_SQL = (
    "SELECT memory_meaning.rowid, code FROM json_each(:ids) AS wanted "
    "CROSS JOIN memory_meaning ON memory_meaning.rowid = wanted.value "
    f"WHERE {codes.SOUND}"
)


def question(text: str) -> vectors.Meaning | None:
    """The question's meaning, or None when the table knows none of its words."""
    return vectors.read(text)


def nearest(
    store: Store,
    meant: vectors.Meaning,
    newest: int,
    bar: float,
    visible: Callable[[list[int]], dict[int, Row]],
) -> list[tuple[int, float, Row]]:
    """(rowid, nearness, candidate row) of the newest memories nearer the
    question than `bar`, nearest first, at most POOL, each one `visible`
    returns (a rowid -> row of those the caller may see, live)."""
    width = vectors.dims() // 8
    wanted = vectors.signs(vectors.code(meant.vector))
    rows = store.query(
        SIGNS_SQL, {"width": width, "low": max(newest - SCAN, 0), "size": vectors.code_size()}
    )
    order = sorted(
        ((wanted ^ int.from_bytes(signs, "little")).bit_count(), -rowid) for rowid, signs in rows
    )
    kept: list[tuple[int, float, Row]] = []
    for start in range(0, len(order), KEEP):
        weighed = cosines(store, meant, [-negated for _, negated in order[start : start + KEEP]])
        near = sorted(((cos, rowid) for rowid, cos in weighed.items() if cos > bar), reverse=True)
        seen = visible([rowid for _, rowid in near]) if near else {}
        kept += [(rowid, cos, seen[rowid]) for cos, rowid in near if rowid in seen]
        if len(kept) >= POOL or len(seen) == len(near):
            break  # no hidden row took a place: the next batch is further off
    kept.sort(key=lambda item: (-item[1], -item[0]))
    return kept[:POOL]


def widen(
    store: Store,
    meant: vectors.Meaning,
    found: dict[int, tuple[Row, str]],
    newest: int,
    read: Callable[[list[int]], list[Row]],
    covered: float,
) -> dict[int, float]:
    """Add to `found` (rowid -> candidate row and how it was found) the
    memories nearest the question that it lacks, `read` giving the candidate
    rows of those the caller may see, live; rowid -> nearness of each
    candidate that has a code.

    A memory found by meaning alone joins when it is nearer the question
    than `admission` asks for `covered`, the largest share of the question's
    words (by idf) a candidate holds: a question whose words one candidate
    holds all of gains no strangers; one whose words found little is open
    to every memory nearer than the floor."""
    near = cosines(store, meant, found)
    bar = admission(covered, max(near.values(), default=0.0))

    def visible(rowids: list[int]) -> dict[int, Row]:
        seen = {rowid: found[rowid][0] for rowid in rowids if rowid in found}
        unseen = [rowid for rowid in rowids if rowid not in found]
        if unseen:
            seen.update((row[0], row) for row in read(unseen))
        return seen

    for rowid, nearness, row in nearest(store, meant, newest, bar, visible):
        near[rowid] = nearness
        found.setdefault(rowid, (row, MATCH))
    return near


def weigh(
    store: Store,
    meant: vectors.Meaning,
    found: dict[int, tuple[Row, str]],
    near: dict[int, float],
    coded: bool = True,
) -> None:
    """Give `near` every candidate of `found` it lacks: its code's nearness,
    or, for a memory without a sound code (written while the vector table
    was missing, or its code edited outside Tree Ring) or when the codes
    are not `coded` by the installed table, its text's."""
    missing = [rowid for rowid in found if rowid not in near]
    if coded:
        near.update(cosines(store, meant, missing))
    for rowid in missing:
        if rowid not in near:
            row = found[rowid][0]
            near[rowid] = from_text(meant, row["summary"], row["details"], row["tags"])


def cosines(store: Store, meant: vectors.Meaning, rowids: Iterable[int]) -> dict[int, float]:
    """rowid -> nearness to the question, for each of `rowids` that has a
    sound code (`codes.SOUND`): the cosine of their vectors times the share
    of the question the table knows, so a question that is mostly an
    unknown word is near nothing."""
    ids = "[" + ",".join(str(int(rowid)) for rowid in rowids) + "]"
    known, vector = meant.known, meant.vector
    found = store.query(CODES_SQL, {"ids": ids, "size": vectors.code_size()})
    return {rowid: known * vectors.cosine(vector, code) for rowid, code in found}


def from_text(meant: vectors.Meaning, summary: str, details: str, tags: str) -> float:
    """The nearness of a memory that has no code (written while the vector
    table was missing), from its text as the trigger would have coded it."""
    found = vectors.embed(f"{summary} {details} {tags}")
    if found is None:
        return 0.0
    return meant.known * sum(a * b for a, b in zip(meant.vector, found, strict=True))


def current(store: Store) -> bool:
    """Whether the store's codes were made by the installed table, coding
    every memory again first when they were not and the store can be
    written (not read-only, no transaction of the caller's open, not held by
    another writer, not full): then True. False leaves the caller to weigh
    memories from their text."""
    if not codes.stale(store.db):
        return True
    if store.read_only or store.db.in_transaction or not codes.recorded(store.db):
        return False
    try:
        # No wait: a recall does not queue behind another writer (another
        # recall coding them); it weighs from text this once.
        with store.write(wait=False) as db:
            if codes.stale(db):  # another process may have coded them meanwhile
                codes.recode(db)
    except (StoreBusy, StoreFault):
        return False
    return True
