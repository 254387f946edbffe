"""The credential rules' validators and the prose reader, branch by branch."""

from __future__ import annotations

import base64

import pytest

from tree_ring.guard import command_lines, credentials, prose_credentials, prose_values


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    ("span", "secret"),
    [
        (_b64("user:x7K!"), True),  # a four-character password
        (_b64("user:x7K"), False),  # three
        (_b64("userx7K2m9"), False),  # no colon
        (_b64("user:user"), False),
        (_b64("us\x01r:x7K2m9"), False),  # not printable
        (_b64("user:<pw>"), False),
        (_b64("user:x7K2m9").rstrip("="), True),  # padding restored
        ('"' + _b64("user:x7K2m9") + '"', True),
        ("not base64!", False),
    ],
)
def test_basic_credentials(span: str, secret: bool) -> None:
    assert credentials._basic_credentials(span) is secret  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "secret"),
    [
        ("user:x7K2m9", True),  # six characters after the colon
        ("user:x7K2m", False),  # five
        ("user:user", False),
        ("user:abcdefgh", True),  # not shaped like a password, but random enough
        ("a:b:c", False),
        ("'x7K2m9q4'", True),
        ("'x7K2m'", False),  # quotes stripped: five left
        ("'x7K2m\"", True),  # unmatched quotes stay: seven characters
        ("x7K2m9", True),
        ("x7K2m", False),
    ],
)
def test_cli_password(span: str, secret: bool) -> None:
    assert command_lines._cli_password(span) is secret  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("word", "after_colon", "value"),
    [
        ("!vault", True, None),
        ("!vault", False, "!vault"),
        ("&x", True, None),
        ("*x", True, None),
        ("#x", True, None),
        ("-p", False, None),
        ("--x", False, None),
        ("-1", False, "-1"),
        ("-p1", False, None),  # an option, however it ends
        ("-1a", False, "-1a"),
        ("'abc'", False, "abc"),
        ("''", False, None),
        ("(x7K2)", False, "x7K2"),
    ],
)
def test_value_drops_wrapping_yaml_syntax_and_options(
    word: str, after_colon: bool, value: str | None
) -> None:
    assert prose_values.said_value(word, after_colon=after_colon) == value


@pytest.mark.parametrize(
    ("tail", "value"),
    [
        (" is x7K2m9q4", "x7K2m9q4"),
        (" x7K2m9q4", "x7K2m9q4"),
        (": x7K2m9q4", "x7K2m9q4"),
        ("=x7K2m9q4", "x7K2m9q4"),
        (":=x7K2m9q4", "x7K2m9q4"),
        ("+rotation", None),  # glued to the keyword
        ("'s value", None),
        (" for prod: x7K2m9q4", "x7K2m9q4"),
        (" for prod is x7K2m9q4", "x7K2m9q4"),
        (" for prod is now x7K2m9q4", "x7K2m9q4"),
        (" was reset to x7K2m9q4", "x7K2m9q4"),
        (" for prod, then x7K2m9q4", None),  # the phrase ended before a link
        (" to x7K2m9q4", "x7K2m9q4"),
        (" for a b c d e f is x7K2m9q4", "x7K2m9q4"),  # the link is the eighth word
        (" for a b c d e f g is x7K2m9q4", None),  # the ninth: too far
        (" policy is x7K2m9q4", "policy"),  # a compound: its first word, judged later
        (") for admin: x7K2m9q4", "x7K2m9q4"),
        (" ) x7K2m9q4", "x7K2m9q4"),
        (" )", None),
        (" (prod) is x7K2m9q4", "x7K2m9q4"),
        # The keyword named a template variable: what is glued to the
        # template's close is the URL or path the template sits in.
        (" }}@redis-master:6379", None),
        (" }}/config.yaml", None),
        (" %}redis://x7K2m9q4", None),
        (" }}", None),
        # A sentence may still go on past the template to a value.
        (" }} is x7K2m9q4", "x7K2m9q4"),
        (" }}: x7K2m9q4", "x7K2m9q4"),
        (" %} x7K2m9q4", "x7K2m9q4"),
        (" is: x7K2m9q4", "x7K2m9q4"),
        (" is", None),
        (" =", None),
        (": !vault x", None),
        (": -p x", None),
        ("", None),
        (" ", None),
    ],
)
def test_candidate_reads_the_value_a_sentence_gives(tail: str, value: str | None) -> None:
    assert prose_values.candidate(tail) == value


@pytest.mark.parametrize(
    ("tail", "value", "found"),
    [
        (" admin / x7K2m9q4", "admin", True),
        (" admin / admin", "admin", False),
        (" admin x7K2m9q4", "admin", False),  # no slash
        (" root:x7K2m9q4", "root:x7K2m9q4", True),
        (" root:root", "root:root", False),
        (" :x7K2m9q4", ":x7K2m9q4", False),  # no user
        (" root:x7K2m9", "root:x7K2m9", True),  # six characters
        (" root:x7K2m", "root:x7K2m", False),  # five
    ],
)
def test_user_password(tail: str, value: str, found: bool) -> None:
    assert prose_credentials._user_password(tail, value) is found  # pyright: ignore[reportPrivateUsage]


def test_pair_reads_the_word_after_a_slash() -> None:
    assert prose_credentials._pair(" admin / x7K2m9q4", "admin") == "x7K2m9q4"  # pyright: ignore[reportPrivateUsage]
    assert prose_credentials._pair(" admin x7K2m9q4", "admin") is None  # pyright: ignore[reportPrivateUsage]
    assert prose_credentials._pair(" admin /", "admin") is None  # pyright: ignore[reportPrivateUsage]
    assert prose_credentials._pair("zzz", "admin") is None  # pyright: ignore[reportPrivateUsage]
