"""The table of every memory a content tombstone was recorded as (migration
`0021_tombstone_ids`); `tombstones.py` writes it, `ledger_rows.py` reads it."""

from __future__ import annotations

# Every memory id a content tombstone was recorded for. `content_tombstones`
# holds one row a hash, naming the memory forgotten last; a hash forgotten
# again under another id (content re-admitted, then forgotten again) keeps
# its first id here too, so the team ledger's tombstone line of that first
# memory stays in every clone's ledger (`ledger_rows.tombstones`): dropped,
# a clone that never took it would keep the memory it forgot. Rows are only
# added, as content tombstones are never removed.
TOMBSTONE_IDS = (
    """CREATE TABLE tombstone_ids (
        project       TEXT NOT NULL,
        memory_id     TEXT NOT NULL,  -- a memory the hash was forgotten or rejected as
        content_hash  TEXT NOT NULL,
        kind          TEXT NOT NULL,  -- as content_tombstones.kind, for this memory
        created_at    TEXT NOT NULL,  -- when this memory's tombstone was recorded
        PRIMARY KEY (project, memory_id, content_hash)
    )""",
)


# What the table holds of the content tombstones alone: made so, and made so again.
TOMBSTONE_IDS_FILL = (
    "INSERT OR IGNORE INTO tombstone_ids(project, memory_id, content_hash, kind, created_at)"
    " SELECT project, memory_id, content_hash, kind, created_at FROM content_tombstones"
)
