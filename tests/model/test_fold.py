"""The canonical fold: every spelling a reader takes for the same words meets."""

from __future__ import annotations

import pytest

from tree_ring.model.fold import canonical, unmarked


@pytest.mark.parametrize(
    "spelling",
    [
        "Deploy the billing service",
        "DEPLOY THE BILLING SERVICE",
        "Ｄｅｐｌｏｙ ｔｈｅ ｂｉｌｌｉｎｇ ｓｅｒｖｉｃｅ",
        "Deploy the bil\u200dling ser\ufe0fvice",
        "De\u00adploy the billing service",
        "Deplo\u0301y the bi\u0308lling service",
        "𝐃𝐞𝐩𝐥𝐨𝐲 the billing service",
    ],
)
def test_spellings_of_one_sentence_fold_to_one_form(spelling: str) -> None:
    assert canonical(spelling) == "deploy the billing service"


def test_dotted_capital_i_folds_to_plain_i() -> None:
    assert canonical("İSTANBUL") == canonical("istanbul") == "istanbul"


def test_decomposed_and_composed_accents_meet() -> None:
    assert canonical("cafe\u0301") == canonical("café") == "cafe"


def test_unmarked_keeps_case_for_case_sensitive_checks() -> None:
    assert unmarked("ＡＫＩＡ\u200b") == "AKIA"
    assert unmarked("ghp_ABC") == "ghp_ABC"


def test_different_words_stay_different() -> None:
    assert canonical("retry three times") != canonical("retry 3 times")
    assert canonical("re-try") != canonical("retry")
