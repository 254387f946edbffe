"""A store rebuilt from the ledger in a project with no upstream (the remedy
`doctor` names for a damaged store, and what a solo project whose store was
lost has): every line is a claim, so a person's forget of a memory the new
store never held is kept as a withdrawal, binding agents only, and waits for
a person as a request to forget that id. `sync` says so in a note instead of
counting nothing, and a backup made before the forget cannot put the memory
back under its id. Approving the request makes the withdrawal the person's
forget again, and the ledger the store writes carries its line again.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from team_support import cli, commit, first_repo, ledger_entries, ok, remember

TEXT = "The staging database password rotation happens every Tuesday at noon"


def test_a_rebuild_names_forgets_kept_as_withdrawals(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    gone = remember(root, TEXT)
    remember(root, "Deploys freeze on Fridays after the release branch is cut")
    backup = tmp_path / "before.jsonl"
    backup.write_text(ok(root, "export").out, encoding="utf-8")
    ok(root, "forget", gone, "--mode", "delete", "--reason", "wrong")
    commit(root, "memory")
    aside = tmp_path / "aside"
    aside.mkdir()
    for file in (root / ".tree-ring").glob("memory.sqlite*"):
        shutil.move(str(file), aside / file.name)

    synced = ok(root, "sync").out
    notes = [line for line in synced.splitlines() if line.startswith("note:")]
    assert notes == [
        "note:       1 forget of memories this store never held came from lines not the "
        "upstream's: kept as withdrawals, which bind agents' writes only and which the ledger "
        "this clone writes leaves out until a person approves the request to forget each "
        '(`tree-ring review list`; docs/TEAM.md, "What the ledger is trusted for")'
    ]
    assert ok(root, "--json", "sync").json()["notes"] == []  # taken once

    done = cli(root, "import", str(backup))
    assert done.code != 0
    assert f"memory id {gone} was forgotten here and cannot be reused" in done.err
    # The other memory came back as a claim, waiting for review; the forgotten one not at all.
    assert ok(root, "--json", "list").json()["items"] == []
    waiting = ok(root, "--json", "review", "list").json()["items"]
    assert {(item["kind"], item["summary"]) for item in waiting} == {
        ("memory", "Deploys freeze on Fridays after the release branch is cut"),
        ("forget_request", "(never held here: what a team ledger line forgot of it)"),
    }
    assert ok(root, "doctor").code == 0


KEPT = "Deploys freeze on Fridays after the release branch is cut"


def lost_store(tmp_path: Path, mode: str = "delete") -> tuple[Path, str, list[dict[str, Any]]]:
    """A solo project (no remote) whose committed ledger holds a memory and a
    person's forget of another, and whose store was then lost; the forgotten
    id and the ledger's forget lines as committed."""
    root = first_repo(tmp_path)
    gone = remember(root, TEXT)
    remember(root, KEPT)
    ok(root, "forget", gone, "--mode", mode, "--reason", "wrong")
    commit(root, "memory")
    stones = [e for e in ledger_entries(root) if e.get("record") in ("tombstone", "redaction")]
    assert [e["id"] for e in stones] == [gone]
    for file in (root / ".tree-ring").glob("memory.sqlite*"):
        file.unlink()
    return root, gone, stones


def request_for(root: Path, memory_id: str) -> str:
    items = ok(root, "--json", "review", "list").json()["items"]
    asked = [i["id"] for i in items if i["kind"] == "forget_request"]
    assert [i["memory_id"] for i in items if i["kind"] == "forget_request"] == [memory_id]
    return asked[0]


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_approving_the_request_makes_the_forget_the_persons_again(
    tmp_path: Path, mode: str
) -> None:
    root, gone, stones = lost_store(tmp_path, mode)
    ok(root, "sync")
    # Until a person decides, the ledger this store writes leaves the line out,
    # and the person may write the words (the withdrawal binds agents only).
    assert [e for e in ledger_entries(root) if e.get("id") == gone] == []
    request = request_for(root, gone)
    done = ok(root, "--json", "review", "approve", request, "--reason", "my own forget")
    assert done.json()["decision"] == "approve"
    # The person's forget again: every write refused, the ledger's line back
    # with the same hashes, and the audit chain whole.
    refused = cli(root, "remember", TEXT)
    assert refused.code != 0 and "was forgotten on" in refused.err, refused.err
    ok(root, "remember", "A note written after the approval")  # rewrites the ledger
    back = [e for e in ledger_entries(root) if e.get("id") == gone]
    assert [(e["record"], e["hashes"]) for e in back] == [
        (stones[0]["record"], stones[0]["hashes"])
    ]
    assert ok(root, "--json", "audit", "verify").json()["ok"] is True
    assert ok(root, "doctor").code == 0
    status = ok(root, "--json", "status").json()["memories"]
    assert status["tombstones_withdrawn"] == 0 and status["tombstones"] == len(stones[0]["hashes"])
    assert request_for_none(root)


def request_for_none(root: Path) -> bool:
    items = ok(root, "--json", "review", "list").json()["items"]
    return [i for i in items if i["kind"] == "forget_request"] == []


def test_rejecting_the_request_leaves_the_withdrawal(tmp_path: Path) -> None:
    root, gone, _ = lost_store(tmp_path)
    ok(root, "sync")
    request = request_for(root, gone)
    ok(root, "review", "reject", request, "--reason", "not mine")
    assert request_for_none(root)
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-1"}
    # Still kept from agents' writes, still out of the ledger, and the person may write it.
    refused = cli(root, "capture", "--ring", "outer", "--type", "decision", TEXT, environ=agent)
    assert refused.code != 0, refused.out
    assert ok(root, "--json", "remember", TEXT).json()["trust"] == "accepted"
    assert [e for e in ledger_entries(root) if e.get("id") == gone] == []


def test_an_agent_cannot_approve_it(tmp_path: Path) -> None:
    root, gone, _ = lost_store(tmp_path)
    ok(root, "sync")
    request = request_for(root, gone)
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-1"}
    done = cli(root, "review", "approve", request, environ=agent)
    assert done.code != 0
    # An agent's review list does not show a request about no row it reads.
    items = cli(root, "--json", "review", "list", environ=agent).json()["items"]
    assert [i for i in items if i["kind"] == "forget_request"] == []
    status = ok(root, "--json", "status").json()["memories"]
    assert status["tombstones_withdrawn"] == status["tombstones"] > 0
    assert [e for e in ledger_entries(root) if e.get("id") == gone] == []


def test_a_forget_brought_since_leaves_nothing_to_approve(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    gone = remember(root, TEXT)
    ok(root, "forget", gone, "--mode", "delete", "--reason", "wrong")
    backup = tmp_path / "backup.jsonl"
    backup.write_text(ok(root, "export").out, encoding="utf-8")
    commit(root, "memory")
    for file in (root / ".tree-ring").glob("memory.sqlite*"):
        file.unlink()
    ok(root, "sync")
    request = request_for(root, gone)
    # The person's own export brings the forget back first.
    ok(root, "import", str(backup), "--restore")
    status = ok(root, "--json", "status").json()["memories"]
    assert status["tombstones_withdrawn"] == 0 and status["tombstones"] > 0
    done = cli(root, "review", "approve", request)
    assert done.code != 0
    assert done.err == (
        f"error: {gone}: this store holds nothing of it still to forget (a forget has "
        "replaced its withdrawal); reject the request instead\n"
    )
    assert ok(root, "review", "reject", request, "--reason", "restored").code == 0
    assert request_for_none(root)
