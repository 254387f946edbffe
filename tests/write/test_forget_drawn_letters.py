"""A forgotten claim does not come back in letters a reader takes for its own:
small capitals (``ᴀ``, ``ʀ``), the Cyrillic letters the confusables table
reads as small capitals (``к``, ``т``, ``м``), or an invisible Hangul filler
inside a word. Tombstones key and check each text read that way too
(`identifiers.lettered`), beside the keys they always held."""

from __future__ import annotations

import pytest
from conftest import CliRunner
from forgetting_support import forgotten, listed
from governance_support import CLAUDE

CLAIM = "Release tags are signed with the hardware key in the vault room"

RESPELLED = {
    "small-capital-a": CLAIM.replace("a", "\u1d00"),
    "small-capital-r": CLAIM.replace("r", "\u0280"),
    "small-capital-m": CLAIM.replace("m", "\u1d0d"),
    "cyrillic-ka": CLAIM.replace("k", "\u043a"),
    "cyrillic-te": CLAIM.replace("t", "\u0442"),
    "cyrillic-em": CLAIM.replace("m", "\u043c"),
    "hangul-jungseong-filler": CLAIM.replace("hardware", "hard\u1160ware"),
    "hangul-choseong-filler": CLAIM.replace("hardware", "hard\u115fware"),
    "hangul-filler": CLAIM.replace("hardware", "hard\u3164ware"),
    "halfwidth-hangul-filler": CLAIM.replace("hardware", "hard\uffa0ware"),
    # Stacked with the other readings: an identifier's words, an escape.
    "camel-case-and-small-capital": "ReleaseTagsAreSignedWithTheHa\u0280dwareKeyInTheVaultRoom",
    "json-escape-of-a-small-capital": CLAIM.replace("vault", "v\\u1d00ult"),
    "html-reference-of-a-small-capital": CLAIM.replace("vault", "v&#x1d00;ult"),
    "percent-encoded-small-capital": CLAIM.replace("vault", "v%E1%B4%80ult"),
    "escaped-hangul-filler": CLAIM.replace("hardware", "hard&#x3164;ware"),
}


@pytest.mark.parametrize("text", RESPELLED.values(), ids=RESPELLED.keys())
def test_a_forgotten_claim_in_drawn_letters_is_refused(run_cli: CliRunner, text: str) -> None:
    forgotten(run_cli, CLAIM)
    result = run_cli("remember", text, environ=CLAUDE)
    assert result.code != 0 and "forgotten" in result.err
    assert listed(run_cli) == 0


def test_a_claim_forgotten_in_small_capitals_refuses_the_plain_one(run_cli: CliRunner) -> None:
    forgotten(run_cli, RESPELLED["small-capital-a"])
    result = run_cli("remember", CLAIM, environ=CLAUDE)
    assert result.code != 0 and "forgotten" in result.err


def test_a_forgotten_russian_claim_is_still_refused_and_others_stored(run_cli: CliRunner) -> None:
    claim = "Ключ от сервера хранится в сейфе на третьем этаже"
    forgotten(run_cli, claim)
    assert run_cli("remember", claim, environ=CLAUDE).code != 0
    other = run_cli("remember", "Ключ от склада хранится у охраны на первом этаже")
    assert other.code == 0, other.err
    assert listed(run_cli) == 1
