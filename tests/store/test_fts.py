"""The one FTS5 quoting function: any text becomes one literal string token."""

from __future__ import annotations

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
