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
        ("why is checkout slow", "why"),
        ("what caused the outage", "why"),
        ("where do builds get uploaded", "where"),
        ("which city hosts the replica", "where"),
        ("the reason we cache, why", ""),
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


class Counting(frozenset[str]):
    """A filler set that counts what it is asked."""

    asked = 0

    def __contains__(self, item: object) -> bool:
        Counting.asked += 1
        return super().__contains__(item)


def test_terms_stop_reading_once_they_have_their_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """A question of 50,000 distinct words (a pasted log) is read only until
    its first MAX_TERMS terms: each further word was checked against every
    term kept, so recall took seconds for a long question."""
    monkeypatch.setattr(query, "FILLER", Counting(query.FILLER))
    many = [f"w{i}" for i in range(50_000)]
    assert query.terms(" ".join(many)) == many[: query.MAX_TERMS]
    assert Counting.asked <= 2 * query.MAX_TERMS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("how do we log in to internal tools?", ["log", "login", "internal", "tools"]),
        ("Logged in users", ["logged", "login", "users"]),
        ("signing on from a new laptop", ["signing", "signin", "new", "laptop"]),
        ("sign in, then log in again", ["sign", "signin", "then", "log", "login", "again"]),
        # a noun after a determiner: the pair is two words, as written
        ("errors in the log in production", ["errors", "log", "production"]),
        ("the sign on the door", ["sign", "door"]),
        # not a pair the table knows
        ("users log out", ["users", "log", "out"]),
        ("log", ["log"]),
    ],
)
def test_a_verb_and_its_particle_also_bring_the_word_they_make(
    text: str, expected: list[str]
) -> None:
    assert query.terms(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("why couldn't the deploy start?", ["deploy", "start"]),
        ("the build doesn\u2019t pass", ["build", "pass"]),  # a typographic apostrophe
        ("what's Caroline's job?", ["caroline", "job"]),
        ("we can't ship and won't wait", ["ship", "will", "wait"]),
        ("I'm sure they've said it'd fail", ["sure", "they", "said", "fail"]),
        # an apostrophe that ends no contraction stays a word break
        ("rock'n'roll at five o'clock", ["rock", "n", "roll", "five", "o", "clock"]),
    ],
)
def test_contractions_are_read_as_their_words(text: str, expected: list[str]) -> None:
    """The index splits "couldn't" into "couldn" and "t"; searched, those
    would be the words of no question's subject."""
    assert query.terms(text) == expected


def test_the_words_of_a_pair_are_related_as_the_lexicon_relates_them() -> None:
    assert {"sign", "signin", "sso"} <= set(query.understand("log in").kin["login"])
    assert {"httpx", "requests"} <= set(query.understand("http client").kin["http"])


@pytest.mark.parametrize(
    ("text", "bears"),
    [
        ("We met yesterday", {"when"}),
        ("The deploy is on Friday at 10:30", {"when", "count"}),
        ("Released in 2023", {"when", "count"}),
        ("Two retries, then give up", {"count"}),
        ("Caching is off", set()),
        ("The Mayday call", set()),  # "may" only as a word
        ("Pinned to 3.11 because the wheels lag", {"count", "why"}),
        ("Rolled back due to a memory leak", {"why"}),
        ("Builds are uploaded to Artifactory", {"where"}),
        ("Builds are uploaded to artifactory", set()),  # a place is a name
        ("I'm gonna stay in Galway", {"where"}),
        ("Because Friday deploys broke prod, we stay in Dublin", {"why", "when", "where"}),
    ],
)
def test_what_a_memory_bears(text: str, bears: set[str]) -> None:
    assert {kind for kind in query.KINDS if query.bears(kind, text)} == bears
    assert not query.bears("who", text)  # no such kind: nothing is asked for
