"""Where a project's memory lives, and the project's stable identity.

The store is `<project>/.tree-ring/memory.sqlite`. The project id comes from
`.tree-ring/project.json`, written once by `init` and meant to be committed, so
every clone of a repository shares it while two unrelated checkouts that
happen to share a directory name never do.
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext
from tree_ring.model.errors import NoStore, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from os import PathLike
    from pathlib import Path

    # A path as the os functions take it: a str, or a Path from a caller that has one.
    StrPath = str | PathLike[str]

DIR = ".tree-ring"
STORE = "memory.sqlite"
PROJECT_FILE = "project.json"
GITIGNORE = (
    "# The database and hook receipts are local; project.json is meant to be committed.\n"
    "memory.sqlite\nmemory.sqlite-*\nreceipts/\n"
)

# Each lookup comes twice: as a str, from os.path (the hooks and the CLI's
# every call: importing pathlib costs them more than the lookup), and as a
# Path for everything else.


def find_root_str(start: StrPath) -> str | None:
    """The nearest directory at or above `start` that holds `.tree-ring/`."""
    here = os.path.realpath(start)
    while True:
        if os.path.isdir(os.path.join(here, DIR)):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def find_root(start: Path) -> Path | None:
    from pathlib import Path

    found = find_root_str(start)
    return None if found is None else Path(found)


def git_root(start: Path) -> Path | None:
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def normalise_root_str(path: StrPath) -> str:
    """`--root` may name the project directory or its `.tree-ring/` directory."""
    resolved = os.path.realpath(os.path.expanduser(path))
    return os.path.dirname(resolved) if os.path.basename(resolved) == DIR else resolved


def normalise_root(path: Path) -> Path:
    from pathlib import Path

    return Path(normalise_root_str(path))


def locate_str(root: str | None, environ: Mapping[str, str], cwd: StrPath | None = None) -> str:
    """The project root from `--root`, `TREE_RING_ROOT`, or a walk up from cwd."""
    explicit = root or environ.get("TREE_RING_ROOT")
    if explicit:
        project = normalise_root_str(explicit)
        if not os.path.isdir(os.path.join(project, DIR)):
            raise NoStore(f"no Tree Ring store at {project}; run `tree-ring --root {project} init`")
        return project
    found = find_root_str(os.getcwd() if cwd is None else cwd)
    if found is None:
        raise NoStore(
            "no .tree-ring/ here or above; run `tree-ring init` in the project root or pass --root"
        )
    return found


def locate(root: str | None, environ: Mapping[str, str], cwd: Path | None = None) -> Path:
    from pathlib import Path

    return Path(locate_str(root, environ, cwd))


def store_path_str(root: StrPath) -> str:
    return os.path.join(root, DIR, STORE)


def store_path(root: Path) -> Path:
    return root / DIR / STORE


def receipts_dir_str(root: StrPath) -> str:
    return os.path.join(root, DIR, "receipts")


def receipts_dir(root: Path) -> Path:
    return root / DIR / "receipts"


def slug(name: str) -> str:
    import re  # only init names a project

    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:40] or "project"


def new_project_id(name: str) -> str:
    return f"{slug(name)}-{os.urandom(4).hex()}"  # as secrets.token_hex, without its imports


def load_project_id(root: StrPath) -> str:
    path = os.path.join(root, DIR, PROJECT_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            data = jsontext.loads(handle.read())
    except FileNotFoundError:
        raise NoStore(f"{path} is missing; run `tree-ring init` to create it") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix or delete it") from None
    document = jsontext.as_object(data)
    project_id = document.get("project_id") if document is not None else None
    if not isinstance(project_id, str) or not project_id.strip():
        raise UsageError(f"{path} has no project_id; delete it and run `tree-ring init`")
    return project_id


def write_new(path: StrPath, text: str) -> bool:
    """Create `path` with `text` unless it exists; True when created."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        return False
    return True
