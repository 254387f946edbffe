"""A `.tree-ring/` folder this user may not write (another user's checkout,
a read-only file system): a write of the team ledger fails in one line that
says so, exit 1, where `sync` failed as "unexpected PermissionError" (70)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from team_support import cli, first_repo, ok, remember

from tree_ring.model import project
from tree_ring.model.errors import StoreFault


def _deny_temporaries(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    real = os.open

    def denied(path: str, flags: int, mode: int = 0o777, **kwargs: object) -> int:
        if os.path.dirname(os.fspath(path)) == str(folder) and os.fspath(path).endswith(".tmp"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, flags, mode)

    monkeypatch.setattr(os, "open", denied)


def test_writing_beside_an_unwritable_folder_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "ledger.jsonl"
    target.write_bytes(b"kept\n")
    _deny_temporaries(monkeypatch, tmp_path)
    with pytest.raises(StoreFault) as caught:
        project.write_replacing(target, b"new\n")
    assert str(caught.value) == (
        f"{target} cannot be written: {tmp_path} is not writable by you; run this as its "
        "owner, or make it so"
    )
    assert target.read_bytes() == b"kept\n"


def test_sync_in_an_unwritable_folder_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = first_repo(tmp_path)
    remember(root, "Deploys freeze on Fridays after the release branch is cut")
    ledger = root / ".tree-ring" / "ledger.jsonl"
    before = ledger.read_bytes()
    (root / ".tree-ring" / "ledger.jsonl").write_bytes(before + b"\n")  # something to rewrite
    _deny_temporaries(monkeypatch, root / ".tree-ring")
    done = cli(root, "sync")
    assert done.code == 1, done.err
    assert done.err.startswith("error: ") and done.err.count("\n") == 1
    assert "is not writable by you" in done.err
    monkeypatch.undo()
    assert ok(root, "sync").code == 0
