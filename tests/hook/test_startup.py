"""What a hook call loads: each event, in a fresh `python3 -I -S` as hooks.json runs
it, imports only the modules it uses and none of the standard library's costly ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO

from tree_ring.ops import guidance

FIXTURES = REPO / "tests" / "fixtures" / "hooks"
# What costs a hook more to import than its whole work: none of these may load.
COSTLY = {
    "dataclasses",
    "typing",
    "pathlib",
    "inspect",
    "json",  # brings re and enum
    "re",
    "enum",
    "hashlib",  # loads OpenSSL
    "shlex",  # brings re
    "contextlib",
}
MODEL = {
    "tree_ring",
    "tree_ring.model",
    "tree_ring.model.errors",
    "tree_ring.model.frozen",
    "tree_ring.model.jsontext",
    "tree_ring.model.project",
    "tree_ring.model.record",
    "tree_ring.hook",
    "tree_ring.hook.adapter",
    "tree_ring.ops",
    "tree_ring.ops.receipts",
}
# SessionStart: the adapter, the brief, the store's open and migration check, receipts.
START = MODEL | {
    "tree_ring.model.identity",
    "tree_ring.read",
    "tree_ring.read.brief",
    "tree_ring.guard",
    "tree_ring.guard.engine",
    "tree_ring.guard.rules",
    "tree_ring.store",
    "tree_ring.store.db",
    "tree_ring.store.live",
    "tree_ring.store.rows",
    "tree_ring.store.schema",
    "tree_ring.store.sql",
}
# Stop: the adapter, the project's id, the capture pairs and a receipt; no store.
STOP = MODEL

# The launcher's own steps, then what it leaves loaded: the hook's one line of
# output, then a module name a line. Run with hooks.json's flags, and importing
# nothing itself (not even json) that would hide what the hook imports.
PROBE = """\
import io, sys
sys.path.insert(0, sys.argv[1])
from tree_ring.hook.adapter import main
out = io.BytesIO()
main(sys.argv[2], stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=out)
sys.stdout.write(out.getvalue().decode() + "\\n".join(sorted(sys.modules)))
"""


def loaded(event: str, project_root: Path, harness: str = "claude-code") -> tuple[Any, set[str]]:
    data = json.loads((FIXTURES / f"{harness}-{event}.json").read_text(encoding="utf-8"))
    data["cwd"] = str(project_root)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(REPO), harness],
        input=json.dumps(data).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert done.stderr == b"", done.stderr.decode()
    output, *modules = done.stdout.decode().splitlines()
    return json.loads(output), set(modules)


@pytest.fixture
def remembered(project_root: Path) -> Path:
    """A project whose brief has memories to show (plain text: no guard rule's
    prefilter opens on it, so nothing is compiled)."""
    text = "Deploys freeze on Fridays after the release branch is cut"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bin" / "tree-ring"),
            "--root",
            str(project_root),
            "remember",
            text,
        ],
        check=True,
        capture_output=True,
    )
    return project_root


def test_session_start_loads_the_brief_and_nothing_costly(remembered: Path) -> None:
    output, modules = loaded("session-start", remembered)
    assert "Deploys freeze on Fridays" in output["hookSpecificOutput"]["additionalContext"]
    assert {m for m in modules if m.startswith("tree_ring")} == START
    assert modules & COSTLY == set()


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_stop_loads_neither_the_store_nor_the_write_path(remembered: Path, harness: str) -> None:
    output, modules = loaded("stop", remembered, harness)
    assert output["decision"] == "block" and "warning with scar" in output["reason"]
    assert {m for m in modules if m.startswith("tree_ring")} == STOP
    assert modules & (COSTLY | {"sqlite3"}) == set()


def test_a_fresh_clone_gets_its_store_and_a_brief_all_the_same(tmp_path: Path) -> None:
    """No database yet (project.json only): SessionStart creates it, and the
    migrations, which need json, bring it in only then."""
    root = tmp_path / "clone"
    root.mkdir()
    guidance.init_project(root)
    (root / ".tree-ring" / "memory.sqlite").unlink()
    output, modules = loaded("session-start", root)
    assert "no memories to recall" in output["hookSpecificOutput"]["additionalContext"]
    assert (root / ".tree-ring" / "memory.sqlite").exists()
    assert {m for m in modules if m.startswith("tree_ring")} == START
