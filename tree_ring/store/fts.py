"""FTS5 query text: the one way a word becomes part of a MATCH expression.

User text never reaches MATCH as syntax. Each word is wrapped in double
quotes, with any double quote inside doubled, so FTS5 reads it as one string
token whatever it holds (`NEAR(`, `*`, `-`, `column:`, `OR`); callers join the
quoted words with the operators they mean; `at_least` writes "any k of
these" without writing every subset. `optimize` merges the store's FTS
indexes; `defer` and `index_since` index a bulk write's rows at its end.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_ring.store import meaning, schema
from tree_ring.store.sql import Db

# The store's FTS5 indexes (store/schema.py): recall's, and the contradiction
# search's.
INDEXES = ("memory_fts", "claim_fts")
# Each FTS index's insert trigger, and the statement that indexes the rows
# past a rowid as that trigger would have, one by one.
DEFERRED = {
    "memories_fts_insert": "INSERT INTO memory_fts(rowid, summary, details, tags) "
    "SELECT rowid, summary, details, tags FROM memory_text WHERE rowid > ?",
    "memories_claim_fts_insert": "INSERT INTO claim_fts(rowid, summary) "
    "SELECT rowid, summary FROM memories WHERE rowid > ?",
}
INSERT_TRIGGERS = tuple(DEFERRED)
# Dropped by `defer` too, and made again by `index_since`, which codes the
# rows in one statement (store/meaning.py).
MEANING_TRIGGER = "memories_meaning_insert"


def quote(term: str) -> str:
    """`deploy` becomes `"deploy"`, and `a"b` becomes `"a""b"`."""
    return '"' + term.replace('"', '""') + '"'


def at_least(phrases: Sequence[str], need: int) -> str:
    """FTS5 text matching rows that hold at least `need` of `phrases`.

    Split the phrases in two halves: a row holds `need` of them exactly when,
    for some j, it holds j of the first half and `need - j` of the second. So
    each phrase is written O(log n) times rather than once per subset, and each
    time written is an index lookup.
    """
    if need == 1:
        return phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"
    if need == len(phrases):
        return "(" + " AND ".join(phrases) + ")"
    half = len(phrases) // 2
    first, second = phrases[:half], phrases[half:]
    clauses: list[str] = []
    for j in range(max(0, need - len(second)), min(need, len(first)) + 1):
        parts = [at_least(first, j) if j else "", at_least(second, need - j) if need > j else ""]
        held = [part for part in parts if part]
        clauses.append(held[0] if len(held) == 1 else "(" + " AND ".join(held) + ")")
    return "(" + " OR ".join(clauses) + ")"


def optimize(db: Db) -> None:
    """Merge each FTS index into one segment: the words of deleted and changed
    rows leave an index only when the segments holding them are merged."""
    for index in INDEXES:
        db.execute(f"INSERT INTO {index}({index}) VALUES ('optimize')")


def defer(db: Db) -> int:
    """Stop indexing inserted rows one by one: drop the insert triggers, in
    the caller's write transaction (a rollback restores them). Returns the
    last rowid, for `index_since`."""
    before = int(db.scalar("SELECT coalesce(max(rowid), 0) FROM memories"))
    for name in (*INSERT_TRIGGERS, MEANING_TRIGGER):
        db.execute(f"DROP TRIGGER {name}")
    return before


def index_since(db: Db, before: int) -> None:
    """Index the rows past `before` with one statement per FTS index, code
    their meaning in one more, and create the insert triggers again from the
    schema's own text."""
    for name, index in DEFERRED.items():
        db.execute(index, (before,))
        db.execute(schema.INDEX_TRIGGERS[name])
    meaning.code_missing(db, before)
    db.execute(schema.INDEX_TRIGGERS[MEANING_TRIGGER])
