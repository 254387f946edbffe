"""The question-side precomputation of weighted BM25 gives bm25's numbers exactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tree_ring.read import lexical
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
    weigh = lexical.Weigher(concepts, idfs)
    assert weigh(tf, length, avg) == lexical.bm25(tf, length, avg, concepts, idfs)


def test_the_weigher_reads_kin_below_the_word() -> None:
    question = understand("why is the DB slow")
    idfs = {c.word: 2.0 for c in question.concepts}
    weigh = lexical.Weigher(question.concepts, idfs)
    own, _ = weigh(*lexical.weighted_terms("the db was slow", "", ""), 4.0)
    kin, _ = weigh(*lexical.weighted_terms("the database was slow", "", ""), 4.0)
    none, coverage = weigh(*lexical.weighted_terms("lunch was fine", "", ""), 4.0)
    assert own >= kin > none == coverage == 0.0
