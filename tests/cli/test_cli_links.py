"""The CLI refuses a `.tree-ring/` that holds a link (or a FIFO, or a file
where a directory belongs): a non-zero exit, one line saying what to do, and
nothing created, changed or removed anywhere, the links' targets included.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO
from links_support import (
    CASES,
    OTHER_MEMORY,
    RECEIPTS_CASES,
    build,
    changed,
    receipts_said,
    snapshot,
)

SHIM = REPO / "bin" / "tree-ring"
VERBS = [
    ["recall", "secrets"],
    ["remember", "A captured lesson about the build.", "--event-type", "lesson"],
]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREE_RING_")}
    return subprocess.run(
        [sys.executable, str(SHIM), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=20,  # a FIFO opened for reading would hang here
        check=False,
    )


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "tree-ring init" in lines[0]
    assert OTHER_MEMORY not in proc.stdout + proc.stderr
    return lines[0]


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v[0])
@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_refuses_a_linked_tree_and_touches_nothing(
    case: str, verb: list[str], tmp_path: Path
) -> None:
    proj = build(tmp_path, case)
    before = snapshot(tmp_path)
    line = refused(run("--root", str(proj), *verb, cwd=tmp_path))
    assert "symbolic link" in line or "is not a" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("case", ["link_dir_relative", "link_store_dangling", "link_wal"])
def test_cli_walking_up_from_the_project_refuses_too(case: str, tmp_path: Path) -> None:
    proj = build(tmp_path, case)
    (proj / "src").mkdir()
    before = snapshot(tmp_path)
    refused(run("recall", "secrets", cwd=proj / "src"))
    assert snapshot(tmp_path) == before


def test_root_naming_a_linked_tree_ring_is_not_followed(tmp_path: Path) -> None:
    proj = build(tmp_path, "link_dir_relative")
    before = snapshot(tmp_path)
    line = refused(run("--root", str(proj / ".tree-ring"), "recall", "secrets", cwd=tmp_path))
    assert str(proj / ".tree-ring") in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("case", ["link_dir_relative", "link_guidance", "link_project_json"])
def test_init_refuses_and_creates_nothing(case: str, tmp_path: Path) -> None:
    proj = build(tmp_path, case)
    before = snapshot(tmp_path)
    refused(run("--root", str(proj), "init", cwd=tmp_path))
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("case", sorted(RECEIPTS_CASES))
def test_cli_goes_on_without_receipts_where_their_folder_is_not_one(
    case: str, tmp_path: Path
) -> None:
    # A link, file or FIFO where the receipts folder belongs costs the usage
    # log's line (one line on stderr), never the command; nothing is written
    # through it, nor anywhere outside the store.
    proj = build(tmp_path, case)
    before = snapshot(tmp_path)
    scar = "Never run migrations on Fridays."
    stored = run("--root", str(proj), "remember", scar, "--ring", "scar", cwd=tmp_path)
    assert (stored.returncode, stored.stderr) == (0, ""), stored.stderr
    listed = run("--root", str(proj), "list", cwd=tmp_path)
    assert (listed.returncode, listed.stderr) == (0, "") and scar in listed.stdout
    status = run("--root", str(proj), "status", cwd=tmp_path)
    assert (status.returncode, status.stderr) == (0, ""), status.stderr
    recalled = run("--root", str(proj), "recall", "migrations", cwd=tmp_path)
    assert recalled.returncode == 0 and scar in recalled.stdout
    assert recalled.stderr.splitlines() == [
        f"tree-ring: usage not logged: {receipts_said(case, proj)}"
    ]
    after = snapshot(tmp_path)
    assert changed(before, after) and all(
        name == "proj/.tree-ring" or name.startswith("proj/.tree-ring/memory.sqlite")
        for name in changed(before, after)
    ), changed(before, after)


# What the refusal says to do: a link's target may be this project's own (a
# store moved to another disk) or someone else's (a cloned repository's link),
# so the line names it and says what to do in either case; a store that is no
# file is moved aside, not removed.
SAID = {
    "link_store_to_other": (
        "memory.sqlite is a symbolic link; Tree Ring follows no links inside .tree-ring/: "
        "if {tmp}/other/.tree-ring/memory.sqlite is this project's own, move it (and its "
        "-wal file, if there is one) into the link's place; else remove the link and run "
        "`tree-ring init` to recreate it"
    ),
    "link_store_dangling": (
        "memory.sqlite is a symbolic link; Tree Ring follows no links inside .tree-ring/, "
        "and this one points to nothing ({tmp}/outside/stolen.sqlite): if this project's "
        "own is elsewhere, move it into the link's place; else remove the link and run "
        "`tree-ring init` to recreate it"
    ),
    "link_project_json": (
        "project.json is a symbolic link; Tree Ring follows no links inside .tree-ring/: "
        "if {tmp}/other/.tree-ring/project.json is this project's own, move it into the "
        "link's place; else remove the link and run `tree-ring init` to recreate it"
    ),
    "store_is_a_fifo": (
        "memory.sqlite is not a regular file; move it aside, then put a backup of the store "
        "in its place or run `tree-ring init` to make a new one"
    ),
}


@pytest.mark.parametrize("case", sorted(SAID))
def test_the_refusal_says_where_the_memories_are(case: str, tmp_path: Path) -> None:
    proj = build(tmp_path, case)
    line = refused(run("--root", str(proj), "list", cwd=tmp_path))
    tmp = os.path.realpath(tmp_path)
    assert line == f"error: {proj}/.tree-ring/" + SAID[case].format(tmp=tmp), line


def test_a_store_that_is_a_folder_is_moved_aside_not_removed(tmp_path: Path) -> None:
    proj = build(tmp_path, "store_is_a_fifo")
    (proj / ".tree-ring" / "memory.sqlite").unlink()
    (proj / ".tree-ring" / "memory.sqlite").mkdir()
    line = refused(run("--root", str(proj), "list", cwd=tmp_path))
    assert line.endswith(
        "memory.sqlite is not a regular file; move it aside, then put a backup of the store "
        "in its place or run `tree-ring init` to make a new one"
    )
