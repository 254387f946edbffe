"""A secret written another way is refused as if written plainly (`spellings`).

Each case is a secret the rules miss as written (checked: `_as_written` finds
nothing), so each test fails when the spelling that reveals it is taken away.
The clean cases are ordinary text in the same spellings, which must stay
clean, and the hostile ones hold the decoding to its bounds.
"""

from __future__ import annotations

import base64
import gzip
import json
import time
from urllib.parse import quote

import pytest
from helpers import parenthesized

from tree_ring.guard import check_fields, engine, find_secret, spellings
from tree_ring.model.errors import SecretRefused

TOKEN = "ghp_" + "Zk3q9XvB7mWp2LdR8sTn4YcH6jFa1Ue5GoQi"
AWS_ID = "AKIA" + "QX7LM2ZP9RT4WB6N"
AWS_SECRET = "k3Jx9Lq2Vb7Nw5Rt8Yz1Mp4Hs6Df0Ga3Ce2Ub9Q"
PASSWORD = "Qv8#nL2x!Rt5"
ENV = f"AWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\nAWS_REGION=eu-west-1\n"
URL = f"postgres://billing:{PASSWORD}@db.prod.internal:5432/billing"
CREDENTIALS = json.dumps({"type": "service_account", "access_token": TOKEN, "scope": "repo"})


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isalnum() or c == "_" else c for c in text)


def _math_digits(text: str) -> str:
    return "".join(chr(0x1D7CE + int(c)) if c.isdigit() else c for c in text)


