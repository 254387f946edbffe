"""A forget commits the store, then rewrites the team ledger. One stopped
between the two (killed, the terminal closed) leaves the forgotten text in a
file the person commits: `doctor` says so, and `sync` rewrites it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_support import LEDGER, cli, first_repo, ledger_entries, ok, remember

from tree_ring.team import sync

FORGOTTEN = "The deploy key lives in vault path ops/deploy-legacy"
KEPT = "The catalog cache keeps entries for ten minutes"


def _ledger_check(root: Path) -> dict[str, object]:
    checks = {c["name"]: c for c in json.loads(cli(root, "--json", "doctor").out)["items"]}
    return checks["ledger"]


def test_a_forget_stopped_before_the_ledger_is_found_by_doctor_and_mended_by_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = first_repo(tmp_path)
    gone, kept = remember(alice, FORGOTTEN), remember(alice, KEPT)
    assert _ledger_check(alice)["ok"] is True
    with monkeypatch.context() as stopped:
        # The process dies after the store's commit: the ledger is not rewritten.
        stopped.setattr(sync, "after_write", lambda *_args: False)
        ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    assert FORGOTTEN in (alice / LEDGER).read_text(encoding="utf-8")
    check = _ledger_check(alice)
    assert check["ok"] is False
    assert check["detail"] == (
        f"{LEDGER} still holds 1 memory(ies) this store forgot ({gone}): "
        "a forget stopped before it rewrote the ledger; run `tree-ring sync` before committing it"
    )
    ok(alice, "sync")
    assert FORGOTTEN not in (alice / LEDGER).read_text(encoding="utf-8")
    assert {(e["id"], e["record"]) for e in ledger_entries(alice)} == {
        (kept, "memory"),
        (gone, "tombstone"),
    }
    assert _ledger_check(alice)["ok"] is True


def test_a_rejection_or_a_redaction_is_no_lag(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    redacted = remember(alice, FORGOTTEN)
    ok(alice, "forget", redacted, "--mode", "redact", "--reason", "wrong key")
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    proposed = cli(alice, "--json", "remember", KEPT, "--scope", "project", environ=agent)
    assert proposed.code == 0, proposed.err
    ok(alice, "review", "reject", proposed.json()["id"], "--reason", "not ours")
    ok(alice, "sync")
    assert _ledger_check(alice)["ok"] is True
