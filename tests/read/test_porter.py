"""The Porter stemmer recall uses to prune word forms stems as the FTS index does."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.read.porter import stem
from tree_ring.read.recall import word_forms
from tree_ring.store.schema import MEMORY_FTS

REPO = Path(__file__).resolve().parents[2]
# The index's own tokenizer, as the schema declares it.
TOKENIZE = re.search(r"tokenize\s*=\s*'([^']*)'", MEMORY_FTS)


def _vocabulary() -> list[str]:
    """Every ASCII word of the project's own text and fixtures, with the
    forms recall would widen each to."""
    words: set[str] = set()
    for path in [*REPO.glob("*.md"), *REPO.glob("docs/*.md"), *REPO.glob("tests/fixtures/**/*")]:
        if path.is_file():
            words |= set(re.findall(r"[a-z]+", path.read_text(errors="ignore").lower()))
    words |= {form for word in list(words) for form in word_forms(word)}
    # Words that are all suffix, or nearly: a rule needs a stem before it.
    words |= {"eed", "ies", "sses", "ing", "ings", "ied", "ational", "ization", "ement", "ive"}
    words |= {"ion", "sion", "tion", "ally", "ness", "ful", "able", "ible", "ate", "ize"}
    return sorted(w for w in words if 3 <= len(w) <= 64)


def _index_stems(words: list[str]) -> dict[str, str]:
    assert TOKENIZE is not None
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZE.group(1)}')")
    conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", list(enumerate(words, 1)))
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    return {words[doc - 1]: term for term, doc in conn.execute("SELECT term, doc FROM v")}


def test_it_stems_every_word_of_the_project_as_the_index_does() -> None:
    words = _vocabulary()
    assert len(words) > 5_000  # a vocabulary, not a handful
    index = _index_stems(words)
    assert set(index) == set(words)
    assert {w: (index[w], stem(w)) for w in words if index[w] != stem(w)} == {}


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("feed", "feed"),
        ("agreed", "agre"), ("plastered", "plaster"), ("motoring", "motor"), ("sing", "sing"),
        ("conflated", "conflat"), ("troubled", "troubl"), ("sized", "size"), ("hopping", "hop"),
        ("falling", "fall"), ("filing", "file"), ("happy", "happi"), ("relational", "relat"),
        ("conditional", "condit"), ("digitizer", "digit"), ("generalization", "gener"),
        ("electrical", "electr"), ("hopefulness", "hope"), ("adjustment", "adjust"),
        ("adoption", "adopt"), ("controll", "control"), ("rate", "rate"), ("limitation", "limit"),
        ("deployment", "deploy"), ("deploy", "deploi"), ("db", "db"),
        # A "y" doubled before "ed" or "ing" is a double consonant to the index.
        ("yyed", "y"), ("sayying", "sai"),
    ],
)  # fmt: skip
def test_classic_examples(word: str, expected: str) -> None:
    assert stem(word) == expected
    assert _index_stems([word]) == {word: expected}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("aeiouybcdlmnrstgzw", min_size=3, max_size=14), min_size=1, max_size=40))
def test_made_up_words_stem_as_the_index_stems_them(words: list[str]) -> None:
    words = sorted(set(words))
    index = _index_stems(words)
    assert {w: (index[w], stem(w)) for w in words if index[w] != stem(w)} == {}
