"""A person's correction of a memory an agent refuted reaches the team.

An agent's refutation is a claim that waits for a person, so the ledger says
the row as it was before it. When the person then supersedes or retires the
row, the ledger says it retired, as it would without the refutation: every
clone retires it too, rather than keeping the old value beside the new.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from team_support import cli, clone, first_repo, hub, ledger_entries, listed, ok, publish, pull

OLD = "The nightly reconciliation job runs at 03:30 UTC"
NEW = "The nightly reconciliation job runs at 04:30 UTC"
AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "agent-session-1"}


@pytest.mark.parametrize("how", ["remember --supersedes", "supersede"])
def test_the_retirement_travels(tmp_path: Path, how: str) -> None:
    alice = first_repo(tmp_path)
    bare = hub(tmp_path, alice)
    old = ok(alice, "--json", "remember", OLD).json()["id"]
    publish(alice, "the job's time")
    bob = clone(bare, tmp_path, "bob")
    ok(bob, "sync")
    assert OLD in listed(bob)

    refuted = cli(alice, "refute", old, "--reason", "cron.yaml says 04:30", environ=AGENT)
    assert refuted.code == 0, refuted.err
    if how == "supersede":
        new = ok(alice, "--json", "remember", NEW).json()["id"]
        ok(alice, "supersede", old, new, "--reason", "cron.yaml")
    else:
        ok(alice, "remember", NEW, "--supersedes", old)
    [line] = [e for e in ledger_entries(alice) if e["id"] == old]
    assert line["superseded_by"] is not None and line["retired_at"] is not None
    assert line["trust"] == "accepted"
    publish(alice, "the correction")

    pull(bob)
    ok(bob, "sync")
    assert listed(bob) >= {NEW} and OLD not in listed(bob)
    carol = clone(bare, tmp_path, "carol")
    ok(carol, "sync")
    assert NEW in listed(carol) and OLD not in listed(carol)
    # Bob's sync leaves the ledger as the team wrote it.
    ok(bob, "sync")
    [again] = [e for e in ledger_entries(bob) if e["id"] == old]
    assert again["superseded_by"] == line["superseded_by"]
