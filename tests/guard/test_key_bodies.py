"""Private keys without their PEM armour: the base64 body alone is refused.

The bodies are real keys made for these tests (`openssl genrsa`, `openssl
genpkey`, `ssh-keygen -t ed25519`), read from the secrets corpus, where each
is written on one line.
"""

from __future__ import annotations

import pytest
from helpers import FIXTURES

from tree_ring.guard import check_fields, classify, find_secret
from tree_ring.guard import key_bodies as kb
from tree_ring.model.errors import SecretRefused

CORPUS = FIXTURES / "guard"
RULE = "private-key-body"


def _longest_word(line: str) -> str:
    words = line.replace('"', " ").replace("=", " ", 1).split()
    return max(words, key=len)


def _bodies(path: str, tag: str | None) -> dict[str, str]:
    """The key bodies of a corpus, by their first characters."""
    found: dict[str, str] = {}
    for line in (CORPUS / path).read_text("utf-8").splitlines():
        if tag is not None:
            line_tag, _, line = line.partition("\t")
            if line_tag != tag:
                continue
        word = _longest_word(line)
        found[word[:12]] = word
    return found


KEYS = _bodies("secrets.txt", RULE)
# The kinds of key the corpus holds, by how their bodies start.
KINDS = {
    "b3BlbnNzaC1r": "openssh-ed25519",
    "MIIEpAIBAAKC": "pkcs1-rsa",
    "MIIEvQIBADAN": "pkcs8-rsa",
    "MHcCAQEEIFme": "sec1-ec",
    "MC4CAQAwBQYD": "pkcs8-ed25519",
}
CLEAN = _bodies("clean.txt", None)
CERTIFICATE = CLEAN["MIIC+TCCAeGg"]
PUBLIC_KEY = CLEAN["MIIBIjANBgkq"]


def _lines(body: str, width: int = 64) -> list[str]:
    return [body[i : i + width] for i in range(0, len(body), width)]


def test_the_corpus_holds_every_kind() -> None:
    assert set(KEYS) == set(KINDS)


def _layouts(body: str) -> dict[str, str]:
    lines = _lines(body)
    return {
        "one-line": body,
        "pem-lines": "\n".join(lines),
        "crlf": "\r\n".join(lines),
        "json-escaped": '{"key": "' + "\\n".join(lines) + '"}',
        "yaml-block": "tls_key: |\n  " + "\n  ".join(lines) + "\nnext: 1",
        "in-prose": f"the deploy key is {body} until Friday",
    }


@pytest.mark.parametrize("start", sorted(KINDS), ids=[KINDS[s] for s in sorted(KINDS)])
def test_a_body_is_refused_in_every_layout(start: str) -> None:
    found = {name: find_secret(text) for name, text in _layouts(KEYS[start]).items()}
    assert found == dict.fromkeys(found, RULE)


@pytest.mark.parametrize("start", sorted(KINDS), ids=[KINDS[s] for s in sorted(KINDS)])
def test_check_fields_refuses_a_body_and_names_the_field(start: str) -> None:
    lines = "\n".join(_lines(KEYS[start]))
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Deploy notes", "details": lines})
    assert (caught.value.rule, caught.value.field) == (RULE, "details")
    assert KEYS[start][20:40] not in str(caught.value)


def test_a_body_split_between_two_fields_is_refused() -> None:
    body = KEYS["MIIEvQIBADAN"]
    fields = {"summary": body[:100], "details": body[100:]}
    assert [find_secret(value) for value in fields.values()] == [None, None]
    with pytest.raises(SecretRefused) as caught:
        check_fields(fields)
    assert (caught.value.rule, caught.value.field) == (RULE, "summary+details")


@pytest.mark.parametrize(
    "text",
    [
        CERTIFICATE,
        "\n".join(_lines(CERTIFICATE)),
        PUBLIC_KEY,
        "\n".join(_lines(PUBLIC_KEY)),
        # A key's first line, or its start quoted in a note, holds no key material.
        _lines(KEYS["b3BlbnNzaC1r"], 70)[0],
        KEYS["MIIEvQIBADAN"][:64] + "...",
        "OpenSSH bodies start b3BlbnNzaC1rZXktdjEA; PKCS#1 RSA ones MIIEowIBAAKCAQEA",
        # The right start, then filler: a placeholder.
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "A" * 400,
        # A key's start inside a longer base64 run is no key's start.
        "QUJD" + KEYS["MIIEpAIBAAKC"],
        "aGVsbG8gd29ybGQsIHRoaXMgaXMgb3JkaW5hcnkgYmFzZTY0IHRleHQgYW5kIG5vdGhpbmcgbW9yZQ==",
    ],
    ids=[
        "certificate",
        "certificate-lines",
        "public-key",
        "public-key-lines",
        "openssh-first-line",
        "pkcs8-start-elided",
        "starts-in-prose",
        "filler",
        "inside-a-run",
        "ordinary-base64",
    ],
)
def test_certificates_public_keys_and_ordinary_base64_are_not_refused(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"details": text}) == "normal"
    assert classify(text) == "normal"


@pytest.mark.parametrize(
    ("data", "size"),
    [
        (bytes.fromhex("30770201"), 0x79),
        (bytes.fromhex("308187020100"), 0x8A),
        (bytes.fromhex("308204a4020100"), 0x4A8),
        (bytes.fromhex("3183"), 0),  # a SET, not a SEQUENCE
        (bytes.fromhex("30830001000200"), 0),  # a length no key has
        (bytes.fromhex("3077"), 0),  # too short to read
    ],
)
def test_der_size_reads_the_outer_sequence(data: bytes, size: int) -> None:
    assert kb._der_size(data) == size  # pyright: ignore[reportPrivateUsage]
