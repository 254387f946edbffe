"""The word for "password" in other languages, as a key: a password it is
given is refused as an English key's is, in lower case, capitalised and in
capitals, after ":", "=" or a full-width colon; a describing word, a
sentence or a stand-in after it stays stored."""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret
from tree_ring.guard.password_words import FORMS, WORDS, derived
from tree_ring.model.errors import SecretRefused


def test_the_forms_are_those_the_words_give() -> None:
    assert derived() == FORMS


def _cases(word: str) -> list[str]:
    return [word, word[:1].upper() + word[1:], word.upper()]


REFUSED = [
    f"{key}{sep}{value}"
    for word in WORDS
    for key in _cases(word)
    for sep, value in ((": ", "Geheim123!x"), (" = ", "'Tr0ub4dor&3'"), ("：", "qwerty123"))
]


@pytest.mark.parametrize("text", REFUSED, ids=list(range(len(REFUSED))))
def test_a_password_after_the_word_is_refused(text: str) -> None:
    assert find_secret(text) == "password-assignment"
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Login notes", "details": f"Staging box. {text}"})
    assert (caught.value.rule, caught.value.field) == ("password-assignment", "details")


STORED = [
    f"{key}{sep}{value}"
    for word in WORDS
    for key in _cases(word)[1:2]
    for sep, value in (
        (": ", "geändert"),  # one word of letters: a describing word
        (": ", "siehe Tresor im Wiki"),  # a sentence
        (" = ", "os.environ['DB_PASSWORD']"),  # a reference
        (": ", "${DB_PASSWORD}"),  # a stand-in
        ("：", "见保险库"),
    )
]


@pytest.mark.parametrize("text", STORED, ids=list(range(len(STORED))))
def test_a_description_after_the_word_is_stored(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": "Login notes", "details": text}) == "normal"
