"""The README's tour shows what recall prints, scores included: run in a
fresh git repository, its commands print those lines, the ids each `remember`
printed standing for the README's. The scores had gone stale unseen, since
`test_commands.py` checks that a page's commands run, not what they print."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from helpers import LAUNCHER, REPO

HARNESS = ("TREE_RING_", "CLAUDE", "CODEX_")


def tour() -> list[tuple[str, list[str]]]:
    """Each `$ tree-ring ...` line of the tour's first block, with the lines
    it shows after it."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## A one-minute tour", 1)[1]
    block = re.search(r"\n((?:    .*\n)+)", section)
    assert block is not None
    steps: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        line = line[4:]
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def test_the_tour_prints_what_the_readme_shows(tmp_path: Path) -> None:
    steps = tour()
    assert [command.split()[:2] for command, _ in steps] == [
        ["tree-ring", "remember"],
        ["tree-ring", "remember"],
        ["tree-ring", "recall"],
    ]
    project = tmp_path / "app"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(HARNESS)}
    env |= {"HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)

    def run(*args: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, str(LAUNCHER), *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    run("init")
    ids: dict[str, str] = {}  # the README's id -> the one printed here
    for command, shown in steps:
        printed = run(*shlex.split(command)[1:])
        for readme, here in zip(shown, printed, strict=True):
            for theirs, ours in zip(
                re.findall(r"mem_\w+", readme), re.findall(r"mem_\w+", here), strict=True
            ):
                ids.setdefault(theirs, ours)
            for theirs, ours in ids.items():
                readme = readme.replace(theirs, ours)
            assert here == readme
