"""The question-side precomputation of weighted BM25 gives bm25's numbers exactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tree_ring.read import bm25
from tree_ring.read.query import Concept, understand

STEMS = st.sampled_from(["deploy", "db", "databas", "outag", "down", "cach", "slow", "ci", "x"])
CONCEPTS = st.lists(
    st.builds(
        Concept,
        word=STEMS,
        weight=st.sampled_from([1.0, 0.3]),
        stems=st.dictionaries(STEMS, st.sampled_from([1.0, 0.75, 0.5]), min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=6,
).map(tuple)
TF = st.dictionaries(STEMS, st.sampled_from([0.4, 0.6, 1.0, 1.4, 2.0, 3.0]), max_size=8)


@given(CONCEPTS, TF, st.floats(1.0, 40.0), st.floats(0.0, 40.0))
def test_the_weigher_is_bm25(
    concepts: tuple[Concept, ...], tf: dict[str, float], length: float, avg: float
) -> None:
    idfs = {c.word: 1.0 + len(c.word) / 7 for c in concepts}
    weigh = bm25.Weigher(concepts, idfs)
    assert weigh(tf, length, avg) == bm25.bm25(tf, length, avg, concepts, idfs)


def test_the_weigher_reads_kin_below_the_word() -> None:
    question = understand("why is the DB slow")
    idfs = {c.word: 2.0 for c in question.concepts}
    weigh = bm25.Weigher(question.concepts, idfs)
    own, _ = weigh(*bm25.weighted_terms("the db was slow", "", ""), 4.0)
    kin, _ = weigh(*bm25.weighted_terms("the database was slow", "", ""), 4.0)
    none, coverage = weigh(*bm25.weighted_terms("lunch was fine", "", ""), 4.0)
    assert own >= kin > none == coverage == 0.0


def test_kin_cover_the_word_only_as_far_as_they_are_related() -> None:
    word = Concept("timeout", 1.0, {"timeout": 1.0, "latenc": 0.4})
    other = Concept("checkout", 1.0, {"checkout": 1.0})
    idfs = {"timeout": 2.0, "checkout": 2.0}
    weigh = bm25.Weigher((word, other), idfs)
    _, held = weigh({"timeout": 1.0}, 4.0, 4.0)
    _, kin = weigh({"latenc": 1.0}, 4.0, 4.0)
    assert (held, kin) == (0.5, 0.2)  # half the question's idf; a kin at 0.4 of that
    assert bm25.bm25({"latenc": 1.0}, 4.0, 4.0, (word, other), idfs)[1] == kin


def test_a_question_of_no_content_word_is_covered_by_the_words_it_has() -> None:
    """ "outage" asks for a kind of memory and names no other content: what a
    memory holds of it is still how much of the question it covers."""
    minor = (Concept("outag", 0.3, {"outag": 1.0, "down": 0.8}),)
    weigh = bm25.Weigher(minor, {"outag": 2.0})
    assert weigh({"down": 1.0}, 4.0, 4.0)[1] == 0.8
    assert weigh({"lunch": 1.0}, 4.0, 4.0)[1] == 0.0
    mixed = (*minor, Concept("shop", 1.0, {"shop": 1.0}))
    # Beside a content word, the minor one counts for nothing, as before.
    assert bm25.Weigher(mixed, {"outag": 2.0, "shop": 2.0})({"down": 1.0}, 4.0, 4.0)[1] == 0.0


WORDS = st.sampled_from(
    ["deploy", "deploys", "deployed", "db", "database", "outage", "outages", "down", "cache",
     "caches", "slow", "ci", "x", "the", "was", "policies", "replies", "Running", "STRASSE"]
)  # fmt: skip
TEXT = st.lists(WORDS, max_size=12).map(" ".join)


@given(st.lists(WORDS, min_size=1, max_size=5).map(" ".join), TEXT, TEXT, TEXT)
def test_a_memory_read_for_one_question_weighs_as_read_whole(
    query: str, summary: str, tags: str, details: str
) -> None:
    """`Weigher.terms` keeps only the question's stems: the same score and
    coverage as the memory's every stem, with the same length."""
    question = understand(query)
    idfs = {c.word: 1.0 + len(c.word) / 7 for c in question.concepts}
    weigh = bm25.Weigher(question.concepts, idfs)
    whole_tf, whole_length = bm25.weighted_terms(summary, tags, details)
    kept_tf, kept_length = weigh.terms(summary, tags, details)
    assert kept_length == whole_length
    assert set(kept_tf) <= set(whole_tf)
    assert weigh(kept_tf, kept_length, 6.0) == weigh(whole_tf, whole_length, 6.0)
    assert weigh(kept_tf, kept_length, 6.0) == bm25.bm25(
        whole_tf, whole_length, 6.0, question.concepts, idfs
    )
