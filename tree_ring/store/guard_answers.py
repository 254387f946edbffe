"""The guard's answers a project's store keeps for its briefs.

Each brief asks the guard whether the rows it may show hold a secret by
today's rules (`read/brief_checks.py`), and keeps the texts found clean, by
hash, under the `brief_checks` setting, for the code that answered
(`code_print`). A single write has run the guard over the row it writes
already, so it adds the text its brief line will be checked by (`add_clean`):
the first SessionStart after a capture then finds its answer kept and need
not load the guard. This module holds the record's shape, which both read,
and never the guard itself (it sits below it).
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext
from tree_ring.model.record import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from tree_ring.store.sql import Db

SETTING = "brief_checks"
# The most answers of each kind kept: several briefs' worth.
MOST = 256
# Besides the guard's package, the modules its verdicts and a row's keys
# (`tombstones.check_keys`, `carried_words.carried_keys`) are made by, as
# paths under `tree_ring/`: a test holds this to what computing them loads.
KEYS_CODE = (
    "model/claims.py",
    "model/confusables.py",
    "model/errors.py",
    "model/escapes.py",
    "model/fold.py",
    "model/frozen.py",
    "model/identifiers.py",
    "model/jsontext.py",
    "model/record.py",
    "model/text.py",
    "read/brief_checks.py",
    "read/forgotten_here.py",
    "store/audit.py",
    "store/carried_words.py",
    "store/guard_answers.py",
    "store/synced.py",
    "store/tombstones.py",
)
_CODE: list[str] = []  # the print, once a process


def code_print() -> str:
    """Tree Ring's version and the name, size and modification time of every
    file of the guard and of `KEYS_CODE`: a new rule, fold or key asks every
    answer again."""
    if not _CODE:
        import tree_ring

        package = tree_ring.__path__[0]
        parts = [tree_ring.__version__]
        with os.scandir(f"{package}/guard") as found:
            files = [
                (f"guard/{e.name}", e.path)
                for e in found
                if e.name[0] != "_" or e.name == "__init__.py"
            ]
        for name, path in sorted(files) + [(name, f"{package}/{name}") for name in KEYS_CODE]:
            seen = os.stat(path)
            parts.append(f"{name}:{seen.st_size}:{seen.st_mtime_ns}")
        _CODE.append(sha256("\n".join(parts)))
    return _CODE[0]


def key_of(text: str) -> str:
    """What the record keeps an answer by: 128 bits of the text's SHA-256."""
    return sha256(text)[7:39]


def brief_text(summary: str, source_ref: str | None) -> str:
    """The text a row's brief line is checked by: what the line shows."""
    return f"{summary} {source_ref}"


def newest(kept: Iterable[str], now: Iterable[str]) -> list[str]:
    """The keys asked now and, to `MOST`, those kept before."""
    fresh = list(dict.fromkeys(now))
    older = sorted(set(kept) - set(fresh))
    return [*older, *fresh][-MOST:]


def add_clean(db: Db, texts: Iterable[str]) -> None:
    """Keep `texts` as found clean by today's guard, in the caller's
    transaction (the caller ran the guard over each). A record another
    code answered is replaced: its answers no longer hold."""
    from tree_ring.store import settings

    record: dict[str, Any] = jsontext.as_object(settings.stored(db, SETTING)) or {}
    if record.get("code") != code_print():
        record = {"code": code_print()}
    kept = jsontext.strings(record.get("clean"))
    record["clean"] = newest(kept, [key_of(text) for text in texts])
    settings.write(db, SETTING, record)
