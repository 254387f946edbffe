"""A password written before the word that names it, and an app password's
four groups of letters: refused as the password it is; a product, a hash or
a shape in the same place is stored."""

from __future__ import annotations

import pytest

from tree_ring.guard import find_secret
from tree_ring.guard.value_first import app_password, value_before

REFUSED = [
    "Kx7!mQ2#zp is the pw",
    "Kx7!mQ2#zp is the password so keep it out of the wiki",
    "Hunter2 is the password, per the onboarding doc",
    "admin123 was our password for the demo box",
    "Gmail app password: abcd efgh ijkl mnop",
    "the app-specific password is kxvq-mbtr-hzpw-nlcj",
]

STORED = [
    "Vault is the password manager we use",
    "OAuth2 is the password replacement we adopted",
    "bcrypt is the password hash, cost twelve",
    "whatever is the password, the script asks for it",
    "Kx7!mQ2#zp is the password manager's export id",
    "Use an app password: make sure that only the relay uses it",
    "Gmail app password looks like xxxx xxxx xxxx xxxx",
]


@pytest.mark.parametrize("text", REFUSED)
def test_a_password_before_its_name_is_refused(text: str) -> None:
    assert find_secret(text) == "password-in-prose"


@pytest.mark.parametrize("text", STORED)
def test_a_name_product_or_shape_there_is_stored(text: str) -> None:
    assert find_secret(text) is None


def test_the_judges_read_what_they_are_given() -> None:
    assert value_before("Kx7!mQ2#zp is the \x00")
    assert not value_before("Kx7!mQ2#zp is the \x00 manager")
    assert not value_before("the staging \x00 is rotated")
    assert app_password("qwer tyui opas dfgh")
    assert not app_password("make sure that only")
    assert not app_password("abab abab abab abab")
