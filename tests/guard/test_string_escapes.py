"""A secret inside a string's one-character escapes is read unescaped
(`spellings`): JSON pasted into a quoted argument (`{\\"password\\": ...}`),
and a line break written as the two characters "\\n", as a YAML block scalar
typed on one shell line is.

Each refused case is missed as written, so each fails when those escapes are
no longer read.
"""

from __future__ import annotations

import pytest

from tree_ring.guard import find_secret

PASSWORD = "Violet366*kma"
YAML_PASSWORD = "Wv6p&KYA=BJ%q4t0C3Uq"

ESCAPED = {
    f'{{\\"password\\": \\"{PASSWORD}\\", \\"user\\": \\"svc\\"}}': "password-assignment",
    'curl -d "{\\"api_key\\":\\"x8Kd92jfLq0Zp3RtAbQw\\"}" https://api.example.com': (
        "api-key-assignment"
    ),
    "{\\'secret\\': \\'Qm9vX2k8Ls02pQz7Yt\\'}": "secret-assignment",
    # Escaped twice over: JSON inside a JSON string.
    f'{{\\\\\\"password\\\\\\": \\\\\\"{PASSWORD}\\\\\\"}}': "password-assignment",
    # A block scalar and a value on the next, deeper line, "\n" written out.
    f"password: |\\n  {YAML_PASSWORD}": "password-assignment",
    f"db:\\n  password: >-\\n    {YAML_PASSWORD}": "password-assignment",
    "config:\\n  password:\\n    Gh7#kL2pQ9zX": "password-assignment",
    f"db:\\r\\n  password: |\\r\\n    {YAML_PASSWORD}": "password-assignment",
}


@pytest.mark.parametrize(("text", "rule"), ESCAPED.items(), ids=list(range(len(ESCAPED))))
def test_a_secret_behind_short_escapes_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule


STORED = [
    # Escaped JSON and YAML that hold no secret.
    '{\\"password\\": \\"${DB_PASSWORD}\\", \\"user\\": \\"svc\\"}',
    '{\\"password_min_length\\": 12, \\"rotate\\": true}',
    "password: |\\n  see the vault entry for prod",
    "password:\\n  secretKeyRef:\\n    name: db",
    # Windows paths, whose "\n" and "\t" are no line break or tab.
    "C:\\new\\token\\password_reset.txt",
    "path C:\\Users\\name\\secrets\\notes.txt",
    'printf "password:\\n" > prompt.txt',
]


@pytest.mark.parametrize("text", STORED, ids=list(range(len(STORED))))
def test_escaped_text_without_a_secret_is_stored(text: str) -> None:
    assert find_secret(text) is None
