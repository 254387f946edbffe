"""Helpers shared by the reliability tests (concurrency, crashes, faults, hostile
input): real processes of bin/tree-ring and of the hook launcher, and raw looks
at the database that do not go through the library under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

from processes import Spawner

from tree_ring.model import project
from tree_ring.store.sql import add_functions

REPO = Path(__file__).resolve().parent.parent
LAUNCHER = REPO / "bin" / "tree-ring"
HOOK = REPO / "hooks" / "tree_ring_hook.py"
HOOK_FIXTURES = REPO / "tests" / "fixtures" / "hooks"


def cli(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """bin/tree-ring as a separate process, against `root`."""
    return subprocess.run(
        [sys.executable, str(LAUNCHER), "--root", str(root), *args],
        input=input,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )


def popen_cli(
    spawn: Spawner, root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """bin/tree-ring started by `spawn`, so the test's end ends it."""
    return spawn(
        [sys.executable, str(LAUNCHER), "--root", str(root), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )


def hook_payload(name: str, cwd: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HOOK_FIXTURES / f"{name}.json").read_text("utf-8"))
    data["cwd"] = str(cwd)
    return data


def run_hook(
    data: bytes | dict[str, Any],
    *,
    harness: str = "claude-code",
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """The hook launcher exactly as the harness starts it, payload on stdin."""
    raw = json.dumps(data).encode() if isinstance(data, dict) else data
    return subprocess.run(
        [sys.executable, str(HOOK), harness],
        input=raw,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )


def assert_hook_contract(proc: subprocess.CompletedProcess[bytes]) -> dict[str, Any] | None:
    """Exit 0, and stdout is nothing or exactly one JSON object on one line."""
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in proc.stdout
    if proc.stdout == b"":
        return None
    assert proc.stdout.count(b"\n") == 1 and proc.stdout.endswith(b"\n"), proc.stdout[:200]
    doc = json.loads(proc.stdout)
    assert isinstance(doc, dict)
    return doc  # pyright: ignore[reportUnknownVariableType]


def assert_one_line_error(proc: subprocess.CompletedProcess[bytes], *fragments: str) -> str:
    """A non-zero exit with one `error: ...` line that names the problem (under
    --json, one error object whose exit is the process's); returns the message."""
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode != 0, (proc.stdout, err)
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    if lines[0].startswith("{"):
        error = json.loads(lines[0])["error"]
        assert error["exit"] == proc.returncode and proc.stdout == b"", err
        line = f"error: {error['message']}"
    else:
        line = lines[0]
    assert line.startswith("error: "), err
    for fragment in fragments:
        assert fragment in line, line
    return line


def db_path(root: Path) -> Path:
    return project.store_path(root)


def raw(root: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db_path(root), isolation_level=None, timeout=30)
    conn.row_factory = sqlite3.Row
    add_functions(conn)  # as a hand edit through Python would: the index's triggers call them
    return conn


def counts(root: Path, conn: sqlite3.Connection | None = None) -> dict[str, int]:
    """Row counts that any write would change (through `conn` when given)."""
    if conn is None:
        with closing(raw(root)) as own:
            return counts(root, own)
    return {
        table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        for table in ("memories", "memory_fts_docsize", "audit_log", "operation_claims")
    }


def fts_consistent(conn: sqlite3.Connection) -> bool:
    """Rows equal index entries, rowid for rowid, and FTS5's own check passes
    on both indexes (recall's, and the contradiction search's, which keeps no
    sizes: its check compares it with the rows' text)."""
    rows = {r[0] for r in conn.execute("SELECT rowid FROM memories")}
    indexed = {r[0] for r in conn.execute("SELECT id FROM memory_fts_docsize")}
    if rows != indexed:
        return False
    try:
        conn.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)")
        conn.execute("INSERT INTO claim_fts(claim_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    return True


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def checkpoint(root: Path) -> None:
    """Fold the WAL into the file, so the file alone holds the store."""
    with closing(raw(root)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def checks(run_cli: Any, *flags: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """`doctor`'s exit code and its checks by name, as `--json doctor` reports them."""
    result = run_cli("--json", "doctor", *flags)
    assert result.code in (0, 1), result.err
    return result.code, {check["name"]: check for check in json.loads(result.out)["items"]}


def remembered(run_cli: Any, text: str) -> str:
    """The id of a memory of `text`, remembered by a person."""
    result = run_cli("--json", "remember", text)
    assert result.code == 0, result.err
    return str(result.json()["id"])


def recalled(run_cli: Any, words: str) -> set[str]:
    """The ids `recall` finds for `words`."""
    result = run_cli("--json", "recall", words)
    assert result.code == 0, result.err
    return {hit["id"] for hit in result.json()["items"]}
