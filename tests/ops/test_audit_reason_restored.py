"""`audit log --target ID` of a memory forgotten before its store was lost
says why, once a person's export put its tombstones back: the entry of the
rebuilt store's withdrawal records no reason, so the entries that brought
the tombstones are shown beside it (CORRECTING.md, "the reason the
tombstones carry")."""

from __future__ import annotations

import json
from pathlib import Path

from team_support import commit, first_repo, ok, remember

TEXT = "The staging database is rebuilt from the nightly snapshot"


def test_a_restored_forget_says_its_reason(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    gone = remember(root, TEXT)
    ok(root, "forget", gone, "--mode", "delete", "--reason", "transient setup")
    backup = tmp_path / "backup.jsonl"
    backup.write_text(ok(root, "export").out, encoding="utf-8")
    commit(root, "memory")
    for file in (root / ".tree-ring").glob("memory.sqlite*"):
        file.unlink()
    ok(root, "init")  # the ledger's forget: a withdrawal, with no reason
    before = ok(root, "--json", "audit", "log", "--target", gone).json()["items"]
    assert "transient setup" not in json.dumps(before)
    ok(root, "import", str(backup), "--restore")
    after = ok(root, "--json", "audit", "log", "--target", gone).json()
    assert "transient setup" in json.dumps(after["items"])
    assert after["total"] == len(after["items"]) > len(before)
    assert {e["action"] for e in after["items"]} == {"tombstone"}
    # A memory whose own entries say why shows only those.
    kept = remember(root, "Deploys freeze on Fridays after the release branch is cut")
    ok(root, "forget", kept, "--mode", "delete", "--reason", "lifted")
    own = ok(root, "--json", "audit", "log", "--target", kept).json()["items"]
    assert {e["target"] for e in own} == {kept}
