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
    the guard reaches now; `save` keeps the ones this read asked for."""

    def __init__(
        self,
        kept: dict[str, str | None],
        guard: str | None,
        forgotten: Callable[[Any], bool] | None = None,
    ) -> None:
        self.kept = kept
        self.guard = guard
        self.asked: dict[str, str | None] = {}
        self.forgotten = forgotten

    def of(self, text: str, judge: Callable[[], str | None], data: Any = None) -> str | None:
        """Why `text` is left out (None: it is carried): the guard's reason,
        read once; else, for a store's read (`load`), that it holds what this
        clone forgot, asked every time, as a forget may come between two
        reads. `data`: the text's JSON value, whose strings are read."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        if key not in self.asked:
            self.asked[key] = self.kept[key] if key in self.kept else judge()
        why = self.asked[key]
        if why is None and self.forgotten is not None and self.forgotten(data):
            return FORGOTTEN
        return why

    def save(self, db: Db) -> None:
        """Keep this read's verdicts in the caller's transaction, when they changed."""
        if self.asked == self.kept and (self.guard is not None or not self.asked):
            return
        settings.write(db, SETTING, {"guard": guard_print(), "lines": self.asked})


def load(db: Db, project_id: str | None = None) -> Verdicts:
    """The verdicts kept by the last read, if the same guard reached them;
    with `project_id`, a line holding what that project's forgets
    tombstoned is left out too: the ledger holds no forgotten text."""
    forgotten = None if project_id is None else _forgotten(db, project_id)
    stored = jsontext.as_object(settings.stored(db, SETTING)) or {}
    lines = jsontext.as_object(stored.get("lines"))
    if not lines or stored.get("guard") != guard_print():
        return Verdicts({}, None, forgotten)
    # A verdict of any other kind than a reason or None reads as a refusal.
    kept = {key: (v if isinstance(v, str) or v is None else "") for key, v in lines.items()}
    return Verdicts(kept, guard_print(), forgotten)


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
