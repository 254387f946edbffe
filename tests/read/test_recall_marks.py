"""A word is read with the marks written on its letters, in the question
and by the scorer, as the index's tokenizer reads it: "İzmir" case-folds to
"i" and a combining dot, and `\\w` cut it into "i" and "zmir", which nothing
matched; a Hindi word's vowel signs and virama cut it into consonants. Each
stored word is found by its own spelling, as a word the memory holds, and a
Greek or Cyrillic word without its accents or in capitals too, as a Latin
one is ("cafe" for "café")."""

from __future__ import annotations

import pytest
from helpers import PERSON, make_memory

from tree_ring.model.identity import Identity
from tree_ring.read import query
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline

# (the stored note, a word of it asked as written)
PAIRS = [
    ("Deploy mirrors live in İzmir and İstanbul", "İzmir"),
    ("Deploy mirrors live in İzmir and İstanbul", "İstanbul"),
    ("The ǰobber queue retries pings", "ǰobber"),
    ("The worker sends ẖello pings", "ẖello"),
    ("Kİlo sizing for the cluster", "Kİlo"),
    ("हिन्दी भाषा का समर्थन जोड़ा गया", "हिन्दी"),
    ("हिन्दी भाषा का समर्थन जोड़ा गया", "समर्थन"),
    # Accents people type or leave out: Greek and Cyrillic, in capitals too.
    ("Η βάση δεδομένων κλειδώνει κάθε βράδυ", "βαση"),
    ("Η βάση δεδομένων κλειδώνει κάθε βράδυ", "ΒΑΣΗ ΔΕΔΟΜΕΝΩΝ"),
    ("Всё готово к выпуску сегодня", "все готово"),
    ("Deploy mirrors live in İzmir and İstanbul", "izmir"),
]


def test_marks_stay_in_their_words() -> None:
    assert query.words("i\u0307zmir हिन्दी café_bar x2") == [
        "i\u0307zmir",
        "हिन्दी",
        "café",
        "bar",
        "x2",
    ]
    # The question's words are folded as the index reads them: the dot goes
    # with the other general diacritics (`fold.searchable`).
    assert query.terms("İzmir") == ["izmir"]


@pytest.mark.parametrize(("stored", "question"), PAIRS)
def test_a_word_is_found_by_its_own_spelling(
    store: Store, identity: Identity, stored: str, question: str
) -> None:
    kept = pipeline.store_memory(store, make_memory(identity.project, stored), PERSON).id
    pipeline.store_memory(store, make_memory(identity.project, "Unrelated note on caching"), PERSON)
    hits = recall(store, identity, question)
    assert [h.memory.id for h in hits][:1] == [kept]
    assert hits[0].literal and hits[0].parts["overlap"] > 0