def _entities(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


FILLERS = {
    "hangul-filler": "\u3164",
    "hangul-choseong-filler": "\u115f",
    "hangul-jungseong-filler": "\u1160",
    "halfwidth-hangul-filler": "\uffa0",
    "braille-blank": "\u2800",
}

SPELLED = {
    "fullwidth-prefix": "for CI: " + _fullwidth(TOKEN[:4]) + TOKEN[4:],
    "fullwidth-all": "token " + _fullwidth(AWS_ID),
    "math-digits": "key " + _math_digits(AWS_ID) + " rotates monthly",
    # Enclosed forms NFKC writes in brackets: read as the letters and digits alone.
    "parenthesized-letters": "stripe key " + parenthesized("sk_live_") + "4eC39HqLyjWDarjtT1zdp7dc",
    "parenthesized-digits": "token " + TOKEN[:-8] + parenthesized(TOKEN[-8:].lower()),
    "parenthesized-password": "DB_PASSWORD=" + parenthesized("hunter299"),
    "cyrillic-prefix": "use g\u04bb\u0440" + TOKEN[3:] + " for the release",  # һ р
    "cyrillic-aws": "\u0410KIA" + AWS_ID[4:],  # А
    "zero-width-split": f"token {TOKEN[:10]}\u200b{TOKEN[10:]} for staging",
    "soft-hyphen-split": f"token {TOKEN[:10]}\u00ad{TOKEN[10:]}",
    "no-break-space-split": f"the bot uses {TOKEN[:10]}\u00a0{TOKEN[10:]} in prod",
    "ideographic-space-split": f"the bot uses {TOKEN[:20]}\u3000{TOKEN[20:]}",
    "combining-mark-split": f"deploy with {TOKEN[:12]}\u0301{TOKEN[12:]} tonight",
    "base64-env-block": "the CI secret ENV_FILE is " + _b64(ENV),
    "base64-json-credentials": "GOOGLE_CREDENTIALS_B64=" + _b64(CREDENTIALS),
    "base64url-unpadded": "cursor "
    + base64.urlsafe_b64encode(CREDENTIALS.encode()).decode().rstrip("="),
    "base64-twice": "wrapped " + _b64(_b64(f"password={PASSWORD}")),
    "gzip-base64": "blob " + base64.b64encode(gzip.compress(ENV.encode(), mtime=0)).decode(),
    "hex": "stored hex: " + TOKEN.encode().hex(),
    "hex-upper": "blob " + f"DB_PASSWORD={PASSWORD}".encode().hex().upper(),
    "percent-url": "?dsn=" + quote(URL, safe=""),
    "percent-twice": quote(quote(URL, safe=""), safe=""),
    "percent-every-byte": "q=" + "".join(f"%{b:02X}" for b in TOKEN.encode()),
    "percent-fullwidth": "q=" + quote(_fullwidth(TOKEN[:4]) + TOKEN[4:], safe=""),
    "json-unicode-escapes": '{"t": "'
    + "".join(f"\\u{ord(c):04x}" for c in TOKEN[:6])
    + TOKEN[6:]
    + '"}',
    "c-hex-escapes": "".join(f"\\x{ord(c):02x}" for c in AWS_ID[:4]) + AWS_ID[4:],
    "html-decimal-entities": "page source had " + _entities(TOKEN[:4]) + TOKEN[4:],
    "html-hex-entities": "".join(f"&#x{ord(c):X};" for c in AWS_ID[:4]) + AWS_ID[4:],
    "base64-of-percent": _b64("DATABASE_URL=" + quote(URL, safe=":/")),
    # Characters that show blank and are no space to Unicode, between words
    # (read as spaces) and inside a token (read as nothing).
    **{
        f"{name}-between-words": f"the{blank}db{blank}password{blank}is{blank}{PASSWORD}"
        for name, blank in FILLERS.items()
    },
    "braille-blank-split": f"the bot uses {TOKEN[:10]}\u2800{TOKEN[10:]} in prod",
    "hangul-filler-split": f"key {AWS_ID[:8]}\u3164{AWS_ID[8:]} rotates monthly",
}


def _as_written(text: str) -> str | None:
    return engine._find_secret(engine._Text(text))


@pytest.mark.parametrize("text", SPELLED.values(), ids=SPELLED.keys())
def test_a_secret_in_another_spelling_is_refused(text: str) -> None:
    assert _as_written(text) is None  # the rules alone miss it
    assert find_secret(text) is not None
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Deploy notes", "source_quote": text})
    assert caught.value.field == "source_quote"


CLEAN = {
    "base64-prose": "notes: "
    + _b64("Deploys freeze on Fridays after the release branch is cut; hotfixes via on-call."),
    "base64-config": _b64(json.dumps({"retries": 3, "timeout_ms": 2500, "region": "eu-west-1"})),
    "base64-local-env": _b64(
        "NODE_ENV=development\nPORT=8080\nDATABASE_URL=postgres://postgres:postgres@localhost:5432/dev\n"
    ),
    "gzip-base64-yaml": base64.b64encode(
        gzip.compress(b"name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n", mtime=0)
    ).decode(),
    "hex-digests": "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    " and commit 4f9c2a1b7e3d8a6b0c5d2e1f4f9c2a1b7e3d8a6b",
    "hex-prose": "hex of the greeting: " + b"hello from the staging cluster".hex(),
    "uuids": "request 550e8400-e29b-41d4-a716-446655440000"
    " and 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    "percent-search": "https://www.google.com/search?q=sqlite%20fts5%20rank%20bm25&hl=en",
    "percent-local-url": "DATABASE_URL="
    "postgres%3A%2F%2Fpostgres%3Apostgres%40localhost%3A5432%2Ftest",
    "percent-prose": "coverage is 87% and 100% on the guard; 5% slack",
    "fullwidth-prose": "Ｒｅｌｅａｓｅ ｆｒｅｅｚｅ starts on Friday; ｎｏ deploys",
    "russian-prose": "Развёртывание по пятницам запрещено, токен ротируется автоматически",
    "greek-prose": "Η ανάπτυξη γίνεται κάθε Τρίτη και ο κωδικός ελέγχεται στο CI",
    "no-break-spaces": "token\u00a0budget is 4096 per call; key\u00a0rotation every 90 days",
    "braille-text": "The lift sign reads \u281e\u2813\u2811\u2800\u2819\u2815\u2815\u2817"
    " in Braille; the password policy is on the wiki",
    "hangul-filler-text": "\ud55c\uae00\u3164\uc774\ub984 \u3164 is a blank nickname;"
    " the wifi password is on the fridge",
    "escapes": "The JSON had \\u00e9 for é, \\x41 for A and &#169; for the copyright sign",
    "paths": "see tests/fixtures/guard/obfuscated.jsonl and tree_ring/guard/spellings.py",
}


@pytest.mark.parametrize("text", CLEAN.values(), ids=CLEAN.keys())
def test_ordinary_text_in_the_same_spellings_stays_clean(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": text, "details": text}) == "normal"


def test_plain_ascii_without_encodings_has_no_other_spelling() -> None:
    # The common memory pays for a few substring tests, nothing more.
    assert list(spellings.spellings("Deploys freeze on Fridays after the cut")) == []
    assert list(spellings.spellings("short_ids like mem_2026 and abc123")) == []


def test_spellings_are_bounded() -> None:
    # Many blobs: only the first `_BLOBS` are decoded, and the spellings stop
    # at `_SPELLINGS` however deep and wide the text is.
    blob = _b64("an ordinary sentence about the build, nothing else")
    many = " ".join(f"{blob}{index:04d}" for index in range(200))
    assert len(list(spellings.spellings(many))) <= spellings._SPELLINGS
    hidden = " ".join([blob] * (spellings._BLOBS + 1) + [_b64(ENV)])
    assert find_secret(hidden) is None  # past the bound: documented, not decoded
    assert find_secret(" ".join([blob] * 2 + [_b64(ENV)])) is not None


@pytest.mark.parametrize(
    "text",
    [
        "%41" * 1_000_000,
        "%25" * 1_000_000,
        "\\u0041" * 500_000,
        "&#65;" * 600_000,
        "QUtJQ" * 600_000,
        "0123456789abcdef" * 200_000,
        "H4sI" * 500_000,
        "\u00a0ghp_" * 400_000,
        "\u3164ghp_\u2800" * 300_000,
        "ｇ\u0301" * 500_000,
        (_b64("x" * 60) + " ") * 50_000,
    ],
    ids=lambda text: f"{text[:8]!r}x{len(text)}",
)
def test_hostile_encodings_complete(text: str) -> None:
    started = time.process_time()
    assert find_secret(text) is None
    assert time.process_time() - started < 20
