"""The guard's verdicts on the ledger lines it reads whole, kept between runs.

A line of a record this version does not know (or a newer Tree Ring's fields
on one it knows) is carried into the committed ledger only when the guard,
reading it whole, finds nothing in it (`ledger.withheld`). That reading costs
a large line a quarter of a second, and every person's write reads the
ledger's such lines again: a ledger holding many of them would slow every
write by seconds. So each verdict is kept in the store (the `ledger_verdicts`
setting) by the line's hash, beside the guard's own fingerprint: a line is
read once per clone, and a guard with a new rule reads every line again. Only
the lines of the last read are kept, so the record stays as small as the
ledger's share of such lines.

Whether a clean line holds what this clone forgot is asked as well, and its
answer kept beside a hash of the forgets it was reached by
(`ledger_carried.forgets_print`): a forget made since asks every line again,
and no forget asks none. A person's write that copies the carried lines
through unread (`ledger_carried.py`) loads nothing here unless another line
asks, and then keeps the verdicts it did not ask for (`partial`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tree_ring.model import jsontext
from tree_ring.store import settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from tree_ring.store.sql import Db

SETTING = "ledger_verdicts"
# Why a line whose guard verdict was clean is still left out.
FORGOTTEN = "holds what this clone forgot"
_GUARD: list[str] = []  # the fingerprint, once a process


def guard_print() -> str:
    """The guard's code, hashed: its modules and data files, in name order."""
    if not _GUARD:
        import tree_ring
        from tree_ring import guard

        digest = hashlib.sha256(tree_ring.__version__.encode())
        folder = Path(guard.__file__).parent
        for path in sorted(folder.iterdir()):
            if path.suffix in (".py", ".txt"):
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
        _GUARD.append(digest.hexdigest()[:32])
    return _GUARD[0]


class Verdicts:
    """The verdicts of one read of the ledger: those kept (`load`), and those
    the guard reaches now; `save` keeps the ones this read asked for (with
    `partial`, the kept ones too). `forgets`: the hash of the forgets the
    kept answers of `quoting` (the keys of lines that held forgotten words)
    were reached by; None: none is kept, each is asked."""

    def __init__(
        self,
        kept: dict[str, str | None],
        guard: str | None,
        forgotten: Callable[[Any], bool] | None = None,
        forgets: tuple[str, str | None, set[str]] | None = None,
    ) -> None:
        self.kept = kept
        self.guard = guard
        self.asked: dict[str, str | None] = {}
        self.forgotten = forgotten
        # (the forgets now, those the kept answers were reached by, the kept answers)
        self.forgets = forgets
        self.quoting: set[str] = set()
        self.partial = False

    def of(self, text: str, judge: Callable[[], str | None], data: Any = None) -> str | None:
        """Why `text` is left out (None: it is carried): the guard's reason,
        read once; else, for a store's read (`load`), that it holds what this
        clone forgot, read again whenever a forget came between two reads.
        `data`: the text's JSON value, whose strings are read."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        if key not in self.asked:
            self.asked[key] = self.kept[key] if key in self.kept else judge()
        why = self.asked[key]
        if why is None and self.forgotten is not None and self._quotes(key, data):
            return FORGOTTEN
        return why

    def _quotes(self, key: str, data: Any) -> bool:
        assert self.forgotten is not None
        if self.forgets is not None and self.forgets[0] == self.forgets[1] and key in self.kept:
            quotes = key in self.forgets[2]
        else:
            quotes = self.forgotten(data)
        if quotes:
            self.quoting.add(key)
        return quotes

    def save(self, db: Db) -> None:
        """Keep this read's verdicts in the caller's transaction, when they changed."""
        lines = {**self.kept, **self.asked} if self.partial else self.asked
        now = self.forgets[0] if self.forgets is not None else None
        quoting = self.quoting
        if self.partial and self.forgets is not None:
            # The kept answers stand for the lines not asked only under the same forgets.
            if self.forgets[0] == self.forgets[1]:
                quoting = (self.forgets[2] - self.asked.keys()) | self.quoting
            else:
                now = None
        same = lines == self.kept and (self.guard is not None or not lines)
        if same and (now is None or self.forgets == (now, now, quoting)):
            return
        value: dict[str, Any] = {"guard": guard_print(), "lines": lines}
        if now is not None:
            value.update(forgets=now, quoting=sorted(quoting & lines.keys()))
        settings.write(db, SETTING, value)


def load(db: Db, project_id: str | None = None) -> Verdicts:
    """The verdicts kept by the last read, if the same guard reached them;
    with `project_id`, a line holding what that project's forgets
    tombstoned is left out too: the ledger holds no forgotten text."""
    forgotten = None if project_id is None else _forgotten(db, project_id)
    stored = jsontext.as_object(settings.stored(db, SETTING)) or {}
    lines = jsontext.as_object(stored.get("lines"))
    forgets = None
    if project_id is not None:
        from tree_ring.team.ledger_carried import forgets_print

        before = stored.get("forgets")
        quoting = stored.get("quoting")
        held: set[str] = set()
        if isinstance(quoting, list):
            held = {k for k in quoting if isinstance(k, str)}  # pyright: ignore[reportUnknownVariableType]
        forgets = (forgets_print(db, project_id), before if isinstance(before, str) else None, held)
    if not lines or stored.get("guard") != guard_print():
        return Verdicts({}, None, forgotten, forgets)
    # A verdict of any other kind than a reason or None reads as a refusal.
    kept = {key: (v if isinstance(v, str) or v is None else "") for key, v in lines.items()}
    return Verdicts(kept, guard_print(), forgotten, forgets)


class Lazy(Verdicts):
    """`load`'s verdicts, read from the store only once a line asks: a
    person's write that copies the carried lines through unread asks none."""

    def __init__(self, db: Db, project_id: str) -> None:
        super().__init__({}, None)
        self._source: tuple[Db, str] | None = (db, project_id)

    def of(self, text: str, judge: Callable[[], str | None], data: Any = None) -> str | None:
        if self._source is not None:
            loaded = load(*self._source)
            self._source = None
            self.kept, self.guard, self.forgotten = loaded.kept, loaded.guard, loaded.forgotten
            self.forgets = loaded.forgets
        return super().of(text, judge, data)

    def save(self, db: Db) -> None:
        if self._source is None:
            super().save(db)


def _forgotten(db: Db, project_id: str) -> Callable[[Any], bool]:
    from tree_ring.store import tombstones

    def holds(data: Any) -> bool:
        return tombstones.quoted(db, project_id, texts_of(data), forgets_only=True)

    return holds


def texts_of(value: object) -> list[str]:
    """Every string a line's value holds, at any depth of its lists and
    objects, their keys too: what a check of a line's words reads. Walked
    with a stack, so no nesting is too deep for it."""
    found: list[str] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            # Its keys too: a key can hold words as well as a value can.
            stack.extend(item.values())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            stack.extend(item.keys())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        elif isinstance(item, list):
            stack.extend(item)  # pyright: ignore[reportUnknownArgumentType]
    found.reverse()
    return found
