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


@pytest.mark.parametrize(
    ("value", "bits"),
    [("", 0.0), ("aaaa", 0.0), ("aabb", 1.0), ("abcdefgh", 3.0), ("aaBB1234", 2.5)],
)
def test_shannon_entropy_exactly(value: str, bits: float) -> None:
    assert values.shannon_entropy(value) == bits


@pytest.mark.parametrize(
    ("value", "high"),
    [
        ("abcdefgh", True),  # exactly 3.0 bits, one class
        ("abcdefgg", False),  # under 3.0, one class
        ("aaBB1234", True),  # exactly 2.5 bits with three classes
        ("aabb1234", False),  # 2.5 bits, two classes
        ("aaaBB123", False),  # three classes, under 2.5 bits
    ],
)
def test_high_entropy_at_both_thresholds(value: str, high: bool) -> None:
    assert values.high_entropy(value) is high


@pytest.mark.parametrize(
    ("value", "typed"),
    [
        ("abc", False),  # under four characters
        ("abcd", True),
        ("dcba", True),
        ("abcdzz", True),  # 3 steps of 5: exactly 0.6
        ("abczzz", False),  # 2 of 5
        ("x7K2m9q4", False),
    ],
)
def test_sequential_at_its_length_and_step_share(value: str, typed: bool) -> None:
    assert values.sequential(value) is typed


@pytest.mark.parametrize(
    ("value", "filler"), [("abab", True), ("aAaA", True), ("x", True), ("abc", False)]
)
def test_filler_has_two_letters_at_most(value: str, filler: bool) -> None:
    assert values.is_filler(value) is filler


@pytest.mark.parametrize(
    ("value", "placeholder"),
    [
        ("your_token_here", True),
        ("key_x7k2", True),  # four characters left
        ("key_x7k2m", False),  # five
        ("key_abcdef", True),  # what is left was typed in order
        ("key_ababab", True),  # what is left is a filler
        ("x7k2m9q4", False),  # no marker word at all
    ],
)
def test_placeholder_text_judges_what_the_marker_words_leave(value: str, placeholder: bool) -> None:
    assert values.placeholder_text(value) is placeholder


@pytest.mark.parametrize(
    ("value", "unquoted", "quoted"),
    [
        ("x7K2m9q4", False, False),
        ("$x7K2m9q4", False, False),  # a generated password may start with $
        ("$(x7K2m9q4", True, True),
        ("${x7K2m9q4", True, True),
        ("$MY_TOKEN", True, True),
        ("$12", True, True),
        # A shell variable as a part of an option list or a path.
        ("id=npmrc,src=$HOME/.npmrc", True, True),
        ("src=$XDG_CONFIG_HOME/npm/npmrc", True, True),
        ("x7K2,env=$NPM_TOKEN", True, True),
        ("x7K2:$PATH", True, True),
        ("x7K2$HOME/m9q4", False, False),  # glued to a letter: part of the password
        ("x7K2=$Home/m9q4", False, False),  # not an environment variable's name
        ("x7K2=$HOMEx/m9q4", False, False),  # the capitals run on into the password
        ("x7K2=$HOME!m9q4", False, False),  # nor does anything but "/", "," or ":" end it
        # Grafana's expansions; "$__" followed by anything else is a password.
        ("$__env{GF_ADMIN_PASSWORD", True, True),
        ("$__file{/etc/secrets/grafana", True, True),
        ("$__vault{kv:grafana:admin", True, True),
        ("$__x7K2m9q4", False, False),
        ("$__envx7K2m9q4", False, False),
        ("%x7K2m9q4", False, False),
        ("%(x7K2m9q4", True, True),
        ("%sx7K2m9q4", True, True),
        ("%dx7K2m9q4", True, True),
        ("%x7K2m9q4%", True, True),
        ("<x7K2m9q4", True, True),
        ("{x7K2m9q4", True, True),
        ("[x7K2m9q4", True, True),
        ("x7K2{{m9q4", True, True),
        ("#x7K2m9q4", True, False),  # YAML's comment, tag, anchor, alias: unquoted only
        ("!x7K2m9q4", True, False),
        ("&x7K2m9q4", True, False),
        ("*x7K2m9q4", True, False),
        ("x7K2(m9q4", True, False),
        ("x7K2[m9q4", True, False),
        ("x7K2...m9q4", True, True),
        ("x7K2\u2026m9q4", True, True),
        ("x7K2****m9q4", True, True),
        ("x7K2***m9q4", False, False),
        ("/x7K2m9q4", False, False),  # one slash is no path
        ("/tmp/x7K2m9q4", True, True),
        ("~/x7K2/m9q4", True, True),
        ("./x7K2/m9q4", True, True),
        ("../x7K2/m9q4", True, True),
        ("x7K2/m9q4/z", False, False),
        ("", True, True),
        ("Changeme", True, True),
        ("AKIAIOSFODNN7EXAMPLE", True, True),
    ],
)
def test_stand_in_branch_by_branch(value: str, unquoted: bool, quoted: bool) -> None:
    assert values.stand_in(value) is unquoted
    assert values.stand_in(value, quoted=True) is quoted


