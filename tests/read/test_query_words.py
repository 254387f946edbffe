"""The query reader's word rules at their edges: the stemmer's lengths, the
question's kind from its opening words, the names it asks about, the term cap."""

from __future__ import annotations

import pytest

from tree_ring.read import query


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("bus", "bus"),  # three letters: kept whole
        ("cats", "cat"),
        ("ties", "tie"),  # four letters: only the "s" goes
        ("flies", "fly"),
        ("dresses", "dress"),
        ("dress", "dress"),
        ("status", "status"),
        ("basis", "basis"),
        ("running", "run"),
        ("hopping", "hop"),
        ("filling", "fill"),  # doubled l, s and z stay
        ("buzzing", "buzz"),
        ("jumped", "jump"),
        ("aimed", "aim"),  # three letters left: the ending goes
        ("fled", "fled"),  # two would be left: kept
        ("fling", "fling"),
        ("brings", "bring"),
        ("nicely", "nice"),
        ("shared", "shar"),  # "shared" and "share" meet
        ("share", "shar"),
        ("rule", "rule"),  # four letters keep their "e"
    ],
)
def test_stem_at_each_length_rule(word: str, stem: str) -> None:
    assert query.stem(word) == stem


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("when did we ship", "when"),
        ("what year was it", "when"),
        ("how many retries", "count"),
        ("how long will it take", "count"),
        ("so how many", "count"),  # the cue within the first three words
        ("name them how many", ""),  # past them
        ("the port to use when it pages", ""),
    ],
)
def test_kind_comes_from_the_opening_words(question: str, kind: str) -> None:
    assert query.understand(question).kind == kind


def test_names_are_capitalised_words_after_the_first() -> None:
    assert query.understand("Alice met Bob and The Al X").names == {"al", "bob"}


def test_terms_drop_repeats_and_fillers_and_cap_length_and_count() -> None:
    assert query.terms("the The cache CACHE " + "x" * 70) == ["cache", "x" * 64]
    many = [f"w{i}" for i in range(20)]
    assert query.terms(" ".join(many)) == many[:16]
