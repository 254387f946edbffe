"""A merge marker of another kind on a line of its own (a stray `=======`,
`>>>>>>>` or `|||||||`) opens no conflict: the ledger is read and written
as ever, the line left out as any line that is no ledger line is, and a
forget takes its words out of the file (a conflict opens with `<<<<<<<`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from team_support import LEDGER, cli, first_repo, ok, remember

TEXT = "Deploys freeze on Fridays after the release branch is cut"


@pytest.mark.parametrize("stray", ["=======", ">>>>>>> theirs", "||||||| base"])
def test_a_stray_marker_is_no_conflict(tmp_path: Path, stray: str) -> None:
    root = first_repo(tmp_path)
    gone = remember(root, TEXT)
    with (root / LEDGER).open("a", encoding="utf-8") as out:
        out.write(stray + "\n")
    assert ok(root, "--json", "sync").json()["skipped"] == 1
    done = cli(root, "forget", gone, "--mode", "delete", "--reason", "freeze lifted")
    assert done.code == 0, done.err
    written = (root / LEDGER).read_text(encoding="utf-8")
    assert TEXT not in written and stray not in written
    assert ok(root, "doctor").code == 0


def test_an_opening_marker_is_still_a_conflict(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    remember(root, TEXT)
    with (root / LEDGER).open("a", encoding="utf-8") as out:
        out.write("<<<<<<< ours\n")
    refused = cli(root, "sync")
    assert refused.code != 0 and "doctor --repair" in refused.err
