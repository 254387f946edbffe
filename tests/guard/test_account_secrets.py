"""Seed phrases and recovery codes written over several lines: the words or
codes on the lines right below the line that names them. Lines that only
talk about them, or that follow a line saying where they are kept, are stored."""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret

REFUSED = {
    "GitHub recovery codes:\n7f3a2-91b4c\n0d8e1-5c6a9\n4ca01-82f0f": "recovery-codes",
    "Recovery codes for the org owner:\n- 7f3a2-91b4c\n- 0d8e1-5c6a9\n": "recovery-codes",
    "backup codes:\n1. 83721846\n2. 19283746\n3. 55102938": "recovery-codes",
    "2FA recovery codes are\n  `4ca01-82f0f`\n  `10556-871da`": "recovery-codes",
    "seed phrase:\ncanyon velvet orbit tackle humble dizzy zebra merit liquid pepper "
    "vacant sorrow": "seed-phrase",
    "Mnemonic =\nCANYON, VELVET, ORBIT, TACKLE, HUMBLE, DIZZY, ZEBRA, MERIT, LIQUID, PEPPER, "
    "VACANT, SORROW": "seed-phrase",
}

STORED = [
    "Recovery codes:\nstored in 1Password\n2024-10-01 rotated",
    "recovery codes:\nsee the vault entry\n123456\n654321",
    "GitHub recovery codes live in the vault.\n7f3a2-91b4c is the ticket's build id",
    "seed phrase: never type it anywhere\n"
    "canyon velvet orbit tackle humble dizzy zebra merit liquid pepper vacant sorrow",
    "Seed tables:\nusers, orders, items, carts, prices, taxes, stores, staff, roles, perms, "
    "audits, logs",
]


@pytest.mark.parametrize(("text", "rule"), REFUSED.items())
def test_words_and_codes_below_their_name_are_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule


@pytest.mark.parametrize("text", STORED)
def test_lines_about_them_are_stored(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": "Account notes", "details": text}) == "normal"
