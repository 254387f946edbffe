"""What a brief found of the rows it read, kept for the next brief.

Every brief checks each row it may show twice over: the guard reads its text
for a secret (a rule newer than the row may find one), and, where the other
store forgot something, its claims are keyed against those tombstones
(`read/forgotten_here.py`). Both answers are the same for the same row until
something they depend on moves, and loading the guard and the keys' modules
is most of what a SessionStart hook costs past opening the store. So the
answers are kept in the project's store (the `brief_checks` setting) and used
again while what they were reached by holds:

- a text the guard found clean, by the text's hash, while the guard's code
  and the keys' code are the ones that answered (`code_print`: Tree Ring's
  version and each of those files' name, size and time);
- a row's answer against a store's forgets, by the hash of the whole row (so
  any edit asks again), while that store's tombstones have not moved
  (`store/moved.tombstones`); a row that some tombstone held is kept only
  while the audit log of its own store is as it was too, as a person's
  re-admission of it is written there (`audit.head`: the last entry's
  sequence number and hash, which name the log's whole history).

A single write adds the text of the row it wrote, which it ran the guard
over (`store/guard_answers.py`, where the record's shape is kept): the first
brief after a capture need not load the guard for it. A secret, a damaged
setting or a store that keeps no count keeps nothing: the check runs as it
would without this record. The record holds only the
answers the last brief asked for (and those the brief before asked, to
`MOST` of each), so it stays as small as a brief.
"""

from __future__ import annotations

from tree_ring.model import jsontext
from tree_ring.store.guard_answers import MOST, SETTING, code_print, key_of, newest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from tree_ring.model.record import Memory
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db


def row_print(memory: Memory) -> str:
    """The hash of every field of `memory`: an answer about it holds for this row as it is."""
    return key_of(repr(tuple(getattr(memory, name) for name in memory.__names__)))


class Forgets:
    """The answers about one store's rows against the other store's forgets:
    `clear` (no tombstone holds any of the row's keys), `held` (some does:
    hidden or not, as its re-admissions say). `changes`, `head`: what they
    were reached by (`store/moved.py`)."""

    def __init__(self, changes: int, head: Callable[[], str], kept: Any) -> None:
        self.changes = changes
        self.head = head
        self.clear: dict[str, None] = {}
        self.held: dict[str, bool] = {}
        self._kept_head: str | None = None
        self._kept_clear: set[str] = set()
        self._kept_held: dict[str, bool] = {}
        record = jsontext.as_object(kept) or {}
        # Kept under these tombstones only (a bool is an int to Python: not a count).
        if type(record.get("changes")) is int and record["changes"] == changes:
            self._kept_clear = set(jsontext.strings(record.get("clear")))
            held, then = jsontext.as_object(record.get("held")), record.get("head")
            if held is not None and isinstance(then, str):
                self._kept_head = then
                self._kept_held = {k: v for k, v in held.items() if type(v) is bool}
        self._head: str | None = None

    def known(self, key: str) -> bool | None:
        """Whether the row of print `key` is hidden, as kept; None: not kept."""
        if key in self._kept_clear:
            self.clear[key] = None
            return False
        if key in self._kept_held and self._current_head() == self._kept_head:
            self.held[key] = self._kept_held[key]
            return self.held[key]
        return None

    def found(self, key: str, *, held: bool, hidden: bool) -> None:
        if held:
            self.held[key] = hidden
        else:
            self.clear[key] = None

    def _current_head(self) -> str:
        if self._head is None:
            self._head = self.head()
        return self._head

    def value(self) -> dict[str, Any]:
        value: dict[str, Any] = {
            "changes": self.changes,
            "clear": newest(self._kept_clear, self.clear),
        }
        if self.held:
            held = {k: v for k, v in self._kept_held.items() if k not in self.held}
            if self._kept_head != self._current_head():
                held = {}
            held.update(self.held)
            value.update(head=self._current_head(), held=dict(list(held.items())[-MOST:]))
        return value

    @property
    def asked(self) -> bool:
        """Whether anything was found that the record did not hold."""
        return bool(self.clear.keys() - self._kept_clear) or any(
            self._kept_held.get(k) != v or self._kept_head != self._current_head()
            for k, v in self.held.items()
        )


class BriefChecks:
    """The answers kept in a project's store, and those this brief reaches."""

    def __init__(self, stored: Any) -> None:
        self.code = code_print()
        kept = jsontext.as_object(stored) or {}
        if kept.get("code") != self.code:
            kept = {}
        self._kept_clean = set(jsontext.strings(kept.get("clean")))
        self._kept_forgets = jsontext.as_object(kept.get("forgets")) or {}
        self.clean_now: dict[str, None] = {}
        self.forgets: dict[str, Forgets] = {}

    @classmethod
    def load(cls, db: Db) -> BriefChecks:
        from tree_ring.store import settings

        return cls(settings.stored(db, SETTING))

    def clean(self, text: str) -> bool:
        """Whether the guard finds no secret in `text`, asked once."""
        key = key_of(text)
        if key not in self._kept_clean and key not in self.clean_now:
            from tree_ring import guard

            if guard.find_secret(text) is not None:
                return False
        self.clean_now[key] = None
        return True

    def against(self, name: str, forgetting: Db, read: Db) -> Forgets | None:
        """The answers about rows of `read` against `forgetting`'s forgets
        (`name`: which of the brief's two), or None where that store keeps
        no count of its tombstones' changes."""
        from tree_ring.store import moved

        changes = moved.tombstones(forgetting)
        if changes is None:
            return None
        found = Forgets(changes, lambda: _audit_head(read), self._kept_forgets.get(name))
        self.forgets[name] = found
        return found

    def save(self, store: Store) -> None:
        """Keep this brief's answers, when they add to the record: at once or
        not at all (another writer holding the store, a read-only store: the
        next brief asks again)."""
        asked = bool(self.clean_now.keys() - self._kept_clean) or any(
            f.asked for f in self.forgets.values()
        )
        if not asked or store.options.read_only:
            return
        from tree_ring.model.errors import StoreBusy, StoreFault
        from tree_ring.store import settings

        value = {
            "code": self.code,
            "clean": newest(self._kept_clean, self.clean_now),
            "forgets": {name: f.value() for name, f in self.forgets.items()},
        }
        try:
            with store.write(wait=False) as db:
                settings.write(db, SETTING, value)
        except (StoreBusy, StoreFault):
            return


def _audit_head(db: Db) -> str:
    """The audit log's last entry as a record keeps it, "seq:hash"; loaded
    only for a row a tombstone held."""
    from tree_ring.store import audit

    seq, last = audit.head(db)
    return f"{seq}:{last}"


def hidden_by(
    forgets: Forgets | None,
    memories: Sequence[Memory],
    judge: Callable[[Sequence[Memory]], tuple[set[str], set[str]]],
) -> set[str]:
    """The ids among `memories` the other store forgot: the kept answers,
    and `judge`'s (the hidden ids, the ids some tombstone held) for the rest."""
    if forgets is None:
        return judge(memories)[0]
    prints = {m.id: row_print(m) for m in memories}
    hidden: set[str] = set()
    rest: list[Memory] = []
    for memory in memories:
        known = forgets.known(prints[memory.id])
        if known is None:
            rest.append(memory)
        elif known:
            hidden.add(memory.id)
    if rest:
        found, held = judge(rest)
        for memory in rest:
            forgets.found(prints[memory.id], held=memory.id in held, hidden=memory.id in found)
        hidden |= found
    return hidden
