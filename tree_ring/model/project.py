"""Where a project's memory lives, and the project's stable identity.

The store is `<project>/.tree-ring/memory.sqlite`. The project id comes from
`.tree-ring/project.json`, written once by `init` and meant to be committed, so
every clone of a repository shares it while two unrelated checkouts that
happen to share a directory name never do.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tree_ring.model.errors import NoStore, UsageError

DIR = ".tree-ring"
STORE = "memory.sqlite"
PROJECT_FILE = "project.json"
GITIGNORE = (
    "# The database and hook receipts are local; project.json is meant to be committed.\n"
    "memory.sqlite\nmemory.sqlite-*\nreceipts/\n"
)


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds `.tree-ring/`."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / DIR).is_dir():
            return candidate
    return None


def git_root(start: Path) -> Path | None:
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def normalise_root(path: Path) -> Path:
    """`--root` may name the project directory or its `.tree-ring/` directory."""
    resolved = path.expanduser().resolve()
    return resolved.parent if resolved.name == DIR else resolved


def locate(root: str | None, environ: Mapping[str, str], cwd: Path | None = None) -> Path:
    """The project root from `--root`, `TREE_RING_ROOT`, or a walk up from cwd."""
    explicit = root or environ.get("TREE_RING_ROOT")
    if explicit:
        project = normalise_root(Path(explicit))
        if not (project / DIR).is_dir():
            raise NoStore(f"no Tree Ring store at {project}; run `tree-ring --root {project} init`")
        return project
    found = find_root(cwd or Path.cwd())
    if found is None:
        raise NoStore(
            "no .tree-ring/ here or above; run `tree-ring init` in the project root or pass --root"
        )
    return found


def store_path(root: Path) -> Path:
    return root / DIR / STORE


def receipts_dir(root: Path) -> Path:
    return root / DIR / "receipts"


def slug(name: str) -> str:
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:40] or "project"


def new_project_id(name: str) -> str:
    return f"{slug(name)}-{os.urandom(4).hex()}"  # as secrets.token_hex, without its imports


def load_project_id(root: Path) -> str:
    path = root / DIR / PROJECT_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NoStore(f"{path} is missing; run `tree-ring init` to create it") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix or delete it") from None
    project_id: Any = (
        cast(dict[str, Any], data).get("project_id") if isinstance(data, dict) else None
    )
    if not isinstance(project_id, str) or not project_id.strip():
        raise UsageError(f"{path} has no project_id; delete it and run `tree-ring init`")
    return project_id


def write_new(path: Path, text: str) -> bool:
    """Create `path` with `text` unless it exists; True when created."""
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        return False
    return True
