"""A forget's words taken out of what other rows carry beside their claims.

A row's review reason and reviewer, origin session, source type,
supersession ids and link targets, and the paths of the files it is about,
are stored, shown, exported and written to the team ledger as they stand.
A write, an import or a sync refuses a row whose such field quotes content
already forgotten (`govern/reasons.carried_quoting`); a forget that comes
after the row was stored withholds the words there (`withhold`): each run of
a field's words that the forget tombstoned, keyed as a write's claims are
(`reasons.spans_held`), is replaced by `reasons.FORGOTTEN`, a supersession
id that quotes them by `WITHHELD_ID` (the row stays superseded), and a file
whose path quotes them is no longer one the row is about. The rows' new
states go into the forget's audit entry, and the ledger the store writes
next carries them (`team/ledger.rank` ranks the withheld line first).

A value repeats across rows (a session, a reviewer, a source type), so each
distinct value is keyed once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_ring.govern import reasons
from tree_ring.model import claims
from tree_ring.model.identifiers import readings
from tree_ring.model.record import Link, Memory, generated_id
from tree_ring.model.text import WITHHELD_ID
from tree_ring.store import carried_words, carrying, rows, tombstones
from tree_ring.store.sql import Db


class Withheld:
    """Each text's withheld form under the keys of forgotten content, each
    text keyed once: a row's field (`withhold`), a ledger line's
    (`team/ledger.withhold_carried`, `team/ledger_state.py`). `held`, in
    place of `keys`: the keys among those given that a store's tombstones
    hold (`tombstones.held`), asked once per text."""

    def __init__(
        self,
        keys: Sequence[str] = (),
        texts: Sequence[str] | None = None,
        *,
        held: Callable[[list[str]], set[str]] | None = None,
    ) -> None:
        self.held: Callable[[list[str]], set[str]] = held or set(keys).intersection
        self.seen: dict[str, str | None] = {}
        # The words the keys can be made of, when they are all keys of
        # `texts` and those are ASCII: a text with too few of them is keyed
        # whole only (`_may_hold`).
        self.words: set[str] | None = None
        split = [claims.plain_words(read) for text in texts or () for read in readings(text)]
        if texts and all(words is not None for words in split):
            self.words = {word for words in split if words for word in words}

    def withheld(self, text: str) -> str | None:
        """`text` with each run of forgotten words withheld; None when it holds none."""
        if text not in self.seen:
            found = None
            if carried_words.keyed(text) and self._may_hold(text):
                spans = reasons.spans_held(text, self.held)
                found = reasons.withheld(text, spans) if spans else None
            self.seen[text] = found
        return self.seen[text]

    def _may_hold(self, text: str) -> bool:
        """Whether `text` may hold forgotten words: a run of at least
        `tombstones.MIN_WORDS` of them, or else its whole fold is a key (a
        short claim with what annotates it: "Note: use tabs."). Keying
        every run of a text costs the square of its words; this, one split
        of each way the keys read it (`identifiers.readings`)."""
        if self.words is None:
            return True
        for read in readings(text):
            words = claims.plain_words(read)
            if words is None or sum(word in self.words for word in words) >= tombstones.MIN_WORDS:
                return True
            whole = claims.claim_text(read)
            if whole and self.held([tombstones.claim_key(whole)]):
                return True
        return False

    def path(self, path: str) -> bool:
        """Whether a file's path quotes forgotten words (`carried_words.path_texts`)."""
        return any(self.withheld(text) is not None for text in carried_words.path_texts(path))

    def memory_id(self, memory_id: str) -> str:
        """`memory_id`, or `WITHHELD_ID` when it quotes forgotten words, in
        itself or as the words of an id a file chose (`carried_words.id_texts`)."""
        if generated_id(memory_id):
            return memory_id
        held = any(self.withheld(text) is not None for text in carried_words.id_texts(memory_id))
        return WITHHELD_ID if held else memory_id

    def target(self, target: str) -> str:
        """A link's `target` with forgotten words withheld: an id as
        `memory_id` gives it, any other target (a file, a URL) run by run."""
        if target.startswith("mem_"):
            return self.memory_id(target)
        return self.withheld(target) or target


def withhold(
    db: Db, project: str, keys: Sequence[str], texts: Sequence[str] | None = None
) -> list[str]:
    """Withhold what `keys` (a forget's tombstones in `project`) hold from
    the fields `project`'s rows carry beside their claims, in the caller's
    transaction; the ids of the rows changed (the files a row is about are
    not in its audited state), in id order. `texts`: what the keys were
    made of, when the caller knows (`Withheld`)."""
    if not keys:
        return []
    values = Withheld(keys, texts)
    changes: dict[str, dict[str, object]] = {}
    for column in carrying.COLUMNS:
        for value in carrying.distinct(db, project, column):
            new = values.withheld(value)
            if new is None:
                continue
            for memory_id in carrying.holding(db, project, column, value):
                changes.setdefault(memory_id, {})[column] = new
    for memory in carrying.listing(db, project):
        listed = _listed(memory, values)
        if listed:
            changes.setdefault(memory.id, {}).update(listed)
    for memory_id, change in changes.items():
        rows.update(db, memory_id, **change)
    for path in carrying.paths(db, project):
        if values.path(path):
            carrying.unanchor(db, project, path)
    return sorted(changes)


def _listed(memory: Memory, values: Withheld) -> dict[str, object]:
    """The changes to `memory`'s links and supersession ids."""
    change: dict[str, object] = {}
    links = tuple(Link(type=link.type, target=values.target(link.target)) for link in memory.links)
    if links != memory.links:
        change["links"] = links
    supersedes = list(dict.fromkeys(values.memory_id(other) for other in memory.supersedes))
    if supersedes != list(memory.supersedes):
        change["supersedes"] = supersedes
    if memory.superseded_by is not None:
        successor = values.memory_id(memory.superseded_by)
        if successor != memory.superseded_by:
            change["superseded_by"] = successor
    return change
