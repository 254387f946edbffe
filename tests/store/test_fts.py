"""FTS5 query text: the one quoting function (any text becomes one literal
string token), and "at least k of these phrases"."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import PERSON, make_memory

from tree_ring.store import fts
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def test_a_word_is_wrapped_in_double_quotes() -> None:
    assert fts.quote("deploy") == '"deploy"'
    assert fts.quote('say "hi"') == '"say ""hi"""'
    assert fts.quote("") == '""'


@pytest.mark.parametrize(
    ("hostile", "matches"),
    [
        ('deploy" OR "x', False),  # the phrase "deploy or x", not an OR
        ("NEAR(deploy secret)", False),  # the phrase "near deploy secret"
        ("summary:secret", False),  # not a column filter: the phrase "summary secret"
        ("secret summary", True),  # the same two words, in the row's order
        ("deploy*", True),  # not a prefix query: the word "deploy"
        ("-secret", True),  # not a NOT: the word "secret"
        ("AND", False),
        ('"', False),
        ("(", False),
    ],
)
def test_hostile_text_is_searched_for_literally(
    store: Store, project_id: str, hostile: str, matches: bool
) -> None:
    pipeline.store_memory(store, make_memory(project_id, "Deploy the secret summary"), PERSON)
    found = store.query(
        "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?", (fts.quote(hostile),)
    )
    assert len(found) == (1 if matches else 0)


def test_a_quoted_word_matches_the_word(store: Store, project_id: str) -> None:
    kept = pipeline.store_memory(store, make_memory(project_id, "Deploy on Fridays"), PERSON).id
    found = store.query(
        "SELECT m.id FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid"
        " WHERE memory_fts MATCH ?",
        (fts.quote("fridays"),),
    )
    assert [row[0] for row in found] == [kept]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 7])
def test_at_least_matches_exactly_the_rows_holding_enough(count: int) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
    names = [f"word{chr(97 + i)}" for i in range(count)]
    for row in range(1, 2**count):
        held = " ".join(name for i, name in enumerate(names) if row >> i & 1)
        db.execute("INSERT INTO t(rowid, body) VALUES (?, ?)", (row, held))
    for need in range(1, count + 1):
        query = fts.at_least([fts.quote(n) for n in names], need)
        matched = {r for (r,) in db.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,))}
        assert matched == {r for r in range(1, 2**count) if r.bit_count() >= need}, need
