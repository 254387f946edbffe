"""Seed phrases and recovery codes written over several lines: the words or
codes on the lines right below the line that names them. Lines that only
talk about them, or that follow a line saying where they are kept, are stored.
Then a wallet's extended private key (refused only when its checksum holds),
seed phrases as code writes them, and BitLocker recovery keys."""

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


# A BIP32 master key whose checksum holds, and the same key with its last
# character changed: only the first is a key.
XPRV = (
    "xprv9s21ZrQH143K2tFheghTbbLHR3zRh6fiFauoZ67y9xbWYaLHN694HG898pMDKvXWfnnniNg1JCLanE3EiSZV3dC"
    "X7yRihTPffEfs87mJMep"
)


def test_an_extended_private_key_is_refused_only_when_its_checksum_holds() -> None:
    assert find_secret(XPRV) == "extended-private-key"
    assert find_secret(f"deployer wallet xprv {XPRV}") == "extended-private-key"
    broken = XPRV[:-1] + ("q" if XPRV[-1] != "q" else "r")
    assert find_secret(broken) is None
    # The public half shares the shape and is no secret.
    assert find_secret("xpub" + XPRV[4:]) is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ('mnemonic = ["army","van","defense","carry","jealous","true","garbage","claim",'
         '"echo","media","make","crunch"]', "seed-phrase"),
        ("24-word phrase: abandon ability able about above absent absorb abstract absurd abuse "
         "access accident account accuse achieve acid acoustic acquire across act action actor "
         "actress actual", "seed-phrase"),
        ("BitLocker recovery key 273647-228481-283437-559713-695684-113168-607651-068343",
         "bitlocker-recovery-key"),
        ("2FA backup codes 7f3a2-91b4c, 0d8e1-5c6a9", "recovery-codes"),
    ],
)  # fmt: skip
def test_code_arrays_counted_phrases_and_bitlocker_keys_are_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule


@pytest.mark.parametrize(
    "text",
    [
        "BitLocker recovery key 000000-000000-000000-000000-000000-000000-000000-000000",
        "the recovery key is kept in the vault",
        'mnemonic = ["the","and","for","with","that","this","from","into","each","are","were",'
        '"have"]',
        "backup codes regenerated after the 2024 audit",
        "12 words: the rest of the label is cut to fit the field",
    ],
)
def test_stand_ins_and_sentences_about_them_are_stored(text: str) -> None:
    assert find_secret(text) is None


def _bitlocker_key(seed: int) -> str:
    import random

    chosen = random.Random(seed)
    return "-".join(f"{11 * chosen.randrange(65536):06d}" for _ in range(8))


@pytest.mark.parametrize("seed", range(5))
def test_a_bare_bitlocker_key_is_refused_by_its_groups(seed: int) -> None:
    key = _bitlocker_key(seed)
    assert find_secret(key) == "bitlocker-recovery-key"
    assert find_secret(f"stored {key} in the ticket") == "bitlocker-recovery-key"


@pytest.mark.parametrize(
    "text",
    [
        # A group that is not a multiple of 11, or one past 11 * 65535.
        "132853-138664-001861-913734-005571-219630-811171-225948",
        "720896-000011-000022-000033-000044-000055-000066-000077",
        "000000-000000-000000-000000-000000-000000-000000-000000",
        # Inside a longer run of groups or digits.
        "000011-000022-000033-000044-000055-000066-000077-000088-000099",
        "1000011-000022-000033-000044-000055-000066-000077-000088",
    ],
)
def test_eight_groups_that_are_no_bitlocker_key_are_not(text: str) -> None:
    assert find_secret(text) is None


def test_the_last_group_below_the_limit_counts() -> None:
    key = "720885-000011-000022-000033-000044-000055-000066-000077"
    assert find_secret(key) == "bitlocker-recovery-key"


def _bip39_phrase(count: int, seed: int) -> list[str]:
    """A valid phrase of `count` words: random entropy and its checksum."""
    import hashlib
    import random
    from pathlib import Path

    import tree_ring.guard.account_secrets as module

    words = (Path(module.__file__).parent / "bip39_english.txt").read_text("ascii").split()
    entropy = random.Random(seed).randbytes(count * 11 * 32 // 33 // 8)
    checksum = count // 3
    bits = int.from_bytes(entropy, "big") << checksum | hashlib.sha256(entropy).digest()[0] >> (
        8 - checksum
    )
    return [words[bits >> (11 * (count - 1 - i)) & 2047] for i in range(count)]


@pytest.mark.parametrize("count", [12, 15, 18, 21, 24])
def test_a_quoted_array_of_bip39_words_is_a_seed_phrase(count: int) -> None:
    import json

    phrase = _bip39_phrase(count, count)
    assert find_secret(json.dumps(phrase)) == "seed-phrase"
    assert find_secret(f"words = {phrase!r}") == "seed-phrase"


def test_bip39_words_without_their_checksum_or_count_are_not() -> None:
    import json

    phrase = _bip39_phrase(12, 1)
    # "observe" for "once": the last word's bits no longer match the checksum.
    assert phrase[-2:] == ["observe", "once"]
    assert find_secret(json.dumps(phrase)) == "seed-phrase"
    assert find_secret(json.dumps([*phrase[:-1], "observe"])) is None
    assert find_secret(json.dumps(phrase[:11])) is None
    assert find_secret(json.dumps([*phrase, "zzzz"])) is None
    assert find_secret(" ".join(phrase)) is None  # no array, no keyword: left alone


@pytest.mark.parametrize(
    "text",
    [
        'COLORS = ["red", "green", "blue", "orange", "purple", "black", "white", "silver",'
        ' "gold", "pink", "brown", "gray"]',
        '["abandon", "abandon", "abandon", "abandon", "abandon", "abandon", "abandon",'
        ' "abandon", "abandon", "abandon", "abandon", "about"]',
        "steps = ['build', 'test', 'lint', 'deploy', 'verify', 'notify', 'rollback',"
        " 'archive', 'clean', 'report', 'review', 'merge']",
    ],
)
def test_ordinary_word_arrays_are_not_seed_phrases(text: str) -> None:
    assert find_secret(text) is None


def test_the_shipped_wordlist_is_bip39s() -> None:
    import hashlib
    from pathlib import Path

    import tree_ring.guard.account_secrets as module

    here = Path(module.__file__).parent
    data = (here / "bip39_english.txt").read_bytes()
    # The SHA-256 bitcoin/bips publishes for bip-0039/english.txt.
    assert hashlib.sha256(data).hexdigest() == (
        "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
    )
    assert "bip39_english.txt" in (here / "BIP39-NOTICE.txt").read_text("utf-8")


@pytest.mark.parametrize(
    "sentence",
    [
        "we moved the nightly backup to the second disk because the first one was full",
        "please check the staging logs before you merge anything into the main branch today",
        "the build fails on arm because the old image has no python headers installed yet",
    ],
)
def test_a_sentence_quoted_word_by_word_is_no_seed_phrase(sentence: str) -> None:
    import json

    words = sentence.split()[:12]
    assert find_secret(json.dumps(words)) is None
    assert find_secret(repr(sentence.split())) is None
