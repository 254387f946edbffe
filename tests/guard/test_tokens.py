"""Validators of the provider token rules, at their edges."""

from __future__ import annotations

import pytest

from tree_ring.guard import tokens


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("AKIAQ3RT7WQ3RT7WQ3RT", True),  # six distinct characters after the prefix
        ("AKIAQZ37RWQZ37RW", True),
        ("AKIAQ3RT7Q3RT7Q3RT7Q", False),  # five
        ("AKIAIOSFODNN7EXAMPLE", False),  # AWS's documented example
    ],
)
def test_aws_key_id_needs_a_varied_body(span: str, valid: bool) -> None:
    assert tokens._aws_key_id(span) is valid  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("span", "valid"),
    [
        ("sk-x7K2m9q4Zt8LpW3nRb5Vc1Hd", True),
        ("sk-refactor-storage-layer", False),  # a slug, not a key
    ],
)
def test_sk_body_must_look_generated(span: str, valid: bool) -> None:
    assert tokens._sk_body(span) is valid  # pyright: ignore[reportPrivateUsage]


def test_sas_signature_needs_its_version_field() -> None:
    sig = "sig=x7K2m9q4Zt8LpW3nRb5Vc1Hd6Jf0Gs%2B"
    assert tokens._sas_signature(f"https://a.blob.core.windows.net/c?sv=2022-11-02&{sig}")  # pyright: ignore[reportPrivateUsage]
    assert not tokens._sas_signature(f"https://a.example.net/c?v=2022-11-02&{sig}")  # pyright: ignore[reportPrivateUsage]
    assert not tokens._sas_signature("https://a.blob.core.windows.net/c?sv=2022&sig=short")  # pyright: ignore[reportPrivateUsage]


def test_private_key_header_unless_the_body_is_elided() -> None:
    assert tokens._private_key("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA")  # pyright: ignore[reportPrivateUsage]
    assert not tokens._private_key("-----BEGIN RSA PRIVATE KEY-----\n...")  # pyright: ignore[reportPrivateUsage]


_BODY = "NqVwYS81VPk3xT9mLz2QwRb7YdHc4FjG6sAe"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"ghp_{_BODY}", "github-token"),
        (f"x_ghp_{_BODY}", "github-token"),  # an identifier's separator is no glue
        (f"GITHUB_TOKEN_ghp_{_BODY}", "github-token"),
        (f"saved to token_npm_{_BODY}.txt", "npm-token"),
        (f"9ghp_{_BODY}", None),  # inside a longer token-like string
        (f"Xghp_{_BODY}", None),
    ],
)
def test_a_prefixed_token_after_an_underscore_is_still_a_token(
    text: str, found: str | None
) -> None:
    from tree_ring.guard import engine

    assert engine.find_secret(text) == found


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (
            "مفتاح SendGrid هو SG.2AVHLVRuu8ylGHUX76Ntpd.yPM9GpgCSn847uDj3RRid5Y67FIcNWX6fDCO",
            "sendgrid-key",
        ),
        ("SG.mW929vegPBpr58VdupGF.r5Gb2z_eapSlsa8RhaAW_raGMSpQx3kLm0Zt7uWq", "sendgrid-key"),
        ("رمز Jira هو ATATT3xJgZ36PiNecE9uIwAvVzQZ8RfpSH9SUcl99tYm", "atlassian-token"),
        (
            "Azure DevOps PAT: eg5afjo1wodtqw0daxub4z7fl1fu9fnmeky4zrfxtndvjjv7jpz7",
            "azure-devops-pat",
        ),
        ("PAT: 18s9mjbudyfm4kr6bnycv470nn7g3htmt2au79c3ruoj1rw6wrrp (30 days)", "azure-devops-pat"),
        ("ado token=mmqm6r9lmtiyewz65owplgerfywtenhxmhnx7kloo2ab3cd4ef5g", "azure-devops-pat"),
        (
            "Azure DevOps PAT (new format): Us6XcFaHQu1mDF2JWVxMjI8WTqHDz55UvMoiQ8EcGZ"
            "cjcFHRsIgapm5BisThrh6UgIeDJbjWXYUTEbTMOPi4",
            "azure-devops-pat",
        ),
    ],
)
def test_vendor_tokens_of_a_length_near_the_issued_one(text: str, rule: str) -> None:
    from tree_ring.guard import find_secret

    assert find_secret(text) == rule


@pytest.mark.parametrize(
    "text",
    [
        "SG.short.again",
        "SG.aaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "ATATT3xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "the path /srv/app/0123456789abcdefghij0123456789abcdefghij0123456789ab",
        "Pat reviewed abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
        "PAT scopes for the bot: Code (read), Build (read and execute)",
    ],
)
def test_vendor_prefixes_before_no_token_are_not(text: str) -> None:
    from tree_ring.guard import find_secret

    assert find_secret(text) is None
