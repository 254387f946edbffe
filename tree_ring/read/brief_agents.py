"""How many of the brief's lines go to what agents wrote that no person has
reviewed: at most `MAX_UNVOUCHED` while rows a person stands behind are
waiting for a line.

The brief walks its index in ring order (scars, heartwood, the rest), newest
first within a ring, and an agent's captures are as new as its session. A
session that captures eight scars of its own (a prompt-injected one among
them) would otherwise fill every line of every later brief its harness
reads, and the person's heartwood and scars would drop out of sight. So the
agents' unreviewed rows (`brief.unvouched`: written by a harness, or kept
in an agent's partition, what it imported or consolidated there, and
reviewed by no person) keep at most three lines when rows someone vouched for (a person's
own, an import a person restored or approved, Tree Ring's summaries) want the
rest; lines those leave empty go back to the agents' rows. Everything is
still in brief order: the cap chooses which rows, never where they stand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_ring.model.record import Memory

# `brief.unvouched` and `brief.MAX_UNVOUCHED`, given by the caller: the brief
# is loaded at start-up, and this module only when the cap may bite.
Unvouched = Callable[[Memory], bool]
_RANK = {"scar": 0, "heartwood": 1}


def pooled(
    memories: Sequence[Memory], select: Callable[..., list[Memory]], unvouched: Unvouched
) -> list[Memory]:
    """`memories` (the first rows of the brief's order), and when agents'
    unreviewed rows are more of them than `MAX_UNVOUCHED`, the first rows of
    the same order that are not theirs too (`select(vouched=True)`, run only
    then), in the brief's order: what `choose` picks the lines from."""
    held = {m.id for m in memories}
    others = [m for m in select(vouched=True) if m.id not in held]
    # Said by a vouched row already: a summary of them, or the same words.
    said = [*others, *(m for m in memories if not unvouched(m))]
    covered = {link.target for m in said for link in m.links if link.type == "consolidates"}
    words = {m.content_hash for m in said}
    agents = [m for m in memories if unvouched(m)]
    agents = [m for m in agents if m.id not in covered and m.content_hash not in words]
    return in_brief_order([*(m for m in memories if not unvouched(m)), *others, *agents])


def choose(memories: Sequence[Memory], room: int, unvouched: Unvouched, cap: int) -> list[Memory]:
    """The rows of `memories` that take the brief's `room` lines, in the
    order given: the agents' unreviewed rows at most `cap` of them
    while other rows are left, and the lines those leave empty theirs again."""
    agents = [m for m in memories if unvouched(m)]
    if len(agents) <= cap:
        return list(memories[:room])
    others = [m for m in memories if not unvouched(m)]
    kept = min(len(agents), cap)
    shown = min(len(others), room - kept)
    kept = min(len(agents), room - shown)
    chosen = {m.id for m in [*others[:shown], *agents[:kept]]}
    return [m for m in memories if m.id in chosen]


def in_brief_order(memories: Sequence[Memory]) -> list[Memory]:
    """`memories` in the brief index's order (`schema.BRIEF_ORDER`): ring
    (scars, heartwood, the rest), then salience and confidence, highest
    first, then the newest."""
    newest = sorted(memories, key=lambda m: m.created_at, reverse=True)
    return sorted(newest, key=lambda m: (_RANK.get(m.ring, 2), -m.salience, -m.confidence))
