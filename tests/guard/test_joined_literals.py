"""A key split across string literals that code joins is read whole
(`joined_literals`), by the token formats and the assignment rules only.

Each refused case is missed as written (the parts alone are no token and no
secret), so each fails when the joining is taken away.
"""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret
from tree_ring.guard.joined_literals import joined_literals, may_join
from tree_ring.model.errors import SecretRefused

STRIPE = ("sk_live_" + "z8SL", "P00Ik5GmWTosdSOiuzb3")
GITHUB = ("ghp_" + "IFOWV46GB6igyH", "F2teK4YvKYHhujou3LRBLF")

JOINED = {
    # JavaScript, Java, Python, C#: "+".
    f'key is split so the linter won\'t flag it: "{STRIPE[0]}" + "{STRIPE[1]}"': "stripe-key",
    f"const k = '{STRIPE[0]}'+'{STRIPE[1]}';": "stripe-key",
    # Lua's "..", PHP's and Perl's ".", VB's "&", SQL's "||", D's "~".
    f'local key = "{STRIPE[0]}" .. "{STRIPE[1]}"': "stripe-key",
    f"$k = '{GITHUB[0]}' . '{GITHUB[1]}';": "github-token",
    f'Dim k As String = "{STRIPE[0]}" & "{STRIPE[1]}"': "stripe-key",
    f"SELECT '{STRIPE[0]}' || '{STRIPE[1]}' AS k": "stripe-key",
    f'auto k = "{GITHUB[0]}" ~ "{GITHUB[1]}";': "github-token",
    # Side by side, as C and Python join them, over a line break too.
    f'KEY = ("{STRIPE[0]}"\n       "{STRIPE[1]}")': "stripe-key",
    # What a key name is given, split so no part is random enough alone.
    'api_key = "x8Kd" "92jf" "Lq0Zp3RtAb"': "api-key-assignment",
    'client_secret = "Qm9v" + "X2k8" + "Ls02pQz7Yt"': "secret-assignment",
}


@pytest.mark.parametrize(("text", "rule"), JOINED.items(), ids=list(range(len(JOINED))))
def test_a_key_split_across_joined_literals_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule


def test_the_field_is_named() -> None:
    text = next(iter(JOINED))
    with pytest.raises(SecretRefused) as raised:
        check_fields({"summary": "rotated the key", "details": text})
    assert (raised.value.rule, raised.value.field) == ("stripe-key", "details")


STORED = [
    # Words quoted side by side or joined in a sentence read as no key.
    'she said "hello" + "world" twice',
    '"foo" "bar" "baz"',
    'echo "a" "b"',
    'print("password: " + "hidden")',
    'msg = "token " + "expired at 12:00"',
    'name = "foo" + "bar_baz_qux_value"',
    # Literals not joined: an argument list, a variable between.
    f'f("{STRIPE[0]}", "{STRIPE[1]}")',
    f'k = "{STRIPE[0]}" + suffix + "{STRIPE[1]}"',
]


@pytest.mark.parametrize("text", STORED, ids=list(range(len(STORED))))
def test_literals_that_join_to_no_key_are_stored(text: str) -> None:
    assert find_secret(text) is None


def test_joining_writes_each_chain_as_one_literal() -> None:
    text = "a = 'x' + 'y' .. 'z'; b = \"p\" \"q\"; c = 'r'"
    assert joined_literals(text) == "a = 'xyz'; b = \"pq\"; c = 'r'"
    assert joined_literals("no literals here") is None


def test_text_without_joined_literals_is_not_searched() -> None:
    assert not may_join(b"plain words, no quotes at all")
    assert not may_join(b'one "quoted" word and another "one"')
    assert may_join(b'"a" + "b"')
    assert may_join(b"'a'\n  'b'")
