"""The ledger in a git repository: `init`'s setup, and `doctor`'s check and repair.

`init` in a git repository writes `.tree-ring/.gitattributes` (the ledger
merges with the `tree-ring` driver), points the repository's
`merge.tree-ring.driver` at this plugin's own entry by absolute path (so the
driver works from any clone that ran `init`), and syncs: a clone whose
ledger came with the code gets its store built from it, and a repository
without one gets its first ledger.

Where the driver is not configured (CI, a clone before `init`) git merges
the ledger as text and may leave conflict markers. `doctor` finds them and
resolves the file by the ledger's own rule, from git's index stages (`:2:`
ours and `:3:` theirs, while the merge is unfinished) or else from the two
sides' lines the markers enclose.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tree_ring.model import line_bound, project
from tree_ring.team import ledger

ATTRIBUTES = project.ATTRIBUTES
ATTRIBUTES_TEXT = (
    "# The team ledger merges line by line by Tree Ring's rule (tree-ring sync).\n"
    f"{ledger.PATH} merge=tree-ring text eol=lf\n"
)
# This module lives in <plugin root>/tree_ring/team/.
PLUGIN_ROOT = Path(__file__).resolve().parent.parent.parent


def driver_command() -> str:
    """The driver as git runs it: this interpreter and this plugin, by absolute path."""
    entry = PLUGIN_ROOT / "bin" / "tree-ring"
    python = sys.executable or "python3"
    return f"{shlex.quote(python)} -I -S {shlex.quote(str(entry))} merge-driver %O %A %B %P"


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        return subprocess.run(
            [git, "-C", str(root), *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


@dataclass
class Setup:
    created: list[str] = field(default_factory=lambda: [])
    kept: list[str] = field(default_factory=lambda: [])
    driver: str | None = None  # what merge.tree-ring.driver now says, or None outside git


def in_git(root: Path) -> bool:
    return project.git_root(root) is not None


def setup(root: Path) -> Setup:
    """Write the attributes file and configure the merge driver (in git only)."""
    done = Setup()
    if not in_git(root):
        return done
    target = root / project.DIR / ATTRIBUTES
    name = f"{project.DIR}/{ATTRIBUTES}"
    (done.created if project.write_new(target, ATTRIBUTES_TEXT) else done.kept).append(name)
    command = driver_command()
    ran = _git(root, "config", "merge.tree-ring.driver", command)
    # Only the driver: a `name` left behind without it makes git refuse the
    # merge ("lacks command line") instead of falling back to a text merge.
    if ran is not None and ran.returncode == 0:
        done.driver = command
    return done


NOT_CONFIGURED = "merge driver not configured"


def driver_problem(root: Path) -> str | None:
    """What is wrong with this clone's merge driver, in a few words, or None:
    not configured, or configured to a Tree Ring entry that is gone (a plugin
    updated or moved since `init`: git would fail to run it and merge the
    ledger as text)."""
    ran = _git(root, "config", "--get", "merge.tree-ring.driver")
    said = ran.stdout.strip() if ran is not None and ran.returncode == 0 else ""
    if not said:
        return NOT_CONFIGURED
    try:
        words = shlex.split(said)
    except ValueError:
        return None  # a command someone wrote by hand: theirs to keep
    entry = next((w for w in words if w.endswith(("bin/tree-ring", "bin\\tree-ring"))), None)
    if entry is not None and not Path(entry).is_file():
        return f"merge driver runs {entry}, which is gone"
    if entry is not None and words[words.index(entry) + 1 :][:1] != ["merge-driver"]:
        return f"merge driver names {entry} but does not run its merge-driver"
    if entry is not None and not _runs(words[: words.index(entry)]):
        return f"merge driver names {entry} but runs {words[0]}"
    return None


def _runs(before: list[str]) -> bool:
    """Whether a command whose words before Tree Ring's entry are `before`
    runs the entry: the entry itself, or a Python interpreter with its
    options (`python3 -I -S`). Anything else (`true`, `echo`) merely names it,
    and git takes what it did, the ledger unmerged, as the merge."""
    if not before:
        return True
    interpreter, *options = before
    name = Path(interpreter).name
    return name.startswith(("python", "pypy")) and all(o.startswith("-") for o in options)


def driver_configured(root: Path) -> bool:
    return driver_problem(root) is None


def ensure_driver(root: Path, *, unset: bool = True) -> bool:
    """Configure the merge driver in this clone's own git config when it
    runs an entry that is gone (a plugin updated or moved since `init`), and,
    with `unset`, when it is not configured: a store built from the ledger
    in a fresh clone, by its first session or `sync`, where no one ran
    `init` (a driver a person unset later stays unset). Only the config,
    nothing in the working tree (`.gitattributes` came with the clone). True
    when it configured it now."""
    if not in_git(root):
        return False
    problem = driver_problem(root)
    if problem is None or (problem == NOT_CONFIGURED and not unset):
        return False
    ran = _git(root, "config", "merge.tree-ring.driver", driver_command())
    return ran is not None and ran.returncode == 0


@dataclass
class Repair:
    conflicts: int
    source: str  # "index stages" or "conflict markers"
    text: str


def _stage(root: Path, stage: int, relative: str) -> bytes | None:
    """The ledger as git's index holds it at `stage`, as bytes: a line that
    is not UTF-8 is the merge's to drop, not a reason to fail; one longer
    than MAX_LINE_BYTES comes cut short (`line_bound.lines`), as the merge
    drops it too."""
    from tree_ring.team.upstream import git_output

    return git_output(root, "show", f":{stage}:{relative}")


def resolve(root: Path) -> Repair | None:
    """The ledger resolved by the merge rule, or None when it holds no
    conflict: as the merge driver would resolve it (`ledger.merge_texts`),
    from the index stages (the base's carried lines too) or else from the
    two sides' lines the markers enclose."""
    path = root / project.DIR / ledger.PATH
    try:
        with path.open("rb") as handle:
            data = line_bound.bounded(handle)
    except OSError:
        return None
    text = data.decode("utf-8", errors="replace")
    if not ledger.has_markers(text):
        return None
    _, _, conflicts = ledger.sides(text)
    relative = f"{project.DIR}/{ledger.PATH}"
    ours, theirs = _stage(root, 2, relative), _stage(root, 3, relative)
    if ours is not None and theirs is not None:
        base = _stage(root, 1, relative) or b""
        return Repair(
            conflicts, "index stages :2: and :3:", ledger.merge_texts(ours, theirs, base=base)
        )
    return Repair(conflicts, "the two sides' lines", ledger.merge_texts(data))


def repair(root: Path) -> Repair | None:
    """Resolve the ledger's conflicts in place; what was done, or None."""
    found = resolve(root)
    if found is None:
        return None
    path = root / project.DIR / ledger.PATH
    project.write_replacing(path, found.text.encode("utf-8"))
    return found
