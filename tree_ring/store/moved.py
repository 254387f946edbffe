"""What tells a reader that a store's tombstones moved since it last looked.

A read that keeps what it found of rows against a store's tombstones
(`read/brief_checks.py`) may use it again only while those tombstones are as
they were (and, for a row a tombstone held, while the audit log that holds
its re-admissions ends where it ended: `audit.head`):

- `tombstones`: a count that every insert, update or delete of a content
  tombstone moves, by any writer, Tree Ring's code or a hand at the SQLite
  prompt (triggers, migration 0024). Each change moves it by a random step,
  so two histories of one store (a backup restored, then written again) do
  not reach one count with different tombstones. None where the store keeps
  no count (a store not yet migrated, the setting removed): then nothing is
  kept against it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

# The `settings` key of the count (declared in `store/settings.py`).
KEY = "tombstones.changes"
# Kept below 2**53, so every JSON reader reads the same whole number.
_BOUND = 2**53 - 1
_STEP = (
    f"UPDATE settings SET value = (CAST(value AS INTEGER) + 1 + (random() & 4294967295)) % {_BOUND}"
    f" WHERE key = '{KEY}'"
)
TRIGGERS = tuple(
    f"CREATE TRIGGER content_tombstones_moved_{event.lower()} AFTER {event} ON content_tombstones"
    f" BEGIN {_STEP}; END"
    for event in ("INSERT", "UPDATE", "DELETE")
)
# Migration 0024: the triggers, and the count's first value (random too, so
# two stores seldom share one).
COUNT_CHANGES = (
    *TRIGGERS,
    f"INSERT INTO settings(key, value) VALUES ('{KEY}', CAST(random() & 281474976710655 AS TEXT))"
    " ON CONFLICT(key) DO NOTHING",
)


def tombstones(db: Db) -> int | None:
    """The count of changes to the store's content tombstones, or None."""
    from tree_ring.store import settings

    value = settings.stored(db, KEY)
    return value if type(value) is int else None
