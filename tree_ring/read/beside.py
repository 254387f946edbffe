"""Memories written beside a candidate: a conversation's turns, a session's notes.

Memories written one after another, minutes apart, are each other's context.
A turn of a conversation often answers in its own words a question whose
words another turn holds: "we had a picnic with friends from church", "what
did you get up to?", "charades and a scavenger hunt". Recall reads that
structure in two places:

- **Gathering** (`gather`): once the candidates are scored, the best bring
  the memories written beside them, read by rowid under the same visibility
  and liveness as every candidate. The memory written just after one of the
  best `REPLY_SOURCES` that asks a question joins whatever words it holds (a
  reply answers in its own words); those up to `CONTEXT_REACH` before and
  after one of the best `NEIGHBOUR_SOURCES`, written within
  `CONTEXT_SECONDS` of it, join when they hold one of the question's words
  (a neighbour that holds none is a stranger to the question, however near
  in time).
- **Scoring** (`context`): each candidate's context is the best relevance of
  the candidates written beside it, times a share that says how they stand:
  a question just before it lends all of its relevance (this memory may be
  its answer); a memory two before it, with a question between, lends
  `ANSWERED_AFTER` (a statement, a question about it, this answer; the
  question between need not be a candidate); any other memory just before or
  after it lends `BESIDE`. Apart from context, a candidate is weighed by
  what it `answered`: the relevance of the question asked just before it,
  in that memory's question sentences alone (`ranking`'s `answered`).

Rowids stand for the order of writing: a bulk write, an import and a
conversation's turns take consecutive rowids, and the times bound what
counts as beside.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from tree_ring.model.record import seconds_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

# Memories written this close together are each other's context.
CONTEXT_SECONDS = 600.0
# The best candidates that ask a question bring the memory written after them.
REPLY_SOURCES = 10
REPLY_MATCH = "written after a match"
# The best candidates bring the memories written up to CONTEXT_REACH before
# and after them that hold one of the question's words.
NEIGHBOUR_SOURCES = 5
CONTEXT_REACH = 2
NEIGHBOUR_MATCH = "written beside a match"
# What a neighbour's relevance lends a candidate (`context`), beside the
# whole of a question just before it.
ANSWERED_AFTER = 0.8
BESIDE = 0.35

# rowid -> (the candidate's columns, how it was found); columns as recall's
# CANDIDATE_COLUMNS: rowid, created_at, ..., summary at 6.
Found = dict[int, tuple["sqlite3.Row", str]]
SUMMARY = 6


def asks(row: sqlite3.Row) -> bool:
    """Whether a memory asks a question."""
    return "?" in (row[SUMMARY] or "")


def gather(
    found: Found,
    ranked: Sequence[int],
    read: Callable[[Iterable[int]], list[sqlite3.Row]],
    holds: Callable[[sqlite3.Row], bool],
) -> tuple[Found, set[int]]:
    """The memories that join the candidates `found` beside the best of
    them (`ranked`: rowids, best first), read by `read` under recall's
    visibility and liveness; and the rowids of the neighbours read that ask
    a question, whether they join or not."""
    # rowid -> (the candidate it was written beside, how it joins)
    wanted: dict[int, tuple[int, str]] = {}
    for rank, rowid in enumerate(ranked[: max(REPLY_SOURCES, NEIGHBOUR_SOURCES)]):
        if rank < NEIGHBOUR_SOURCES:
            for step in range(-CONTEXT_REACH, CONTEXT_REACH + 1):
                if step and rowid + step > 0 and rowid + step not in found:
                    wanted.setdefault(rowid + step, (rowid, NEIGHBOUR_MATCH))
        if rank < REPLY_SOURCES and asks(found[rowid][0]) and rowid + 1 not in found:
            wanted[rowid + 1] = (rowid, REPLY_MATCH)
    joined: Found = {}
    asking: set[int] = set()
    if not wanted:
        return joined, asking
    for row in read(sorted(wanted)):
        source, how = wanted[row[0]]
        if how == REPLY_MATCH:
            joined[row[0]] = (row, how)
        elif _within(seconds_of(row[1]), seconds_of(found[source][0][1])):
            if asks(row):
                asking.add(row[0])
            if holds(row):
                joined[row[0]] = (row, how)
    return joined, asking


def context(
    by_rowid: dict[int, int],
    relevance: Sequence[tuple[float, float]],
    found: Sequence[tuple[sqlite3.Row, str]],
    written: Sequence[float | None],
    i: int,
    asking: Collection[int] = (),
) -> float:
    """Candidate `i`'s context: the best relevance (`relevance[j][0]`) of the
    candidates written beside it, times its share (the module's docstring).
    `by_rowid` maps a rowid to its index in `found` and `written`."""
    rowid = found[i][0][0]

    def at(step: int) -> int | None:
        j = by_rowid.get(rowid + step)
        return j if j is not None and _within(written[j], written[i]) else None

    best = 0.0
    for step in (-1, 1):
        j = at(step)
        if j is not None:
            share = 1.0 if step < 0 and asks(found[j][0]) else BESIDE
            best = max(best, relevance[j][0] * share)
    before, between = at(-2), at(-1)
    asked = rowid - 1 in asking if between is None else asks(found[between][0])
    if before is not None and asked:
        best = max(best, relevance[before][0] * ANSWERED_AFTER)
    return best


def answered(
    by_rowid: dict[int, int],
    asked: Sequence[float],
    found: Sequence[tuple[sqlite3.Row, str]],
    written: Sequence[float | None],
    i: int,
) -> float:
    """What candidate `i` answers: the relevance (`asked[j]`) that the
    candidate written just before it holds in the questions it asks. Where
    that memory asks "how often do you go to the park?", the turn after it,
    "a few times a week", is the answer, in words of its own."""
    j = by_rowid.get(found[i][0][0] - 1)
    return asked[j] if j is not None and _within(written[j], written[i]) else 0.0


def _within(first: float | None, second: float | None) -> bool:
    """Whether two record times lie within CONTEXT_SECONDS of each other
    (an unreadable time is beside nothing)."""
    return first is not None and second is not None and abs(first - second) <= CONTEXT_SECONDS
