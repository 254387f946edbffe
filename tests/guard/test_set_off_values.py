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


# Before the word, with a label set off after the value: a bracket, a
# comment's marker, an arrow, a colon, a dash or a comma; or "that's".
LABELLED = [
    ("{} (api key)", "key-in-prose"),
    ("{} (the api key for Datadog)", "key-in-prose"),
    ("{} [prod api key]", "key-in-prose"),
    ("{}: api key", "key-in-prose"),
    ("{} - api key", "key-in-prose"),
    ("{}, api key", "key-in-prose"),
    ("{} // datadog api key", "key-in-prose"),
    ("{} # datadog api key for prod", "key-in-prose"),
    ("{} <- datadog api key", "key-in-prose"),
    ("{} ← api key", "key-in-prose"),
    ("{} -> deploy token", "token-in-prose"),
    ("{} (Stripe webhook secret)", "secret-in-prose"),
    ("export DD={} # the Datadog api key", "key-in-prose"),
    ("{} (staging password)", "password-in-prose"),
    ("{} — that's the prod db password", "password-in-prose"),
    ("{} -- that is the GitHub bot token", "token-in-prose"),
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(("shape", "family"), LABELLED)
def test_a_value_with_a_label_set_off_after_it_is_refused(
    shape: str, family: str, value: str
) -> None:
    assert find_secret(shape.format(value)) == family


STORED += [
    "the api key (see docs/keys.md) rotates monthly",
    "pass the API key via --api-key",
    "SHA abc123 fixed the api key bug",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39: fix api key",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 - rotate the api key",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 (api key rotation)",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 # added api key",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39: api key is now read from the environment",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 -> fix api key leak",
    "a1b2c3d4e5f6a7b8c9d0e1f2 (the commit that changed the cache key)",
    "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab (the KMS key)",
    "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/api-AbCdEf // api key",
    "https://app.datadoghq.com/organization-settings/api-keys (api key)",
    "docs/keys/datadog-api-key.md (api key)",
    "/etc/ssl/private/server.key: TLS key",
    "src/tree_ring/guard/value_first.py - api key rules",
    "K8s (api key)",
    "the password policy (12 chars) applies",
    "token: see vault",
    "tenant_id_partition_key_v2 (partition key)",
    "550e8400-e29b-41d4-a716-446655440000 (idempotency key)",
    "d41d8cd98f00b204e9800998ecf8427e (md5 of an empty file, not a key)",
    "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 (ssh key fingerprint)",
    "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl # ssh key",
    "DATADOG_API_KEY_PROD_US1 (api key)",
    "${{ secrets.DATADOG_API_KEY }} // api key",
    "pk_live_51HqJxLKj3nD8sF2mQpR7tW1n (publishable key)",
    "Qz7vR2mXk9LpT4wYb8NcJ3hFs6DgA1eUo (example api key)",
    "mem_20261207_144430_2e9d224e5f1c: api key decision",
    "Qz7vR2mXk9LpT4wYb8NcJ3hFs6DgA1eUo (api key manager)",
    "Qz7vR2mXk9LpT4wYb8NcJ3hFs6DgA1eUo, api key rotation and more",
    "release-v2.3.1-rc1-build-20240101: api key support",
    "feature/DATADOG-1234-rotate-api-key: api key",
    "see https://docs.datadoghq.com/account_management/api-app-keys/ (api key)",
    "My new password manager, 1Password, is great",
    "client = Client(Qz7vR2mXk9LpT4wYb8NcJ3hFs6DgA1eUo, api_key)",
    "secret = base64.b64decode(encoded_secret)",
    "value_first.token_before(names) - key rules",
    "tests/guard/test_value_first.py: api key cases",
    "sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0 (image key)",
    "us-east-1.amazonaws.com/ecr/repo (registry key)",
    "i-0abc123def4567890 (instance key pair)",
    "sg-0123456789abcdef0 - security group for the api key service",
    "the api key → see 1Password",
    "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 (revoked api key)",
    '"3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39" — that\'s the commit that rotated the key',
    "README.md: the password section",
    "2024-01-15T10:30:00.000Z (api key created)",
    "The token (JWT) expires after 15 minutes",
    "Qz7vR2mXk9LpT4wYb8NcJ3hFs6DgA1eUo: the value of the api key field in the form",
    "Authorization header (the api key)",
]


# The word glued after a word that names a credential with it.
GLUED = [
    ("apikey {}", "key-in-prose"),
    ("the accesskey {} is in CI", "key-in-prose"),
    ("clientsecret {}", "secret-in-prose"),
    ("{} is our apikey", "key-in-prose"),
    ("{} (apikey)", "key-in-prose"),
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(("shape", "family"), GLUED)
def test_a_key_after_a_glued_word_is_refused(shape: str, family: str, value: str) -> None:
    assert find_secret(shape.format(value)) == family


STORED += [
    f"monkey {MIXED}",
    f"hotkey {MIXED}",
    f"{MIXED} is the turkey",
    "the apikey header is X-Api-Key",
    "apikey getServerSideProps",
    "the apikey query parameter is deprecated",
    "set the apikey via --apikey",
]


# More marks and brackets: a table's column, a block comment, long arrows,
# braces, an aside after the word inside the bracket; "currently" in an
# apposition; a new one after a sentence's end.
WIDER = [
    ("{} | api key", "key-in-prose"),
    ("{} /* api key */", "key-in-prose"),
    ("{} --> api key", "key-in-prose"),
    ("api key <-- {}", "key-in-prose"),
    ("api key ➜ {}", "key-in-prose"),
    ("{} {{api key}}", "key-in-prose"),
    ("{} (api key, prod)", "key-in-prose"),
    ("{} (api key - prod)", "key-in-prose"),
    ("the Datadog API key, currently {}, expires soon", "key-in-prose"),
    ("our slack token got rotated. New one: {}", "token-in-prose"),
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(("shape", "family"), WIDER)
def test_wider_marks_and_brackets_are_refused(shape: str, family: str, value: str) -> None:
    assert find_secret(shape.format(value)) == family


STORED += [
    "| `DATADOG_API_KEY` | api key |",
    f"| {HEX40} | fix api key |",
    f"| {HEX40} | api key rotation |",
    "getApiKeyFromEnvironmentVariable (api key)",
    "--api-key-file=/etc/dd/api.key (api key)",
    "x-datadog-api-key-header-name | api key",
    f"{HEX40} {{api key rotation}}",
    "com.example.security.ApiKeyFilter (api key, servlet filter)",
    f"{HEX40} (api key, see PR 12)",
    "550e8400-e29b-41d4-a716-446655440000 | tenant id | partition key",
    "user@example.com (api key owner)",
    "K8s --> api key",
    "the api key --> see docs/keys.md",
    "token --> $GITHUB_TOKEN",
]


STORED += [
    "``openssh-key-v1`` (base64 ``b3BlbnNzaC1rZXktdjE``), and a DER private key",
    f"{MIXED}, and the api key",
    f"{HEX40} # api key or token",
]
