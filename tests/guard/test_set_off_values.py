"""A key, token, secret or password set off beside the word that names it:
after an arrow or a tilde, in brackets or after a comment's marker after
the value, in an apposition or a relative clause after the word, or given
as the new one after the word. Refused by the family of the word; a name, a
reference, a digest or a path in those places is stored."""

from __future__ import annotations

import pytest

from tree_ring.guard import find_secret

MIXED = "Qz7vR2mXk9LpT4wYb8NcJ3hFs6DgA1eUo"
HEX32 = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
HEX40 = "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"
BASE64 = "aGVsbG8gd29ybGQgdGhpcyBpcyBh+/Zk9="
DASHED = "sv_9Kq2-Lm8_xZ4pR7tW1nB6cY3"
VALUES = [MIXED, HEX32, HEX40, BASE64, DASHED]

# After the word, linked by an arrow or a tilde.
ARROWS = [
    "api key ← {}",
    "api key → {}",
    "the Datadog API key <- {}",
    "datadog api key ~ {}",
    "staging deploy token ⇒ {}",
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("shape", ARROWS)
def test_a_key_after_an_arrow_is_refused(shape: str, value: str) -> None:
    expected = "key-in-prose" if "key" in shape else "token-in-prose"
    assert find_secret(shape.format(value)) == expected


def test_a_password_after_an_arrow_is_refused() -> None:
    assert find_secret("db password ← Tr0ub4dor&3xyz") == "password-in-prose"
    assert find_secret("password → hunter2") == "password-in-prose"


STORED = [
    "the password ~ 8 chars long",
    "the api key ~ 40 chars",
    "token → see vault",
    "the password → rotate monthly",
    "api key <- $DATADOG_API_KEY",
    "token ~ ${{ secrets.NPM_TOKEN }}",
    "api key → docs/keys.md",
]


@pytest.mark.parametrize("text", STORED)
def test_a_name_reference_or_path_in_those_places_is_stored(text: str) -> None:
    assert find_secret(text) is None


# "pwd" as the word for password, after a link: not the shell's directory.
PWD_REFUSED = [
    f"the prod database pwd is {MIXED}",
    "the admin pwd is hunter2",
    "db pwd for staging: Kx7!mQ2#zp",
    "the root pwd was changed to Tr0ub4dor&3xyz",
]
PWD_STORED = [
    "pwd is /home/ci/work",
    "the pwd is now ~/src/tree-ring",
    "run pwd: /Users/bob/src",
    "pwd -> /tmp/guardwt",
    "the pwd output is /srv/app",
    "pwd is $HOME/src",
    "cwd/pwd is C:\\Users\\bob",
    "pwd is the shell builtin that prints the directory",
    "pwd = os.getcwd()",
]


@pytest.mark.parametrize("text", PWD_REFUSED)
def test_pwd_as_the_word_for_password_is_refused(text: str) -> None:
    assert find_secret(text) == "password-in-prose"


@pytest.mark.parametrize("text", PWD_STORED)
def test_pwd_naming_a_directory_is_stored(text: str) -> None:
    assert find_secret(text) is None


# After the word, in an apposition after a phrase that says which, or in a
# relative clause.
APPOSED = [
    ("the Datadog API key, which is {}, expires soon", "key-in-prose"),
    ("the Datadog API key we use, {}, expires soon", "key-in-prose"),
    ("the Stripe secret in prod, {}, was leaked", "secret-in-prose"),
    ("the deploy token for staging ({}) expires Friday", "token-in-prose"),
    ("the webhook secret, that is {}, rotates weekly", "secret-in-prose"),
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(("shape", "family"), APPOSED)
def test_a_key_in_an_apposition_after_its_word_is_refused(
    shape: str, family: str, value: str
) -> None:
    assert find_secret(shape.format(value)) == family


def test_a_password_in_an_apposition_after_its_word_is_refused() -> None:
    text = "the password for the admin user, which is Kx7!mQ2#zp, rotates"
    assert find_secret(text) == "password-in-prose"


STORED += [
    "the api key for prod, staging and dev are in vault",
    f"the key in commit {HEX40}, which rotated it, is on main",
    "the token from https://github.com/settings/tokens, which is short-lived, goes in CI",
    "the api key we use, arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/api, "
    "lives in Secrets Manager",
    "the secret in prod, prod/api/datadog-key-2024, is read at start-up",
    "the api key for Datadog, i.e. DATADOG_API_KEY, is injected",
    "the api key for prod (docs/keys.md) rotates monthly",
    "the api key we use, which is DATADOG_API_KEY_PROD, expires soon",
    "the key we use, which is the-staging-cluster-signing-key, is in KMS",
    "the password for the admin user, which is stored in 1Password, rotates",
    f"the secret in prod, sha256:{HEX32}{HEX32}, is pinned",
]


# Given as the new one in the clause after the one that says the credential changed.
SUCCESSORS = [
    ("the staging password got reset; new one: {}", "password-in-prose"),
    ("the API key was rotated, the new value is {}", "key-in-prose"),
    ("the deploy token expired -- it's now {}", "token-in-prose"),
    ("the Stripe secret leaked, so the new one is {}", "secret-in-prose"),
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(("shape", "family"), SUCCESSORS)
def test_a_new_value_after_a_change_is_refused(shape: str, family: str, value: str) -> None:
    assert find_secret(shape.format(value)) == family


def test_a_chosen_password_given_as_the_new_one_is_refused() -> None:
    assert find_secret("the staging password got reset; new one: hunter3") == "password-in-prose"


STORED += [
    "the password policy changed; new one: 12 chars",
    "the staging password got reset; new one: see vault",
    "the api key rotated; new one: in 1Password",
    "the token format changed; new one: JWT",
    "the password hashing changed; new one: argon2id",
    "the password manager changed; new one: Bitwarden",
    "the api key rotation script broke, it is now fixed",
    "the db password got reset; new one: ${DB_PASSWORD}",
]
