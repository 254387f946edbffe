"""A value given to a key that names a password, passphrase or PIN is refused
whatever its entropy (`values.chosen_password`, `values.chosen_pin`); notes
about passwords, stand-ins and references stay ordinary."""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret
from tree_ring.model.errors import SecretRefused

REFUSED = {
    "DB_PASSWORD=hunter2": "password-assignment",
    "DB_PASSWORD=correcthorsebatterystaple": "password-assignment",
    "DB_PASSWORD=correct-horse-battery-staple": "password-assignment",
    "password: correcthorsebatterystaple": "password-assignment",
    '{"user": "app", "password": "hunter2"}': "password-assignment",
    "admin_passwd: sunshine": "password-assignment",
    "DB_PASSWORD=Summer-2024": "password-assignment",
    "passphrase = 'tango-violet-anchor-meadow'": "password-assignment",
    "wrong because DB_PASSWORD=hunter2": "password-assignment",
    "contains DB_PASSWORD=correcthorsebatterystaple": "password-assignment",
    "PIN=482913": "password-assignment",
    'sim_pin: "4829"': "password-assignment",
    "the staging db password is correct-horse-battery-staple": "password-in-prose",
    "the wifi password is hunter2.": "password-in-prose",
    "the vault PIN is 482913": "password-in-prose",
    "The door PIN was changed to 907153 yesterday": "password-in-prose",
    # A run only when it runs throughout: two steps of three make no run.
    "the vault PIN is 1236": "password-in-prose",
    "the vault PIN is 9865": "password-in-prose",
    "the backup passphrase is correcthorsebatterystaple": "password-in-prose",
    # Separators and a password's symbol together, with a digit.
    "DB_PASSWORD=Summer-2024!": "password-assignment",
    "CREATE USER 'report'@'10.0.%' IDENTIFIED BY 'N0t-S0-S3cret!';": "password-argument",
    'password: "db_Pass#1"': "password-assignment",
    # A weak password in a connection string is as chosen as one in prose.
    "db url postgres://admin:hunter2@db.internal:5432/app": "url-password",
    "mysql://root:letmein@10.0.0.5/db": "url-password",
    "redis://:hunter2@cache:6379": "url-password",
}


@pytest.mark.parametrize(("text", "rule"), REFUSED.items(), ids=REFUSED.keys())
def test_a_chosen_password_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Staging notes", "details": text})
    assert (caught.value.rule, caught.value.field) == (rule, "details")


STORED = [
    # Notes about passwords.
    "the password is stored in Vault",
    "password is required",
    "password is set via the env",
    "the PIN is printed on the card",
    "password: see 1Password",
    "rotate the DB password every 90 days",
    "the password field is hashed with argon2",
    "password: required (min 12 chars)",
    "PIN entry times out after 30 s",
    "set DB_PASSWORD in .env, never in code",
    "the password is case-sensitive",
    "the password is auto-generated",
    "the password is correct",
    "the password is the same as the username on dev boxes",
    "passphrase: leave empty for the dev key",
    "password: bcrypt-hashed",
    "The PIN is 6 digits long",
    "LED pin: 13",
    "pin numpy to 1.26",
    "pin to 2024 until the fix lands",
    "passwd:         files",
    # Stand-ins, local defaults and references.
    "DB_PASSWORD=<redacted>",
    "DB_PASSWORD=${DB_PASSWORD}",
    "DB_PASSWORD=$DB_PASSWORD",
    "password: %DB_PASSWORD%",
    "password: ***",
    "password=xxx",
    "password=changeme",
    "POSTGRES_PASSWORD=postgres",
    "MYSQL_ROOT_PASSWORD=root",
    "the PIN is 1234",
    "the PIN is 98765",
    "PIN=0000",
    "password = settings.DB_PASSWORD",
    "password=hashed_password",
    "password=POSTGRES_PASSWORD",
    "password: dbPassword",
    "password = user_input",
    "password: bytes",
    "password: SecretStr",
    'password: "${DB_PASSWORD:?missing}"',
    "pwd: /app",
    "Zoom https://acme.zoom.us/j/98765432100?pwd=meetingroom",
    # Separators and a symbol without a digit: words, not a password.
    "the password is case-sensitive!",
]


@pytest.mark.parametrize("text", STORED)
def test_notes_about_passwords_are_stored(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": "Staging notes", "details": text}) == "normal"
