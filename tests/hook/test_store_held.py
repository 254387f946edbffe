"""A SessionStart hook that finds the store held by another writer while it
must write (a migration to run) fails open within the harness's timeout
(hooks.json gives 15 s): one attempt at the busy timeout, not the retries
a command makes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PERSON, REPO, make_memory

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.store import schema
from tree_ring.store.db import WRITE_ATTEMPTS, Options, Store
from tree_ring.write import pipeline

HOOK = REPO / "hooks" / "tree_ring_hook.py"
HARNESS_TIMEOUT_S = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"][
    "SessionStart"
][0]["hooks"][0]["timeout"]


@pytest.mark.parametrize(
    ("due", "briefed"),
    [
        # Only what a reader can do without: briefed from the store as it stands.
        (["0018_meaning_recoded_products"], True),
        # A migration that changes what a reader reads: failed open, in time.
        (["0015_ended_leaves", "0016_inbox_imports", "0017_refute_index"], False),
    ],
)
def test_a_held_store_with_a_migration_due_answers_in_time(
    tmp_path: Path, due: list[str], briefed: bool
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    guidance.init_project(root)
    path = project.store_path(root)
    with Store.open(root) as store:
        store_memory(store, "Deploys freeze on Fridays after the release branch is cut")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executemany("DELETE FROM schema_migrations WHERE name = ?", [(name,) for name in due])
    conn.execute(f"PRAGMA user_version = {len(schema.MIGRATIONS) - len(due)}")
    conn.execute("BEGIN IMMEDIATE")  # another writer, for longer than the hook may wait
    try:
        payload = {"hook_event_name": "SessionStart", "cwd": str(root), "session_id": "s1"}
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(HOOK), "claude-code"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=HARNESS_TIMEOUT_S,  # the retries' 40 s would run past it
            check=False,
        )
    finally:
        conn.close()
    assert done.returncode == 0
    if briefed:
        assert done.stderr == b"", done.stderr.decode()
        said = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "Deploys freeze on Fridays" in said
    else:
        assert done.stdout == b""
        [said] = done.stderr.decode().splitlines()
        assert said.startswith("tree-ring hook") and "stayed locked" in said, said


def test_hurried_options_make_one_attempt_and_keep_the_rest() -> None:
    options = Options(busy_timeout_ms=1234, read_only=True, max_pages=99)
    assert options.write_attempts == WRITE_ATTEMPTS > 1
    hurried = options.hurried()
    assert (hurried.busy_timeout_ms, hurried.read_only, hurried.max_pages) == (1234, True, 99)
    assert hurried.write_attempts == 1


def store_memory(store: Store, text: str) -> None:
    pipeline.store_memory(store, make_memory(project.load_project_id(store.root), text), PERSON)
