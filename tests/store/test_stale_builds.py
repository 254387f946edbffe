"""A store build cut short (a killed `init` or first hook) leaves
`memory.sqlite.new-<hex>` beside the store; the next build removes it, and
`doctor --repair`, once no live build can be writing it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from conftest import CliRunner

from tree_ring.model import project
from tree_ring.store.builds import STALE_BUILD_S
from tree_ring.store.db import Store

SIDES = ("", "-wal", "-shm", "-journal")


def leave(folder: Path, hex_: str, age: float) -> list[Path]:
    """The files of a build cut short `age` seconds ago."""
    made = [folder / f"memory.sqlite.new-{hex_}{side}" for side in SIDES]
    then = time.time() - age
    for path in made:
        path.write_bytes(b"SQLite format 3\x00")
        os.utime(path, (then, then))
    return made


def left(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if ".new-" in p.name}


def test_the_next_build_removes_a_stale_one(project_root: Path) -> None:
    folder = project.store_path(project_root).parent
    project.store_path(project_root).unlink()  # as a fresh clone has none
    leave(folder, "0" * 16, STALE_BUILD_S + 30)
    young = leave(folder, "1" * 16, 1)  # perhaps a build under way
    with Store.open(project_root, create=True) as store:
        assert store.path.exists()
    assert left(folder) == {p.name for p in young}


def test_doctor_names_them_and_repair_removes_them(run_cli: CliRunner, project_root: Path) -> None:
    folder = project.store_path(project_root).parent
    stale = leave(folder, "a" * 16, STALE_BUILD_S + 30)
    young = leave(folder, "b" * 16, 1)
    ran = run_cli("--json", "doctor")
    [check] = [c for c in json.loads(ran.out)["items"] if c["name"] == "leftovers"]
    names = ", ".join(sorted(p.name for p in stale))
    assert ran.code == 1 and (check["ok"], check["repairable"]) == (False, True)
    assert check["detail"] == (
        f"4 file(s) of a store build cut short: {names}; `doctor --repair` removes them"
    )
    ran = run_cli("--json", "doctor", "--repair")
    assert ran.code == 0, ran.out
    [check] = [c for c in json.loads(ran.out)["items"] if c["name"] == "leftovers"]
    assert check["ok"] and check["repaired"] == "removed 4 file(s) of a store build cut short"
    assert left(folder) == {p.name for p in young}


def _copy_check(run_cli: CliRunner, *args: str) -> tuple[int, dict[str, object]]:
    ran = run_cli("--json", "doctor", *args)
    [check] = [c for c in json.loads(ran.out)["items"] if c["name"] == "leftovers"]
    return ran.code, check


def test_doctor_names_a_ledger_copy_that_is_no_regular_file_and_repair_removes_it(
    run_cli: CliRunner, project_root: Path
) -> None:
    """The team ledger's copy beside the store (`memory.sqlite-ledger`) as a
    folder cannot be replaced by a sync's copy, so every SessionStart reads
    the whole ledger: doctor names it, and an empty folder, a FIFO or a link
    is removed by the repair; a folder holding files is left to the person."""
    copy = Path(str(project.store_path(project_root)) + "-ledger")
    outside = project_root / "outside.txt"
    outside.write_text("kept\n", encoding="utf-8")
    said = (
        "memory.sqlite-ledger (where Tree Ring keeps a copy of the team ledger) is not a "
        "regular file, so every SessionStart reads the whole ledger"
    )
    for make in (copy.mkdir, lambda: os.mkfifo(copy), lambda: copy.symlink_to(outside)):
        make()
        code, check = _copy_check(run_cli)
        assert code == 1 and (check["ok"], check["repairable"]) == (False, True)
        assert check["detail"] == f"{said}; `doctor --repair` removes them"
        code, check = _copy_check(run_cli, "--repair")
        assert code == 0 and check["ok"]
        assert check["repaired"] == (
            "removed 0 file(s) of a store build cut short and memory.sqlite-ledger, which was "
            "no regular file"
        )
        assert not os.path.lexists(copy)
    assert outside.read_text(encoding="utf-8") == "kept\n"
    copy.mkdir()
    (copy / "notes.txt").write_text("mine\n", encoding="utf-8")
    code, check = _copy_check(run_cli, "--repair")
    assert code == 1 and (check["ok"], check["repairable"]) == (False, False)
    assert check["detail"] == f"{said}; move that folder aside"
    assert (copy / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    copy.joinpath("notes.txt").unlink()
    copy.rmdir()
    copy.write_bytes(b"a regular copy\n")
    code, check = _copy_check(run_cli)
    assert code == 0 and check["ok"]
