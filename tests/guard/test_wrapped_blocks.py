"""Base64 (or hex) wrapped over lines is read whole (`spellings._wrapped`).

`base64` wraps at 76 columns, `openssl base64` and PEM at 64, `xxd -p` at 60:
decoded line by line, a secret across a line break reads as two halves and
gzip reads as nothing, so each case below is missed by the rules as written
and by the lines decoded one by one, and refused once the block is joined.
"""

from __future__ import annotations

import base64
import gzip
import json
import time

import pytest

from tree_ring.guard import check_fields, engine, find_secret, spellings
from tree_ring.model.errors import SecretRefused

TOKEN = "ghp_" + "Zk3q9XvB7mWp2LdR8sTn4YcH6jFa1Ue5GoQi"
# The token starts at byte 51: across the break after byte 57 (76 columns).
ENV = f"APP_ENV=production\nLOG_LEVEL=debug\nREPO_CLONE_CRED={TOKEN}\nDB_HOST=db.internal\n"
# Here at byte 35: across the break after byte 48 (64 columns).
SHORT_ENV = f"APP_ENV=production\nREPO_CLONE_CRED={TOKEN}\nDB_HOST=db.internal\n"
KEY = (
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----\n"
)
CREDENTIALS = json.dumps(
    {"type": "service_account", "private_key": KEY, "client_email": "ci@acme.iam.example"}
)


def _wrap(data: bytes, width: int = 76, *, newline: str = "\n", indent: str = "") -> str:
    """`data` in base64 as `base64` writes it: `width` columns, a final newline."""
    text = base64.b64encode(data).decode()
    lines = [indent + text[i : i + width] for i in range(0, len(text), width)]
    return newline.join(lines) + newline


# `xxd -p` writes 60 hex digits a line.
HEXED = ENV.encode().hex()


def _gz(text: str) -> bytes:
    return gzip.compress(text.encode(), mtime=0)


def _line_by_line(text: str) -> str | None:
    """What the guard found before blocks were joined: each line on its own."""
    for line in text.splitlines():
        found = find_secret(line)
        if found is not None:
            return found
    return None


WRAPPED = {
    "base64-76": _wrap(ENV.encode()),
    "openssl-64": _wrap(SHORT_ENV.encode(), 64),
    "gzip-base64-76": _wrap(_gz(ENV)),
    "gzip-base64-70": _wrap(_gz(ENV), 70),  # `base64 -w 70`: a width no multiple of 4
    "base64-50": _wrap(ENV.encode(), 50),
    "gzip-credentials-json": _wrap(_gz(CREDENTIALS)),
    "crlf-trailing-spaces": _wrap(ENV.encode(), newline="  \r\n"),
    "yaml-block-indented": "ENV_FILE: |\n" + _wrap(_gz(ENV), indent="    "),
    "after-a-key": "ENV_FILE=" + _wrap(ENV.encode()),
    "in-a-sentence": "the CI variable holds\n" + _wrap(ENV.encode()) + "and nothing else.",
    "hex-60": "\n".join(HEXED[i : i + 60] for i in range(0, len(HEXED), 60)),
}


@pytest.mark.parametrize("text", WRAPPED.values(), ids=WRAPPED.keys())
def test_a_wrapped_block_is_decoded_whole(text: str) -> None:
    assert engine._find_secret(engine._Text(text)) is None  # the rules alone miss it
    assert _line_by_line(text) is None  # and so does each line decoded alone
    assert find_secret(text) is not None
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "CI variable ENV_FILE", "details": text})
    assert caught.value.field == "details"


def test_the_block_is_one_spelling() -> None:
    assert list(spellings.spellings(_wrap(ENV.encode()))) == [ENV]
    assert list(spellings.spellings(_wrap(_gz(ENV), 64))) == [ENV]


def test_a_run_followed_by_a_short_line_still_reads_alone() -> None:
    # "Done" is four base64 characters: joined, it spoils the decoding, so the
    # run is read alone as it always was.
    first = base64.b64encode(f"REPO_CLONE_CRED={TOKEN}".encode()).decode()
    assert len(first) % 4 == 0
    assert find_secret(first + "\nDone\n") == "github-token"


CLEAN = {
    "wrapped-prose": _wrap(
        b"Deploys freeze on Fridays after the release branch is cut; hotfixes go "
        b"through on-call, and the rollback runbook lives in the ops wiki."
    ),
    "wrapped-gzip-yaml": _wrap(
        _gz("name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"), 64
    ),
    "digests-one-per-line": "\n".join(
        [
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
        ]
    ),
    "paths-one-per-line": "tree_ring/guard/spellings.py\ntree_ring/guard/engine.py\n",
}


@pytest.mark.parametrize("text", CLEAN.values(), ids=CLEAN.keys())
def test_ordinary_wrapped_text_stays_clean(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": text, "details": text}) == "normal"


@pytest.mark.parametrize(
    "text",
    [
        _wrap(b"\x00\x01" * 3_000_000),  # equal lines that never decode to text
        ("QUtJ" * 19 + "\n") * 150_000,  # equal lines that do
        _wrap(_gz("x" * 200_000)) * 40,  # gzip bombs, wrapped
        ("QUtJ" * 19 + " \t\r" * 30 + "\n") * 40_000,  # spaces past the slack
    ],
    ids=["binary", "text", "gzip", "slack"],
)
def test_hostile_wrapped_blocks_complete(text: str) -> None:
    started = time.process_time()
    assert find_secret(text) is None
    assert time.process_time() - started < 20
