"""An MCP error quotes what the request said (an id, an argument's or a
tool's name, a method): whatever in it looks like a secret is withheld, as
the CLI's errors withhold it, in a tool's error result and in a protocol
error alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_support import claude

# Secret shapes (none of them live).
SECRETS = ["ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d", "AKIAQYLPMN5HHHFPZAM2"]
WITHHELD = "[withheld: it looks like a secret]"


@pytest.mark.parametrize("secret", SECRETS)
def test_no_error_of_the_server_repeats_a_secret(project_root: Path, secret: str) -> None:
    pipe = claude(project_root)
    failed = [
        pipe.call("show", {"id": f"mem_{secret}"}),
        pipe.call("forget", {"id": f"mem_{secret}", "reason": "x"}),
        pipe.call("recall", {"query": "build", secret: 1}),
    ]
    assert [f["ok"] for f in failed] == [False, False, False]
    assert all(WITHHELD in f["error"] for f in failed), failed
    replies = [
        pipe.request("tools/call", {"name": secret, "arguments": {}}),
        pipe.request(secret),
    ]
    assert all("error" in r and WITHHELD in r["error"]["message"] for r in replies), replies
    said = json.dumps([failed, replies])
    assert secret not in said and secret[4:] not in said
