"""A teammate's forget of a memory this clone's summary tree had sealed:
the clone rebuilds its own nodes and keeps their old text out, and the
ledger's line for the memory stays the teammate's, hash for hash, so a sync
that takes in only the pull leaves the file as it was."""

from __future__ import annotations

from pathlib import Path

from team_support import (
    LEDGER,
    clone,
    first_repo,
    git,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    remember,
)

NOTES = (
    "Builds pin the toolchain in rust-toolchain.toml",
    "Postgres migrations run through sqlx never by hand",
    "Release notes live in the docs changelog file",
    "Deploys freeze on Fridays after the release branch is cut",
)


def test_a_pulled_forget_leaves_the_ledger_as_the_teammate_wrote_it(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    ids = [remember(alice, text) for text in NOTES]
    origin = hub(tmp_path, alice)
    publish(alice, "memory")
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "tree", "config", "--set", "input_token_budget=40", "--set", "summary_fanout=2")
    ok(bob, "tree", "rebuild")
    assert git(bob, "status", "--porcelain").stdout == ""
    ok(alice, "forget", ids[-1], "--mode", "delete", "--reason", "freeze lifted")
    publish(alice, "forget")
    theirs = [e for e in ledger_entries(alice) if e.get("id") == ids[-1]]
    pull(bob)
    ok(bob, "sync")
    assert [e for e in ledger_entries(bob) if e.get("id") == ids[-1]] == theirs
    assert git(bob, "diff", "--stat", "--", LEDGER).stdout == ""
    # Bob's own tree keeps the sealed text out all the same.
    refused = ok(bob, "--json", "recall", "--tree", "Fridays").json()["items"]
    assert all("Fridays" not in str(item) for item in refused)
