"""Which files under a source root a sync reads: the project's own, nearest first.

A folder holds the project's files and, often, other people's: a
virtualenv's `site-packages`, `node_modules`, `vendor/`, `build/` and `dist/`
output, `.tox`. Their files are not the project's rules, so those folders are
never entered (`SKIP_DIRS`, and any folder holding a `pyvenv.cfg`: a
virtualenv by whatever name). An adapter that names `pathspecs` also asks git,
once, which of its files the repository tracks or would track, so what git
ignores is skipped (`notes/` in `.gitignore` too); outside git, or when git
cannot answer, the folder is walked. Inside a repository the walk reads what
git would have skipped, so it says why git did not answer (`Found.unlisted`),
for the sync to tell the person. Either way the order is the project's
tracked files first, then nearer the root before deeper, then path order, so
a file cap drops deep and untracked files, never the project's own for
someone else's.
"""

from __future__ import annotations

import os
import subprocess
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

SKIP_DIRS = frozenset(
    {
        ".git",
        ".tree-ring",
        ".venv",
        "venv",
        "site-packages",
        "__pypackages__",
        "node_modules",
        "vendor",
        "build",
        "dist",
        "target",
        ".tox",
        ".nox",
    }
)
VENV_MARKER = "pyvenv.cfg"
GIT_TIMEOUT = 30  # seconds; past it the folder is walked instead
# Set by git for its own hooks and by some tools: they would make git answer
# for another repository than the one holding the source root.
_GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")


@dataclass(frozen=True)
class Found:
    files: list[Path]  # to read, in order, at most the cap
    capped: bool  # more were found than the cap allows
    links: list[Path]  # symlinks with a name the adapter reads: never followed
    # Inside a git repository that git would not list: why, as git said it.
    unlisted: str | None = None


def skipped_folder(path: str, name: str) -> bool:
    """A dependency or build folder, or a virtualenv: someone else's files."""
    return name in SKIP_DIRS or os.path.lexists(os.path.join(path, VENV_MARKER))


def find(
    root: Path, accepts: Callable[[str], bool], max_files: int, pathspecs: tuple[str, ...] = ()
) -> Found:
    """The files under `root` to read (see the module's docstring)."""
    listed = git_listed(root, pathspecs) if pathspecs else None
    if isinstance(listed, list):
        return _from_git(root, listed, accepts, max_files)
    found = walk(root, accepts, max_files)
    if listed is not None and in_repository(root):
        found = replace(found, unlisted=listed)
    return found


def in_repository(root: Path) -> bool:
    """Whether `root` lies in a git working tree: a `.git` at it or above."""
    here = Path(os.path.abspath(root))
    return any(os.path.lexists(folder / ".git") for folder in (here, *here.parents))


def git_listed(root: Path, pathspecs: tuple[str, ...]) -> list[tuple[bool, str]] | str:
    """(tracked, path relative to `root`) for each file matching `pathspecs`
    that git tracks or does not ignore; where git cannot answer (not a
    repository, no git, a refusal, too slow), why, in a few words."""
    env = {key: value for key, value in os.environ.items() if key not in _GIT_REDIRECTS}
    # Asked as its owner would be (`safe.directory`): a checkout another user
    # owns (a container's mount) is listed, not refused, so what git ignores
    # there stays unread instead of the whole folder being walked.
    command = ["git", "-c", "safe.directory=*", "-C", str(root), "ls-files", "-z", "-t"]
    command += ["--cached", "--others"]
    try:
        done = subprocess.run(
            [*command, "--exclude-standard", "--", *pathspecs],
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"git did not answer in {GIT_TIMEOUT} s"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"git could not run ({type(exc).__name__})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return said[0][:200] if said else f"git exited with status {done.returncode}"
    listed: list[tuple[bool, str]] = []
    for item in done.stdout.split(b"\0"):
        # `-t` tags each path: `?` for a file git does not track, a letter
        # (H, S, M, ...) for one it does.
        tag, _, path = item.partition(b" ")
        if path:
            listed.append((tag != b"?", os.fsdecode(path)))
    return listed


def _from_git(
    root: Path, listed: list[tuple[bool, str]], accepts: Callable[[str], bool], max_files: int
) -> Found:
    verdicts: dict[str, bool] = {}  # folder (relative) -> entered

    def entered(folder: str) -> bool:
        if folder not in verdicts:
            parent, _, name = folder.rpartition("/")
            full = os.path.join(root, folder)
            verdicts[folder] = (
                (not parent or entered(parent))
                and os.path.isdir(full)
                and not os.path.islink(full)  # a folder swapped for a link is not followed
                and not skipped_folder(full, name)
            )
        return verdicts[folder]

    chosen: dict[str, bool] = {}
    links: list[Path] = []
    for tracked, rel in listed:
        folder, _, name = rel.rpartition("/")
        if rel in chosen or not accepts(name) or (folder and not entered(folder)):
            continue
        path = root / rel
        if os.path.islink(path):
            links.append(path)
        elif os.path.lexists(path):  # git still lists a tracked file deleted here
            chosen[rel] = tracked
    order = sorted(chosen, key=lambda rel: (not chosen[rel], rel.count("/"), rel.split("/")))
    return Found([root / rel for rel in order[:max_files]], len(order) > max_files, links)


def walk(root: Path, accepts: Callable[[str], bool], max_files: int) -> Found:
    """The files under `root` this adapter reads, breadth first (nearer the
    root before deeper), each folder in name order, stopping past the cap."""
    found: list[Path] = []
    links: list[Path] = []
    # A queue rather than recursion: a deep tree cannot overflow it.
    folders = deque([root])
    while folders:
        for entry in _entries(folders.popleft()):
            if entry.is_symlink():
                if accepts(entry.name):
                    links.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                if not skipped_folder(entry.path, entry.name):
                    folders.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False) and accepts(entry.name):
                if len(found) >= max_files:
                    return Found(found, True, links)
                found.append(Path(entry.path))
    return Found(found, False, links)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return []  # an unreadable folder holds nothing this run can read
