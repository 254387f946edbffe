"""A teammate's forget travels as its tombstone line's hashes, as they are:
a clone applying it tombstones exactly those, so no clone built from the
ledger it writes refuses a memory the team keeps."""

from __future__ import annotations

from pathlib import Path

from team_support import cli, clone, first_repo, hub, ledger_entries, ok, publish, pull, remember

FORGOTTEN = "The old VPN gateway is vpn-legacy-3 in rack nine"
# A person's note that holds the forgotten sentence and stays.
KEPT = "Ops notes. The old VPN gateway is vpn-legacy-3 in rack nine. Ask Sam."


def _stone_hashes(root: Path, memory_id: str) -> set[str]:
    return {
        h
        for e in ledger_entries(root)
        if e["record"] == "tombstone" and e["id"] == memory_id
        for h in e["hashes"]
    }


def test_a_teammates_sync_keeps_the_forgets_hashes_and_a_fresh_clone_keeps_the_note(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    gone, kept = remember(alice, FORGOTTEN), remember(alice, KEPT)
    publish(alice, "notes")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    ok(bob, "sync")
    publish(bob, "bob's clone")
    pull(alice)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "wrong gateway")
    decided = _stone_hashes(alice, gone)
    assert decided  # the whole memory's words are tombstoned, the kept note's sentence not
    publish(alice, "forget")
    pull(bob)
    ok(bob, "sync")
    assert _stone_hashes(bob, gone) == decided
    publish(bob, "bob syncs the forget")
    carol = clone(tmp_path / "alice-hub.git", tmp_path, "carol")
    ok(carol, "sync")
    listed = cli(carol, "--json", "list").json()
    assert {item["id"] for item in listed["items"]} == {kept}
    assert _stone_hashes(carol, gone) == decided
    # The forgotten memory itself stays out everywhere.
    refused = cli(carol, "remember", FORGOTTEN)
    assert refused.code != 0 and "forgotten" in refused.err
