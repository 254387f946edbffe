"""Which texts a forget keys for what other rows carry: looking only at those
that hold enough of the forgotten words never misses one that quotes them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model.record import Memory
from tree_ring.store import tombstones
from tree_ring.write.carried import Withheld

WORDS = ["the", "refund", "queue", "drains", "at", "two", "Note:", "(confirmed)", "FYI", "-",
         "night;", "Worker's", "e.g.", "v2", "a", "__init__", "x/y", "Queue.", "(v3)",
         "RefundQueue", "drainsAt", "2", "v", "At2", "QueueDrains2"]  # fmt: skip
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(texts, min_size=1, max_size=3), st.lists(texts, min_size=1, max_size=4))
def test_looking_only_where_the_words_are_finds_what_looking_everywhere_finds(
    forgotten: list[str], carried: list[str]
) -> None:
    memory = Memory(
        id="mem_20260101_000000_000000000000",
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
        event_type="note",
        summary=forgotten[0],
        details=" ".join(forgotten[1:2]),
        tags=tuple(forgotten[2:]),
    )
    keys = tombstones.forget_keys(memory)
    texts = [memory.summary, memory.details, *tombstones.other_texts(memory)]
    everywhere, narrowed = Withheld(keys), Withheld(keys, texts)
    assert narrowed.words is not None
    # Each carried text: as it is, and quoting the forgotten texts inside other words.
    for text in [*carried, *(f"{c} {f}, {c}" for c in carried for f in forgotten)]:
        assert narrowed.withheld(text) == everywhere.withheld(text)
