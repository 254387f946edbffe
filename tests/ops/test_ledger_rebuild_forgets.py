"""A store rebuilt from the ledger in a project with no upstream (the remedy
`doctor` names for a damaged store): every line is a claim, so a person's
forget of a memory the new store never held is kept as a withdrawal, binding
agents only. `sync` says so in a note instead of counting nothing, and a
backup made before the forget cannot put the memory back under its id.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from team_support import cli, commit, first_repo, ok, remember

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
        'this clone writes leaves out (docs/TEAM.md, "What the ledger is trusted for")',
        # The memory the ledger still holds waits for review; the sync says so.
        "note:       1 memory of lines not the upstream's taken as claims, waiting for a "
        "person (`tree-ring review list`): the ledger this clone writes leaves their lines out "
        "until a person approves them, so read `git diff .tree-ring/ledger.jsonl` before "
        "committing it; your own export puts them back as it says with `tree-ring import FILE "
        "--restore`",
    ]
    assert ok(root, "--json", "sync").json()["notes"] == []  # taken once

    done = cli(root, "import", str(backup))
    assert done.code != 0
    assert f"memory id {gone} was forgotten here and cannot be reused" in done.err
    # The other memory came back as a claim, waiting for review; the forgotten one not at all.
    assert ok(root, "--json", "list").json()["items"] == []
    waiting = ok(root, "--json", "review", "list").json()["items"]
    assert [item["summary"] for item in waiting] == [
        "Deploys freeze on Fridays after the release branch is cut"
    ]
    assert ok(root, "doctor").code == 0
