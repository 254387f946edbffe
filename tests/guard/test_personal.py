"""The sensitivity rules' validators, at the edges of each range they check."""

from __future__ import annotations

import itertools
import re

import pytest

from tree_ring.guard import classify, personal


def _reference_luhn(digits: str) -> bool:
    """Luhn by the textbook: double every second digit from the right and add
    the digits of each product."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value // 10 + value % 10
    return total % 10 == 0


def test_luhn_agrees_with_the_textbook_on_every_four_digit_string() -> None:
    strings = ["".join(d) for d in itertools.product("0123456789", repeat=4)]
    valid = [s for s in strings if personal._luhn(s)]  # pyright: ignore[reportPrivateUsage]
    assert valid == [s for s in strings if _reference_luhn(s)]
    assert len(valid) == 1000


@pytest.mark.parametrize(
    ("digits", "valid"),
    [
        ("79927398713", True),
        ("79927398710", False),
        ("4539148803436467", True),
        ("4539148803436468", False),
        ("49", False),  # the doubled 4 is 8, not 4*2-9
        ("59", True),  # the doubled 5 is 1
        ("42", True),
        ("91", True),
    ],
)
def test_luhn_on_literal_numbers(digits: str, valid: bool) -> None:
    assert personal._luhn(digits) is valid  # pyright: ignore[reportPrivateUsage]


def _number(prefix: str, size: int) -> str:
    return prefix + "0" * (size - len(prefix))


@pytest.mark.parametrize(
    ("prefix", "sizes"),
    [
        ("4", {13, 16, 19}),  # Visa
        ("34", {15}),  # American Express
        ("37", {15}),
        ("51", {16}),  # Mastercard: 51-55 and 2221-2720
        ("55", {16}),
        ("2221", {16}),
        ("2720", {16}),
        ("6011", {16, 17, 18, 19}),  # Discover: 6011, 65, 644-649
        ("65", {16, 17, 18, 19}),
        ("644", {16, 17, 18, 19}),
        ("649", {16, 17, 18, 19}),
        ("3528", {16, 17, 18, 19}),  # JCB: 3528-3589
        ("3589", {16, 17, 18, 19}),
        # Just outside every range: no length is a card.
        ("50", set()),
        ("56", set()),
        ("2220", set()),
        ("2721", set()),
        ("6010", set()),
        ("6012", set()),
        ("643", set()),
        ("3527", set()),
        ("3590", set()),
        ("35", set()),
        ("36", set()),
        ("1", set()),
    ],
)
def test_card_brand_lengths_at_the_edges_of_each_range(prefix: str, sizes: set[int]) -> None:
    accepted = {
        size
        for size in range(max(len(prefix), 12), 21)
        if personal._card_brand_length_ok(_number(prefix, size))  # pyright: ignore[reportPrivateUsage]
    }
    assert accepted == sizes


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("card 4000000000000002", True),  # Luhn-valid Visa, a card word beside it
        ("card 4000000000000003", False),  # one digit off: the checksum fails
        ("card 5100000000000008", True),
        ("card 2221000000000009", True),
        ("card 6011000000000004", True),
        ("card 3528000000000007", True),
        ("seed 4000000000000002", False),  # a bare run needs a card word
        ("order 4000 0000 0000 0002", True),  # grouped: written for a person
        ("card 4111111111111111", False),  # a published test number
    ],
)
def test_card_number_needs_brand_checksum_and_a_word_or_groups(text: str, found: bool) -> None:
    assert personal._card_number(text) is found  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("536-22-4187", True),
        ("SSN 536224187", True),
        ("000-22-4187", False),
        ("666-22-4187", False),
        ("900-22-4187", False),
        ("899-22-4187", True),
        ("536-00-4187", False),
        ("536-01-4187", True),
        ("536-22-0000", False),
        ("536-22-0001", True),
        ("123-45-6789", False),  # printed in advertising
        ("36-22-4187", False),  # eight digits
    ],
)
def test_ssn_areas_groups_and_serials(span: str, valid: bool) -> None:
    assert personal._ssn(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("GB82WEST12345698765432", True),
        ("DE89 3704 0044 0532 0130 00", True),
        ("GB83 WEST 1234 5698 7654 32", False),  # checksum
        ("GB82 WEST 1234 5698 7654 3", False),  # one short for GB
        ("XX82 WEST 1234 5698 7654 32", False),  # no such country
    ],
)
def test_iban_length_by_country_and_checksum(span: str, valid: bool) -> None:
    assert personal._iban(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("phone: +44 20 79", False),  # 6 digits
        ("phone: +44 20 794", True),  # 7
        ("phone: +44 2079 4609 5812 3", True),  # 15
        ("phone: +44 2079 4609 5812 34", False),  # 16
        ("phone: (555) 867-5309", True),
        ("phone: 555 867 5309", True),
        ("phone: call me", False),
    ],
)
def test_phone_digit_count_and_shape(span: str, valid: bool) -> None:
    assert personal._phone(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("account: 12345", False),
        ("account: 123456", True),
        ("account: 12345678901234567890", True),
        ("account: 123456789012345678901", False),
        ("account number", False),
    ],
)
def test_bank_account_digit_count(span: str, valid: bool) -> None:
    assert personal._bank_account(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [("passport 12345", True), ("passport X1234", False), ("passport", False), ("", False)],
)
def test_passport_needs_five_digits_in_its_last_word(span: str, valid: bool) -> None:
    assert personal._passport(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("window", "found"),
    [
        ("her salary is $185,000", True),
        ("$185,000 is his base pay", True),
        ("the bonus was 95k", True),
        ("the salary band review", False),
        ("we spent $185,000 on servers", False),
    ],
)
def test_salary_needs_a_pay_word_and_money(window: str, found: bool) -> None:
    assert personal._salary(window) is found  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("window", "found"),
    [
        ("ask jane.doe@acme-corp.io", True),
        ("ask support@acme-corp.io", False),
        ("ask jane@noreply.acme-corp.io", False),
        ("ask jane@build.test", False),
        ("ask jane@example.com", False),
        ("ask jane@mail.example.org", False),
        ("ask jane@notexample.com", True),
        ("support@acme-corp.io or jane@acme-corp.io", True),
    ],
)
def test_email_address_skips_roles_reserved_and_impersonal_domains(
    window: str, found: bool
) -> None:
    assert personal._email_address(window) is found  # pyright: ignore[reportPrivateUsage]


# The IBAN registry's lengths, written out here so that a changed entry in the
# code shows.
_REGISTRY = """
AD 24 AE 23 AL 28 AT 20 AZ 28 BA 20 BE 16 BG 22 BH 22 BR 29 CH 21 CR 22 CY 28 CZ 24
DE 22 DK 18 DO 28 EE 20 EG 29 ES 24 FI 18 FO 18 FR 27 GB 22 GE 22 GI 23 GL 18 GR 27
GT 28 HR 21 HU 28 IE 22 IL 23 IS 26 IT 27 JO 30 KW 30 KZ 20 LB 28 LI 21 LT 20 LU 20
LV 21 MC 27 MD 24 ME 22 MK 19 MR 27 MT 31 MU 30 NL 18 NO 15 PK 24 PL 28 PS 29 PT 25
QA 29 RO 24 RS 22 SA 24 SE 24 SI 19 SK 24 SM 27 TN 24 TR 26 UA 29 VG 24 XK 20
"""


def _with_checksum(country: str, size: int) -> str:
    """An IBAN of `size` characters whose check digits are right."""
    bban = "1234567890" * 4
    bban = bban[: size - 4]
    numeric = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - numeric % 97:02d}{bban}"


@pytest.mark.parametrize(
    ("country", "size"),
    [(country, int(size)) for country, size in re.findall(r"([A-Z]{2}) ([0-9]+)", _REGISTRY)],
)
def test_iban_length_of_every_country_exactly(country: str, size: int) -> None:
    assert personal._iban(_with_checksum(country, size))  # pyright: ignore[reportPrivateUsage]
    assert not personal._iban(_with_checksum(country, size - 1))  # pyright: ignore[reportPrivateUsage]
    assert not personal._iban(_with_checksum(country, size + 1))  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("national insurance number AB 12 34 56 C", True),
        ("NINO: AB123456C", True),
        ("NI number ce-12-34-56-d", True),
        ("NINO: AB123456E", False),  # the last letter is A to D
        ("NINO: QQ123456C", False),  # HMRC's own example: Q is never first
        ("NINO: DA123456C", False),  # D is never first
        ("NINO: AO123456C", False),  # O is never second
        ("NINO: GB123456A", False),  # a prefix never issued
        ("NINO: ZZ123456A", False),
        ("NINO: AB12345C", False),  # five digits
    ],
)
def test_national_insurance_prefix_rules(span: str, valid: bool) -> None:
    assert personal._national_insurance(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("driver license D1234567", True),
        ("driving licence number MORGA753116SM9IJ", True),
        ("DL# 123-456-789", True),
        ("DL: 987654321", True),
        ("DL number 987654321", True),
        ("DL 987654321", False),  # "DL" alone also means download
        ("dl# 987654321", False),
        ("driver license D1234", False),  # four digits
        ("driver license 12345678901234567890X", False),  # 21 characters
    ],
)
def test_driver_licence_needs_its_label_and_five_digits(span: str, valid: bool) -> None:
    assert personal._driver_licence(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("national insurance number AB 12 34 56 C", "personal_identifier"),
        ("her NI number is JH 45 67 89 B", "personal_identifier"),
        ("NINO: AB123456C", "personal_identifier"),
        ("National Insurance No. CE-12-34-56-A", "personal_identifier"),
        ("driver license D1234567", "personal_identifier"),
        ("driving licence number MORGA753116SM9IJ", "personal_identifier"),
        ("DL# 123-456-789", "personal_identifier"),
        ("driver's license: A123-4567-8901", "personal_identifier"),
        ("Drivers licence no 12345678", "personal_identifier"),
        ("NI number QQ123456C", "normal"),  # HMRC's example, never issued
        ("the license is MIT", "normal"),
        ("driver version 1234567", "normal"),
        ("NI", "normal"),
        ("the NI number field is validated server side", "normal"),
        ("AB123456C is the part number", "normal"),  # no label
        ("DL 1234567", "normal"),
        ("dl 12345678 bytes", "normal"),
        ("driver license 2024", "normal"),
        ("driving licence for 12 years", "normal"),
        ("driver license check passed in 1234567 ms", "normal"),
        ("license number 12345678", "normal"),  # a software licence
    ],
)
def test_uk_national_insurance_and_driver_licence_classify(text: str, category: str) -> None:
    assert classify(text) == category
