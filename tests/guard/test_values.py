"""The guard's value measures, at their edges."""

from __future__ import annotations

import pytest

from tree_ring.guard import values


@pytest.mark.parametrize(
    ("value", "classes"),
    [
        ("abc", 1),
        ("ABC", 1),
        ("123", 1),
        ("-_!", 1),
        ("aB", 2),
        ("aB3", 3),
        ("aB3!", 4),
        ("", 0),
    ],
)
def test_char_classes_counts_lower_upper_digit_and_other(value: str, classes: int) -> None:
    assert values.char_classes(value) == classes


def test_shannon_entropy_of_even_and_single_symbol_text() -> None:
    assert values.shannon_entropy("aaaa") == 0
    assert values.shannon_entropy("abcd") == 2
