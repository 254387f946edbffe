"""`welcome`: a short first-run tour of Tree Ring in this project.

What Tree Ring is, the store it found (or created, with `--init`), whether
the hooks are in place in each harness, and three commands to try. It reads
and, with `--init`, creates exactly what `init` creates; nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tree_ring.harness import guidance, integrations
from tree_ring.model import project
from tree_ring.store.db import Options, Store
from tree_ring.upkeep import census

WHAT = (
    "Tree Ring is a local, governed memory for coding agents. At session start a hook "
    "gives the agent a short brief of what this project remembers (scars first, then "
    "durable rules); at stop it asks, once, for up to three durable outcomes. People and "
    "agents recall, remember, correct, review and forget; nothing forgotten comes back. "
    "It is one SQLite file in .tree-ring/, standard-library Python, no network."
)
TRY = (
    ('tree-ring remember "Release builds run the schema check first" --event-type decision',
     "store one decision"),
    ('tree-ring recall "release checks"', "find it again, ranked"),
    ("tree-ring brief", "the brief the next session starts with"),
)  # fmt: skip


def tour(root: Path | None, environ: Mapping[str, str], *, init: bool, cwd: Path) -> dict[str, Any]:
    """The tour's facts; `root` is the project found, if any."""
    created: list[str] = []
    if init and root is None:
        target = project.git_root(cwd) or cwd
        report = guidance.init_project(project.normalise_root(target))
        root, created = report.root, report.created
    elif init and root is not None:
        created = guidance.init_project(root).created
    store: dict[str, Any] = {"found": root is not None}
    if root is not None:
        project_id = project.load_project_id(root)
        live = waiting = 0  # a fresh clone has project.json; the database comes with first use
        if project.store_path(root).exists():
            with Store.open(root, options=Options.from_environ(environ)) as opened:
                counted = census.census(opened.db, project_id)
            live = cast("int", counted["live"])
            waiting = cast("int", counted["pending"]) + cast("int", counted["disputed"])
        # As `status` counts them: the brief reads these, disputed ones marked.
        store |= {
            "root": str(root),
            "path": str(project.store_path(root)),
            "project": project_id,
            "memories": live + waiting,
            "live": live,
            "waiting": waiting,
            "created": created,
        }
    harnesses = integrations.status(root, environ)
    return {
        "what": WHAT,
        "store": store,
        "hooks": [
            {
                "harness": h.name,
                "state": h.state,
                "fix": h.gaps[0][1] if h.gaps else None,
            }
            for h in harnesses
        ],
        "try": [{"command": command, "what": what} for command, what in TRY],
    }


def render(data: dict[str, Any]) -> list[str]:
    store = data["store"]
    lines = ["Welcome to Tree Ring.", "", data["what"], ""]
    if store["found"]:
        made = " (created just now)" if store["created"] else ""
        waiting = f" ({store['live']} live, {store['waiting']} waiting for review)"
        lines.append(
            f"Store: {store['path']}{made}, project {store['project']}, "
            f"{store['memories']} memor{'y' if store['memories'] == 1 else 'ies'}"
            f"{waiting if store['waiting'] else ''}."
        )
    else:
        lines.append(
            "Store: none here or above. `tree-ring welcome --init` (or `tree-ring init`) "
            "creates one in the project root."
        )
    lines.append("Hooks:")
    for hook in data["hooks"]:
        fix = f"; next: {hook['fix']}" if hook["fix"] else ""
        lines.append(f"  {hook['harness']}: {hook['state']}{fix}")
    lines += ["", "Three commands to try:"]
    lines += [f"  {item['command']}\n      {item['what']}" for item in data["try"]]
    return lines
