"""The inbox and the review queue show an expiry an agent set.

Promoted or approved, an agent's note is a person's, and its expiry then a
person's forget when `maintain --apply-expired` runs (docs/CORRECTING.md):
the person deciding sees the expiry, in text and in `--json`.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CliRunner
from governance_support import CLAUDE

EXPIRES = "2099-01-01T00:00:00Z"


def test_an_agents_expiry_is_shown_where_a_person_decides(
    run_cli: CliRunner, project_root: Path
) -> None:
    note = run_cli(
        "--json", "remember", "Builds use the pinned toolchain", "--expires-at", EXPIRES,
        environ=CLAUDE,
    )  # fmt: skip
    assert note.code == 0, note.err
    noted = json.loads(note.out)["id"]
    proposal = run_cli(
        "--json", "remember", "Deploys wait for the on-call approval", "--scope", "project",
        "--expires-at", EXPIRES, environ=CLAUDE,
    )  # fmt: skip
    assert proposal.code == 0, proposal.err
    proposed = json.loads(proposal.out)["id"]
    plain = run_cli("--json", "remember", "Logs rotate nightly", environ=CLAUDE)
    unexpiring = json.loads(plain.out)["id"]
    said = "expires 2099-01-01T00:00:00Z: promoted or approved, it is then deleted as a person's"

    inbox = run_cli("inbox", "--peek")
    assert inbox.code == 0, inbox.err
    assert inbox.out.count(said) == 2
    items = json.loads(run_cli("--json", "inbox", "--peek").out)["items"]
    expiring = {i["id"] for i in items if i["expires_at"]}
    assert expiring == {noted, proposed}
    assert unexpiring in {i["id"] for i in items} - expiring

    queue = run_cli("review", "list")
    assert queue.code == 0, queue.err
    assert said in queue.out
    waiting = json.loads(run_cli("--json", "review", "list").out)["items"]
    expiries = {i["id"]: i["expires_at"] for i in waiting if i.get("kind") == "memory"}
    assert set(expiries) == {proposed}
    assert expiries[proposed].startswith("2099-01-01T00:00:00")
