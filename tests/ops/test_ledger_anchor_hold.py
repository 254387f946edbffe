"""What a sync writes of the ledger's anchors, and of a newer Tree Ring's lines.

- A sync that finds this clone's audit log cut short leaves its anchor line
  as it was: writing the cut log's head would let the next routine commit
  hide the cut from every later check.
- Another clone's anchor line is the upstream's, or left out: a working-tree
  edit of it would, once committed, tell that clone its log was cut.
- A line of a record this version does not know that the upstream holds is
  written back when the working tree lost it, as a memory line is.
"""

from __future__ import annotations

import json
from pathlib import Path

from team_support import (
    LEDGER,
    cli,
    clone,
    cut_audit,
    first_repo,
    git,
    hub,
    ok,
    publish,
    pull,
    remember,
)

from tree_ring.store.db import Store
from tree_ring.team import sync


def _anchors(root: Path) -> dict[str, dict[str, object]]:
    lines = [json.loads(t) for t in (root / LEDGER).read_text(encoding="utf-8").splitlines()]
    return {str(d["clone"]): d for d in lines if d.get("record") == "anchor"}


def _anchored(tmp_path: Path) -> Path:
    """Alice's clone, its anchor at entry 4 or more pushed to the upstream."""
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    for n in range(4):
        remember(alice, f"Memory number {n} about the deployment of service {n}")
    ok(alice, "sync")
    publish(alice, "anchored")
    return alice


def test_a_sync_that_finds_the_log_cut_keeps_the_anchor_so_a_commit_cannot_hide_it(
    tmp_path: Path,
) -> None:
    alice = _anchored(tmp_path)
    before = _anchors(alice)
    cut_audit(alice, 2)
    done = cli(alice, "sync")
    assert done.code == 1 and "truncated" in done.out + done.err
    assert _anchors(alice) == before
    publish(alice, "a routine commit")
    again = cli(alice, "--json", "sync")
    assert again.code == 1 and "truncated" in again.json()["audit_anchor"]


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Alice's note on the release calendar")
    ok(alice, "sync")
    publish(alice, "alice")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    remember(bob, "Bob's note on the staging cluster")
    ok(bob, "sync")
    publish(bob, "bob")
    pull(alice)
    ok(alice, "sync")
    return alice, bob


def _clone_id(root: Path) -> str:
    with Store.open(root) as store:
        return sync.clone_id(store.db)


def test_another_clones_anchor_edited_in_the_working_tree_is_left_out(tmp_path: Path) -> None:
    alice, bob = _pair(tmp_path)
    bobs = _clone_id(bob)
    path = alice / LEDGER
    text = path.read_text(encoding="utf-8")
    upstreams = next(t for t in text.splitlines() if f'"clone":"{bobs}"' in t)
    forged = json.loads(upstreams) | {"seq": 99, "head": "sha256:" + "0" * 64}
    path.write_text(
        text.replace(upstreams, json.dumps(forged, sort_keys=True, separators=(",", ":"))),
        encoding="utf-8",
    )
    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    assert any("anchor line(s) of other clones" in n for n in done.json()["notes"])
    assert _anchors(alice)[bobs] == json.loads(upstreams)
    publish(alice, "a routine commit")
    pull(bob)
    there = cli(bob, "--json", "sync")
    assert there.code == 0 and there.json()["audit_anchor"] == "ok", there.out


def test_an_upstream_line_of_an_unknown_record_lost_from_the_working_tree_is_written_back(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    newer = b'{"note":"newer version data","record":"futurething","v":7}'
    with (alice / LEDGER).open("ab") as handle:
        handle.write(newer + b"\n")
    publish(alice, "a newer line")
    ok(alice, "sync")
    assert newer in (alice / LEDGER).read_bytes().split(b"\n")
    kept = [t for t in (alice / LEDGER).read_bytes().split(b"\n") if t != newer]
    (alice / LEDGER).write_bytes(b"\n".join(kept))
    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    assert newer in (alice / LEDGER).read_bytes().split(b"\n")
    assert any("(a line of the upstream's ledger)" in n for n in done.json()["notes"])
    assert git(alice, "diff", "--stat", "origin/main", "--", LEDGER).stdout.strip() == ""


AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"}


def test_with_no_backup_a_persons_repair_anchors_the_cut_log_as_it_stands(tmp_path: Path) -> None:
    """Every sync fails while the log is cut; only a person's `doctor
    --repair` accepts the loss, audited, and the upstream's anchor keeps
    naming the cut until the ledger is pushed."""
    alice = _anchored(tmp_path)
    cut_audit(alice, 2)
    assert cli(alice, "sync").code == 1
    by_agent = cli(alice, "--json", "doctor", "--repair", environ=AGENT).json()
    [check] = [c for c in by_agent["items"] if c["name"] == "ledger"]
    assert not check["ok"] and check["repairable"] and not check["repaired"]
    repaired = cli(alice, "--json", "doctor", "--repair").json()
    [check] = [c for c in repaired["items"] if c["name"] == "ledger"]
    assert "anchored this clone's audit log as it now stands" in check["repaired"]
    assert not check["ok"]  # the upstream's line still names the entries cut
    assert cli(alice, "sync").code == 1
    publish(alice, "the log anchored again")
    done = cli(alice, "--json", "sync")
    assert done.code == 0 and done.json()["audit_anchor"] == "ok", done.out
    log = ok(alice, "--json", "audit", "--limit", "500").json()["items"]
    assert [e["target"] for e in log if e["action"] == "repair"].count("ledger") == 1
