"""A ledger rewrite writes a new file beside the ledger and renames it over:
the file is made exclusively, under a name no one can predict, following no
link, so a link committed at a name a writer might use (`.ledger.jsonl.<pid>.tmp`)
never has what it points at overwritten."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import CliRunner
from governance_support import remember

from tree_ring.model import project


def test_a_link_at_a_predictable_temporary_name_is_never_written_through(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("left as it was\n")
    folder = project_root / ".tree-ring"
    for name in (
        f".ledger.jsonl.{os.getpid()}.tmp",
        f"ledger.jsonl.{os.getpid()}.tmp",
        ".ledger.jsonl.repair.tmp",
    ):
        (folder / name).symlink_to(outside)
    memory_id = remember(run_cli, "Deploys freeze on Fridays after the release branch is cut")
    assert run_cli("sync").code == 0
    assert outside.read_text() == "left as it was\n"
    assert memory_id in (folder / "ledger.jsonl").read_text()


def test_a_temporary_file_is_new_each_time(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    target = folder / "ledger.jsonl"
    made = set()
    for _ in range(3):
        fd, name = project.temporary_beside(target)
        os.close(fd)
        made.add(name)
        assert Path(name).parent == folder and Path(name).name.startswith(".ledger.jsonl.")
    assert len(made) == 3
    project.write_replacing(target, b"whole\n")
    assert target.read_bytes() == b"whole\n"
    assert {p.name for p in folder.iterdir()} == {"ledger.jsonl"} | {Path(n).name for n in made}
