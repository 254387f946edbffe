"""FTS5 query text: the one way a word becomes part of a MATCH expression.

User text never reaches MATCH as syntax. Each word is wrapped in double
quotes, with any double quote inside doubled, so FTS5 reads it as one string
token whatever it holds (`NEAR(`, `*`, `-`, `column:`, `OR`); callers join the
quoted words with the operators they mean; `at_least` writes "any k of
these" without writing every subset. `optimize` merges the store's FTS
indexes.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_ring.store.sql import Db

# The store's FTS5 indexes (store/schema.py): recall's, and the contradiction
# search's.
INDEXES = ("memory_fts", "claim_fts")


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
