"""`identifiers.glued`: what a forget and a write's check read beside `spaced`."""

from __future__ import annotations

import pytest

from tree_ring.model import identifiers


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Run2faCheckOnV2Api", "Run2fa Check On V2Api"),
        ("run 2fa check on v 2 api", "run2fa check on v2api"),
        ("MaxUnavailableIs1", "Max Unavailable Is1"),
        ("maxUnavailable is 1", "max Unavailable is1"),
        ("Δ 3 β and 東京 2Server", "Δ3β and 東京2Server"),
        # Digits beside digits stay apart; a superscript is the digit it stands for.
        ("retry 3 4 times, x ² at most", "retry3 4times, x2at most"),
        ("retry 3 4 times, x ³ ①", "retry3 4times, x3 1"),
        ("snake_case 2, 1 2", "snake_case2, 1 2"),
        ("no identifier here", "no identifier here"),
    ],
)
def test_glued_joins_each_digit_to_a_letter_beside_it(text: str, read: str) -> None:
    assert identifiers.glued(text) == read


@pytest.mark.parametrize("text", ["Run 2 fa check on v 2 api now", "at 3 pm on day 2 of 10"])
def test_glued_never_makes_more_words(text: str) -> None:
    assert len(identifiers.glued(text).split()) <= len(text.split())


def test_glued_reads_identifiers_as_spaced_does() -> None:
    text = "UseTabsInAMakefile, iPhone and ЖукBeetle"
    assert identifiers.glued(text) == identifiers.spaced(text)
