"""What a brief does with two of its rows that say the same thing, or
contradict each other. Loaded only when a brief meets such a pair: the
SessionStart hook's other briefs never import it.

- The same words twice (an agent's note, in its own partition, of what the
  project already holds) take one line, and the line it frees goes to the
  next memory (`read/brief.select`).
- Two shown rows linked as contradicting that no person has settled (a
  person's own pair: their write is accepted and told to supersede the
  other) each name the other, so a session reading both values knows both
  are in question.
"""

from __future__ import annotations

from tree_ring.model.record import PRIVATE_SCOPES
from tree_ring.model.text import clip, one_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from tree_ring.model.record import Memory

MARK = " (contradicts {}, also shown; a person has not chosen between them)"


def one_of(kept: Memory, twin: Memory) -> Memory:
    """Of two rows of the same words, the one a brief shows: the project's
    before a partition's note, a person's before anyone else's; else the
    one the brief's order put first (`kept`)."""

    def held(memory: Memory) -> tuple[bool, bool]:
        return memory.scope not in PRIVATE_SCOPES, memory.origin == "person"

    return twin if held(twin) > held(kept) else kept


def contradiction_marks(memories: Sequence[Memory], marks: Mapping[str, str]) -> dict[str, str]:
    """`marks` (the brief's marks by id), with the mark of each of
    `memories` linked as contradicting another of them, no person having
    settled the pair, after its own. No query: the links are the rows' own."""
    from tree_ring.store.findings import settled

    shown = {m.id: m for m in memories}
    pairs = {
        (m.id, link.target)
        for m in memories
        for link in m.links
        if link.type == "contradicts" and link.target in shown and link.target != m.id
    }
    marked = dict(marks)
    for one, other in sorted(pairs | {(b, a) for a, b in pairs}):
        if not settled(shown[one], shown[other]):
            marked[one] = marked.get(one, "") + MARK.format(clip(one_line(other), 128))
    return marked
