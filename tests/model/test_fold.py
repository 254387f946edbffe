"""The canonical fold: every spelling a reader takes for the same words meets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tree_ring.model import confusables
from tree_ring.model.fold import canonical, searchable, skeleton, unmarked

REPO = Path(__file__).resolve().parents[2]


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
        # Cyrillic е, о, і, с and Greek ο, Ι, ν look-alikes.
        "Dеplоy the bіlling servіcе",
        "Deplοy the billing serνice",
        "DΕPLΟY THΕ BΙLLΙNG SΕRVΙCΕ",
        "Deploy the bi\u200dl\ufe0fling se\u034frvice",
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


def test_skeleton_maps_look_alikes_and_keeps_case() -> None:
    assert skeleton("АКІА") == "AKIA"  # Cyrillic capitals
    assert skeleton("ghр_аbc") == "ghp_abc"  # Cyrillic р, а
    assert skeleton("Ι١০") == "I10"  # Greek capital iota, Arabic-Indic one, Bengali zero


def test_skeleton_keeps_ascii_look_alikes_apart() -> None:
    # ASCII is its own skeleton: modem is not modern, I0 is not lO.
    for text in ("modem", "modern", "I0l1|O", "AKIA0000"):
        assert skeleton(text) == text
    assert canonical("modem") != canonical("modern")


def test_table_holds_no_ascii_source_and_is_closed() -> None:
    table = confusables.PROTOTYPES
    assert table
    assert not [code for code in table if code < 0x80]
    # No prototype holds a character the table maps again: a skeleton is a fixed point.
    again = {code for code, prototype in table.items() if any(ord(c) in table for c in prototype)}
    assert again == set()


def test_table_header_names_its_source_and_licence() -> None:
    header = confusables.__doc__ or ""
    assert "Version: 13.0.0" in header
    assert "Unicode License v3" in header
    licence = REPO / "tree_ring" / "model" / "UNICODE-LICENSE.txt"
    assert "UNICODE LICENSE V3" in licence.read_text(encoding="utf-8")


def test_every_table_character_folds_to_a_fixed_point() -> None:
    # Sources, the characters of prototypes, and their case partners: the ones
    # a fold could move again. (scripts/build_confusables.py checks every code
    # point after writing the table; that takes half a minute.)
    chars = {chr(code) for code in confusables.PROTOTYPES}
    chars |= {char for prototype in confusables.PROTOTYPES.values() for char in prototype}
    chars |= {partner for char in set(chars) for partner in (char.upper(), char.lower())}
    moved = {char for char in chars if canonical(canonical(char)) != canonical(char)}
    assert moved == set()
    assert {c for c in chars if skeleton(skeleton(unmarked(c))) != skeleton(unmarked(c))} == set()


@given(st.text())
def test_canonical_is_idempotent(text: str) -> None:
    assert canonical(canonical(text)) == canonical(text)


@given(st.text())
def test_skeleton_of_unmarked_is_idempotent(text: str) -> None:
    once = skeleton(unmarked(text))
    assert skeleton(unmarked(once)) == once


def test_ascii_path_loads_neither_unicodedata_nor_the_table() -> None:
    probe = (
        "import sys\n"
        "from tree_ring.model.fold import canonical, searchable, skeleton, unmarked\n"
        "assert skeleton(unmarked('AKIA ghp_x')) == 'AKIA ghp_x'\n"
        "assert canonical('Deploy') == 'deploy'\n"
        "names = ('unicodedata', 'tree_ring.model.confusables')\n"
        "print(sorted(name for name in names if name in sys.modules))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("spelling", "folded"),
    [
        ("ｂｉｌｌｉｎｇ", "billing"),
        ("ＢＩＬＬＩＮＧ ２０２４", "billing 2024"),
        ("\ufb01le \ufb02ag", "file flag"),  # the ligatures fi and fl
        ("bil\u200bling", "billing"),  # a zero-width space inside the word
        ("Straße", "strasse"),
        ("x²", "x2"),
        # The general diacritics go, in any script; other scripts' marks stay.
        ("café", "cafe"),
        ("ΒΆΣΗ βάση", "βαση βαση"),
        ("Всё", "все"),
        ("हिन्दी", "हिन्दी"),
        ("Дом", "дом"),
        ("日本語のテキスト", "日本語のテキスト"),
        ("ｶﾀｶﾅ", "カタカナ"),  # half-width katakana, as NFKC writes it
        ("Plain ASCII Stays", "Plain ASCII Stays"),
    ],
)
def test_searchable_folds_compatibility_forms_and_case(spelling: str, folded: str) -> None:
    assert searchable(spelling) == folded


@given(st.text())
def test_searchable_is_idempotent(text: str) -> None:
    assert searchable(searchable(text)) == searchable(text)
