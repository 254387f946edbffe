"""A redaction travels as a redaction, through clones that never held the memory.

A redaction keeps the memory's row as a placeholder; a tombstone removes it.
A clone that takes a redaction from the ledger without ever holding the row
must write the line back as it came: were it to write a tombstone instead,
the tombstone would win every merge and delete the placeholder everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    remember,
    session_start,
    summaries,
)

REDACTED = "The cache key is zebracorn7731 for the nightly build"
DELETED = "The staging database resets nightly at two"


def forgotten_upstream(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """Alice's clone with one memory redacted and one deleted, pushed to the upstream."""
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    redacted = remember(alice, REDACTED)
    deleted = remember(alice, DELETED)
    ok(alice, "forget", redacted, "--mode", "redact", "--reason", "wrong key")
    ok(alice, "forget", deleted, "--mode", "delete", "--reason", "stale")
    publish(alice, "forgotten")
    return alice, origin, redacted, deleted


def ledger_lines(root: Path) -> list[str]:
    return (root / LEDGER).read_text(encoding="utf-8").splitlines()


def committed_lines(root: Path) -> list[str]:
    return git(root, "show", f"HEAD:{LEDGER}").stdout.splitlines()


def shown(root: Path, memory_id: str) -> dict[str, Any]:
    return ok(root, "--json", "show", memory_id).json()["memory"]


@pytest.mark.parametrize("built_by", ["init", "session-start"])
def test_a_fresh_clone_passes_a_redaction_through_and_the_placeholder_survives(
    tmp_path: Path, built_by: str
) -> None:
    alice, origin, redacted, deleted = forgotten_upstream(tmp_path)
    carol = clone(origin, tmp_path, "carol", init=built_by == "init")
    if built_by == "session-start":
        session_start(carol)
    ok(carol, "sync")
    before, after = committed_lines(carol), ledger_lines(carol)
    # Every line the upstream committed is there byte for byte; the first sync
    # took in only what the file says, so it adds nothing, not even an anchor.
    assert after == before
    entries = {e["id"]: e["record"] for e in ledger_entries(carol)}
    assert entries == {redacted: "redaction", deleted: "tombstone"}
    assert ok(carol, "--json", "sync").json()["written"] == []  # and it stays so
    # Neither content comes back on the clone that never held it.
    for text in (REDACTED, DELETED):
        again = cli(carol, "remember", text)
        assert again.code != 0 and "forgotten" in again.err

    publish(carol, "carol syncs")
    pull(alice)
    report = ok(alice, "--json", "sync").json()
    assert report["forgotten"] == 0 and report["redacted"] == 0
    row = shown(alice, redacted)
    assert row["summary"] == "[REDACTED]" and row["redacted_at"] is not None
    assert not any("zebracorn7731" in text for text in summaries(alice))
    assert cli(alice, "show", deleted).code != 0
    assert {e["id"]: e["record"] for e in ledger_entries(alice)} == entries


def test_a_later_delete_of_the_placeholder_reaches_that_clone_as_a_delete(
    tmp_path: Path,
) -> None:
    alice, origin, redacted, _ = forgotten_upstream(tmp_path)
    carol = clone(origin, tmp_path, "carol")
    ok(carol, "sync")
    commit(carol, "carol syncs")
    ok(alice, "forget", redacted, "--mode", "delete", "--reason", "not even the id")
    publish(alice, "the placeholder goes too")
    pull(carol)
    ok(carol, "sync")
    [line] = [x for x in ledger_lines(carol) if redacted in x]
    assert line in committed_lines(carol) and json.loads(line)["record"] == "tombstone"
    again = cli(carol, "remember", REDACTED)
    assert again.code != 0 and "forgotten" in again.err


def test_doctor_keeps_a_redaction_held_without_its_row(tmp_path: Path) -> None:
    _, origin, redacted, _ = forgotten_upstream(tmp_path)
    carol = clone(origin, tmp_path, "carol")
    ok(carol, "sync")
    checks = {c["name"]: c for c in json.loads(cli(carol, "--json", "doctor").out)["items"]}
    assert checks["tombstones"]["ok"], checks["tombstones"]
    cli(carol, "doctor", "--repair")
    ok(carol, "sync")
    assert {e["id"]: e["record"] for e in ledger_entries(carol)}[redacted] == "redaction"


def test_a_tombstone_claim_does_not_turn_the_teams_redaction_into_a_delete(
    tmp_path: Path,
) -> None:
    _, origin, redacted, _ = forgotten_upstream(tmp_path)
    carol = clone(origin, tmp_path, "carol")
    ok(carol, "sync")
    lines = ledger_lines(carol)
    [at] = [i for i, x in enumerate(lines) if redacted in x]
    forged = {**json.loads(lines[at]), "record": "tombstone", "kind": "forgotten"}
    lines[at] = json.dumps(forged, sort_keys=True, separators=(",", ":"))
    (carol / LEDGER).write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok(carol, "sync")
    assert {e["id"]: e["record"] for e in ledger_entries(carol)}[redacted] == "redaction"
    assert set(committed_lines(carol)) <= set(ledger_lines(carol))
