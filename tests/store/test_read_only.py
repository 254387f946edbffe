"""A store the user cannot write (a read-only checkout, a shared folder) is
still read: reads open it `mode=ro`, and `immutable=1` when its directory is
read-only and no -wal holds frames, since a WAL store otherwise needs a -shm
file SQLite could not create there. Writes fail with one line.

The commands run as real processes without the privilege to override file
permissions: as root (where chmod stops nothing) every capability is dropped
with `setpriv`, so the kernel applies the mode bits to root as to anyone.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from helpers import LAUNCHER, REPO, CliRunner, unprivileged
from reliability_support import HOOK, db_path

from tree_ring.store.db import Store, access


def run(
    *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*unprivileged(), sys.executable, *args],
        input=None if stdin is None else stdin.decode(),
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


@pytest.fixture
def locked(run_cli: CliRunner, project_root: Path) -> Iterator[tuple[Path, set[str]]]:
    """A store of three memories, folded into its file, in a read-only folder."""
    ids = {
        run_cli("--json", "remember", f"Locked fact {n} about the cache").json()["id"]
        for n in range(3)
    }
    path = db_path(project_root)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        yield project_root, ids
    finally:
        path.parent.chmod(0o755)
        path.chmod(0o644)


def test_the_folder_is_really_read_only_for_the_commands(locked: tuple[Path, set[str]]) -> None:
    root, _ = locked
    probe = run("-c", f"open({str(root / '.tree-ring' / 'probe')!r}, 'w')")
    assert probe.returncode != 0 and "Permission denied" in probe.stderr


@pytest.mark.parametrize("env", [{}, {"TREE_RING_READ_ONLY": "1"}])
def test_reads_work_and_writes_fail_with_one_line(
    locked: tuple[Path, set[str]], env: dict[str, str]
) -> None:
    root, ids = locked
    folder = root / ".tree-ring"
    before = sorted(os.listdir(folder))
    cli = (str(LAUNCHER), "--root", str(root))
    listed = run(*cli, "--json", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert {m["id"] for m in json.loads(listed.stdout)["items"]} == ids
    recalled = run(*cli, "--json", "recall", "cache", env=env)
    assert recalled.returncode == 0, recalled.stderr
    assert {hit["id"] for hit in json.loads(recalled.stdout)["items"]} == ids
    for verb in (("brief",), ("export",), ("status",), ("doctor",), ("audit", "verify")):
        result = run(*cli, *verb, env=env)
        assert result.returncode == 0 and result.stderr == "", (verb, result.stderr, result.stdout)
    refused = run(*cli, "remember", "A write to a locked store", env=env)
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: ") and refused.stderr.count("\n") == 1
    assert "read-only" in refused.stderr
    assert sorted(os.listdir(folder)) == before  # no -shm, no -wal, no receipt


def test_session_start_injects_the_brief_from_a_locked_store(locked: tuple[Path, set[str]]) -> None:
    root, _ = locked
    payload = json.loads((REPO / "tests/fixtures/hooks/claude-code-session-start.json").read_text())
    payload["cwd"] = str(root)
    proc = run(str(HOOK), "claude-code", stdin=json.dumps(payload).encode())
    assert proc.returncode == 0
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Locked fact" in context
    assert proc.stderr.count("\n") == 1 and "receipt not written" in proc.stderr


def test_access_opens_read_only_and_immutable_only_when_it_must(project_root: Path) -> None:
    with Store.open(project_root) as store:
        path = store.path
        assert not store.read_only
    assert access(path) == (False, False)
    assert access(path, read_only=True) == (True, False)  # the folder is writable
    wal = Path(f"{path}-wal")
    wal.write_bytes(b"")  # an empty -wal holds no frames
    assert access(path, read_only=True) == (True, False)
    with Store.open(project_root, read_only=True) as store:
        assert store.read_only
