"""A secret's label spelled with Latin small capitals reads as the label.

A reader takes ``DB_PᴀSSWORD`` for ``DB_PASSWORD`` and ``ᴘɪɴ`` for ``PIN``,
and Unicode's confusables table does not list most small capitals as the
letters they are drawn as: the guard reads them through `fold.lettered`.
Each refused case is refused in plain letters too, and stored without that
reading (checked by taking it away).
"""

from __future__ import annotations

import pytest

from tree_ring.guard import find_secret
from tree_ring.model import fold

VALUE = "Xk9mQ2vL7pR4wZ8n"

REFUSED = [
    f"DB_P\u1d00SSWORD={VALUE} for the reporting replica",  # ᴀ
    "the vault \u1d18\u026a\u0274 is 482913",  # ᴘɪɴ
    f"the api \u1d0bey is {VALUE}",  # ᴋ
    f"s\u1d07c\u0280\u1d07t={VALUE}",  # sᴇcʀᴇt
    "the staging p\u1d00ssword is correct-horse-battery-staple",
    f"p\u1d00sswo\u0280\u1d05: {VALUE}",  # pᴀsswoʀᴅ
    f"the api \u043aey is {VALUE}",  # Cyrillic к, which the skeleton reads as ĸ
    f"\u1d18\u1d00ss\u1d21\u1d0f\u0280\u1d05 \u026as {VALUE}",  # a label of small capitals only
    # A provider's prefix or a flag: cased formats, read as small letters or capitals.
    "\u0262\u029c\u1d18_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",  # ɢʜᴘ_
    "CI mirror uses gh\u1d18_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",  # ghᴘ_
    "s\u1d0b_live_xgJTeKdNnFRIBXuDL7DxtpYl",  # sᴋ_live_
    "\u1d00\u1d0b\u026a\u1d00ZDOC9IS0J8HT9LGM",  # ᴀᴋɪᴀ, whose ɪ the skeleton reads as i
    "run mysql -uroot -\u1d18Zx9fQ2wLp7 on the box",  # -ᴘ
]

STORED = [
    "The French \u0280 is a uvular trill, written \u0280 in IPA",
    "Phonetic small capitals \u1d00 \u1d07 \u026a are used in dictionaries",
    "Ключ от сервера в сейфе",
    "Use \u1d0d\u1d00\u026a\u0274 as the default branch name",
]


def _plain(text: str) -> str:
    """`text` with each small capital written as the capital it is drawn as."""
    drawn = "\u1d00\u1d18\u026a\u0274\u1d0b\u1d07\u0280\u1d05\u1d21\u1d0f\u043a\u0262\u029c"
    plain = text.translate(str.maketrans(drawn, "APINKERDWOkGH"))
    # A token's or a flag's letters are small where the format has them so.
    for token in ("GHP_", "gHP_", "ghP_", "sK_", "-P"):
        plain = plain.replace(token, token.lower())
    return plain


@pytest.mark.parametrize("text", REFUSED)
def test_a_label_in_small_capitals_is_refused(text: str) -> None:
    assert find_secret(_plain(text)) is not None  # the same words in plain letters
    assert find_secret(text) is not None


@pytest.mark.parametrize("text", STORED)
def test_text_with_small_capitals_and_no_secret_is_stored(text: str) -> None:
    assert find_secret(text) is None


def test_lettered_reads_small_capitals_as_capitals_and_keeps_case() -> None:
    assert fold.lettered("DB_P\u1d00SSWORD") == "DB_PASSWORD"
    assert fold.lettered("\u1d0d and \u028d") == "M and M"  # ᴍ, and ʍ, its skeleton
    assert fold.lettered("\u043aey") == "Key"
    assert fold.lettered("plain ASCII") == "plain ASCII"


def test_canonical_is_left_as_tombstone_keys_read_it() -> None:
    # Tombstones already written hold keys over `canonical`; small capitals
    # are a reading beside it, never a change to it.
    assert fold.canonical("\u043a\u043b\u044e\u0447") == "\u0138\u043b\u044e\u0447"
    assert fold.canonical("p\u1d00ss") == "p\u1d00ss"
