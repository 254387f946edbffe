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


# A generated value before the word for key, token or secret, or set off right
# after it (an apposition, a bracket): refused by the family of that word.
AWS = "Zq8vN3kLp0R7tYw2XbC9mJ4hGfD6sA1eUoI5nVcK"
HEX = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
VALUE_FIRST = [
    (f"{AWS} is our AWS secret access key", {"secret-in-prose", "key-in-prose"}),
    (f"Use {AWS} as the AWS secret key for staging", {"secret-in-prose", "key-in-prose"}),
    (f"The AWS secret access key ({AWS}) lives in the CI settings", {"key-in-prose"}),
    (f"Use {HEX} as the Datadog API key", {"key-in-prose"}),
    (f"{HEX} is the Datadog API key for prod", {"key-in-prose"}),
    (f"set {HEX} as our pagerduty integration key.", {"key-in-prose"}),
    ("k8Jd2LmQ9xPz4RtY7vWc1NbH is the deploy token", {"token-in-prose"}),
    ("The webhook secret, q9Xv2LmZ8rTp4KwB7nHc3YdF, rotates weekly", {"secret-in-prose"}),
    ("Use Tr0ub4dor&3xyz as the staging password", {"password-in-prose"}),
    ("The staging password, Tr0ub4dor&3xyz, must be rotated monthly", {"password-in-prose"}),
    ("the root password (Tr0ub4dor&3xyz) is in the runbook", {"password-in-prose"}),
    (f"{AWS}, the prod db password, must be rotated", {"password-in-prose"}),
    (f"{AWS} -- the prod db password", {"password-in-prose"}),
    (f"{AWS} is what we use as the Datadog API key", {"key-in-prose"}),
    (f"{AWS} is the value of the Datadog API key", {"key-in-prose"}),
    (f"{AWS} is the GitHub bot's token", {"token-in-prose"}),
    (f"{AWS} is our AWS secret-access-key", {"key-in-prose", "secret-in-prose"}),
    (f"the Datadog API key's value is {AWS}", {"key-in-prose"}),
    (f"{AWS} belongs to the Datadog api key", {"key-in-prose"}),
    (f"{AWS} is what we use for the Stripe secret", {"secret-in-prose"}),
    (f"use {AWS} for the Datadog API key", {"key-in-prose"}),
    (f"Set {HEX} for the pagerduty integration key", {"key-in-prose"}),
    ("use Tr0ub4dor&3xyz for the staging password", {"password-in-prose"}),
]

# The same shapes around a name, an id, a digest or a call: stored.
NAMED = [
    "a1b2c3d4e5f6a7b8c9d0e1f2 is the commit that changed the cache key",
    "550e8400-e29b-41d4-a716-446655440000 is the tenant id used as the partition key",
    "Use X-Request-Id-Header-Name as the idempotency key",
    "Use getServerSideProps as the key to fetching data per request",
    "The key, however, is to retry with jitter",
    "The API key (see vault) is injected at deploy",
    "The password (Vault) must never be logged",
    "The password, as always, lives in 1Password",
    "The token (JWT) expires after 15 minutes",
    "Use ORDER_SERVICE_DATABASE_URL as the secret name in Kubernetes",
    "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/api is the secret ARN",
    "Use STRIPE_SECRET_KEY_LIVE as the key name in the vault",
    "d41d8cd98f00b204e9800998ecf8427e is the md5 of an empty file, not a key",
    "Use /etc/ssl/private/server.key as the TLS key path",
    "Use ${{ secrets.NPM_TOKEN }} as the token in CI",
    f"{HEX} as the Datadog API key",
    f"{AWS} is the secret ARN we read at start-up",
    "The primary key (tenant_id) is indexed",
    "pass verify=False to requests when talking to the local mock server",
    "pass timeout=30 to requests.get in the fetcher",
    "pass check=True to subprocess.run in the build scripts",
    "the AWS key (arn:aws:kms:us-east-1:123456789012:alias/ci) lives in CI",
    "the AWS key (arn:aws:iam::123456789012:user/ci-deployer) lives in CI",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 is the API key fix commit",
    "mem_20261207_144430_2e9d224e5f1c is the API key decision memory",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39, the commit that rotated the API key, is on main",
    f"{AWS} for the Datadog API key",
    "I asked for the api key twice",
    "use ruff for the api key lint",
    "use getServerSideProps for the cache key",
    "Use STRIPE_SECRET_KEY_LIVE for the key name in the vault",
    f"use {AWS} for the api key rotation",
]


@pytest.mark.parametrize(("text", "rules"), VALUE_FIRST)
def test_a_key_before_its_name_or_set_off_after_it_is_refused(text: str, rules: set[str]) -> None:
    assert find_secret(text) in rules


@pytest.mark.parametrize("text", NAMED)
def test_a_name_id_or_digest_in_those_places_is_stored(text: str) -> None:
    assert find_secret(text) is None
