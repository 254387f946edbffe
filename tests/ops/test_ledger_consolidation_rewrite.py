"""A consolidation rewritten in place, when one of its sources was forgotten,
reaches a teammate's clone as its new line: the teammate's own rewrite is
replaced by it, nothing is lost, and the audit log stays whole."""

from __future__ import annotations

from pathlib import Path

from team_support import cli, clone, first_repo, hub, ledger_entries, ok, publish, pull, remember

NOTES = (
    "Cache warmup runs at boot on node alpha",
    "Cache warmup uses the orchid key prefix",
    "Cache warmup takes ninety seconds on node alpha",
)


def _consolidation(root: Path) -> dict[str, object]:
    (line,) = [
        e for e in ledger_entries(root) if (e.get("source") or {}).get("type") == "consolidation"
    ]
    return line


def test_a_teammate_takes_the_rewritten_consolidation(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    ids = [remember(alice, text) for text in NOTES]
    ok(alice, "consolidate")
    publish(alice, "notes and their consolidation")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    ok(bob, "sync")
    publish(bob, "bob's clone")
    pull(alice)
    ok(alice, "forget", ids[1], "--mode", "delete", "--reason", "wrong prefix")
    rewritten = _consolidation(alice)
    publish(alice, "forget")
    pull(bob)
    synced = ok(bob, "sync")
    assert "skipped:    0" in synced.out
    assert _consolidation(bob)["summary"] == rewritten["summary"]
    held = cli(bob, "--json", "show", str(rewritten["id"]))
    assert held.code == 0, held.err
    assert held.json()["memory"]["summary"] == rewritten["summary"]
    verified = cli(bob, "audit", "verify")
    assert verified.code == 0, verified.out + verified.err
    assert "BROKEN" not in verified.out