@pytest.mark.parametrize(
    ("span", "secret"),
    [
        ("x7K2m9q", False),  # seven characters
        ("x7K2m9q4", True),  # eight
        ('"x7K2m9q', False),
        ('"x7K2m9q4', True),
        ("x7K2 m9q4", False),  # prose has spaces
        ("abcdefgh", False),  # typed in order
        ("Orbit426", True),  # one word, three classes
        ("orbit426", False),  # one word, two classes
        ("DB_PASSWORD", False),
        ("db.Orbit426", False),  # two parts of a name
    ],
)
def test_literal_secret_edges(span: str, secret: bool) -> None:
    assert values.literal_secret(span) is secret


R = "x7K2m9q4Zt8LpW3nRb5Vc1Hd6Jf0Gs"


@pytest.mark.parametrize(
    ("value", "password"),
    [
        ("Summer2024!", True),
        ("Welcome123", True),
        ("x7k2m9q4", True),  # digits between letters
        ("x7k2m9q", False),  # seven characters
        ("x7kabcd2", True),  # three digit switches
        ("xyz7abcd", False),  # two
        ("OfkyXOWIESNspvkz", True),
        ("mkqZJWpxbNRT", True),  # three case switches
        ("mkqZJWpxbnrt", False),  # two, and under sixteen letters
        ("OfkyxowiesnspvkZ", True),  # two switches, sixteen letters
        ("OFkyxowiesnspvkz", False),  # one switch
        ("tr!ckyp@ss", True),
        ("tr-ckyp_ss", False),  # name joiners, not password symbols
        ("SHA256-hashed", False),
        ("pass=pass=pass", False),
        ("get_pw(x)A1", False),
        ((R * 7)[:200], True),  # two hundred characters
        ((R * 7)[:201], False),
    ],
)
def test_password_looking_edges(value: str, password: bool) -> None:
    assert values.password_looking(value) is password


def test_password_looking_minimum_is_the_callers() -> None:
    assert values.password_looking("x7k2m9q4", min_len=8)
    assert not values.password_looking("x7k2m9q4", min_len=9)


HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"


@pytest.mark.parametrize(
    ("value", "token"),
    [
        ("x7K2m9q4Zt8LpW3n", True),  # sixteen characters
        ("x7K2m9q4Zt8LpW3", False),  # fifteen
        ("x7K2m9q4Zt8LpW3n==", True),
        ("SHA256:x7K2m9q4Zt8LpW3nabc", False),
        ("0x" + HEX, False),  # 42 characters: a key id or an address
        ("0x" + HEX + "e", True),
        ("pk_x7K2m9q4Zt8LpW3n", False),
        ("0123456789ABCDEF0123", False),  # upper-case hex: a fingerprint
        ("x7K2m9q4Zt8LpW3n?a=b", False),
        ("OfkyXOWIESNspvkzQ", True),  # letters only, case changing
        ("abcdefghijklmnopqrs", False),
    ],
)
def test_token_looking_edges(value: str, token: bool) -> None:
    assert values.token_looking(value) is token


@pytest.mark.parametrize(
    ("span", "secret"),
    [
        ("user:x7K2m9", True),  # six characters
        ("user:x7K2m", False),  # five
        ("user:8000?x", False),  # a port, then a query
        ("postgres:postgres", False),
        ("user:<pw>", False),
        ("x7K2m9q4Zt8LpW3n", True),  # a bare token of sixteen in the user part
        ("x7K2m9q4Zt8LpW3", False),
    ],
)
def test_url_password_edges(span: str, secret: bool) -> None:
    assert values.url_password(span) is secret


@pytest.mark.parametrize(
    ("span", "random"),
    [
        ("x7K2m9q4Zt8LpW3n", True),
        ("ghp_x7K2m9q4Zt8LpW3nRb5Vc1Hd6Jf0GsT2", True),
        ("QXZWKRMTPLVNJHGFDSYB", True),  # capitals only: a name's shape does not clear it
        ("configurationBuilder", False),  # an identifier
        ("aaaaaaaaaaaaaaaa", False),  # under 3 bits
        ("your_token_here_please", False),
        ("XKCDQRZW0123456789MN", False),  # typed in order
        ("AKIAIOSFODNN7EXAMPLE", False),
    ],
)
def test_random_token_edges(span: str, random: bool) -> None:
    assert values.random_token(span) is random


@pytest.mark.parametrize(
    ("lead", "inside"),
    [
        ("DB_PASSWORD=<你的", True),
        ("DB_PASSWORD=\u2039你的", True),
        ("DB_PASSWORD=\uff1cあなたの", True),
        ("DB_PASSWORD=\u300a你的", True),
        ("<your> ", False),
        ("a < b\n", False),
        ("DB_", False),
        ("\u00abvotre ", False),
    ],
)
def test_inside_placeholder_reads_angle_brackets_of_every_script(lead: str, inside: bool) -> None:
    assert values.inside_placeholder(lead) is inside
