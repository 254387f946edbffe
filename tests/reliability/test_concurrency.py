"""Concurrent writers and readers as real processes of bin/tree-ring.

Writers queue behind a held write lock instead of failing, every acknowledged
write is stored exactly once, exact retries under contention get the same id,
and the FTS index matches the rows afterwards. Readers (brief, recall) are
never blocked by a writer, never fail, and never see a row that is not whole.
"""

from __future__ import annotations

import json
import subprocess
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from processes import Spawner
from reliability_support import cli, fts_consistent, popen_cli, raw

from tree_ring.store import audit
from tree_ring.store.sql import Db

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

HOLD_S = 1.5


def summary_for(op: str) -> str:
    return f"Concurrent fact {op}: the cache shard {op} is warmed before deploy"


def start_writer(spawn: Spawner, root: Path, op: str) -> subprocess.Popen[bytes]:
    return popen_cli(
        spawn,
        root,
        "--json",
        "remember",
        summary_for(op),
        "--details",
        f"details of {op}",
        "--tag",
        "concurrency",
        "--operation-id",
        op,
    )


def finish(proc: subprocess.Popen[bytes], timeout: float = 120) -> tuple[int, Any, str]:
    out, err = proc.communicate(timeout=timeout)
    text = err.decode("utf-8", "replace")
    return proc.returncode, json.loads(out) if proc.returncode == 0 else None, text


def check_store(root: Path, expected: dict[str, str]) -> None:
    """Exactly the acknowledged rows, once each, and an index that matches them."""
    with closing(raw(root)) as conn:
        stored = {
            row["operation_id"]: row["id"]
            for row in conn.execute("SELECT id, operation_id FROM memories")
        }
        total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert total == len(stored) == len(expected)
        assert stored == expected
        indexed = conn.execute("SELECT count(*) FROM memory_fts_docsize").fetchone()[0]
        assert indexed == total
        assert fts_consistent(conn)
        assert audit.verify(Db(conn, Path())).ok
        claims = conn.execute("SELECT count(*) FROM operation_claims").fetchone()[0]
        assert claims == len(expected)


def test_writers_wait_for_a_held_lock_and_each_write_lands_once(
    project_root: Path, spawn: Spawner
) -> None:
    ops = [f"op-{n}" for n in range(8)]
    # Three of them are also retried, exactly, by a second process at once.
    retried = ops[:3]
    holder = raw(project_root)
    holder.execute("BEGIN IMMEDIATE")
    try:
        procs = [(op, start_writer(spawn, project_root, op)) for op in [*ops, *retried]]
        time.sleep(HOLD_S)
        # Every writer is still waiting on the lock: none gave up.
        waiting = [op for op, proc in procs if proc.poll() is None]
        assert len(waiting) == len(procs), [
            (op, proc.returncode, proc.stderr.read() if proc.stderr else b"")
            for op, proc in procs
            if proc.poll() is not None
        ]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    results: dict[str, list[dict[str, Any]]] = {}
    for op, proc in procs:
        code, doc, err = finish(proc)
        assert code == 0, err
        results.setdefault(op, []).append(doc)
    acknowledged = {op: docs[0]["id"] for op, docs in results.items()}
    for op in retried:
        docs = results[op]
        assert docs[0]["id"] == docs[1]["id"]
        # One of the two created the row; the other was told it was a retry.
        assert sorted(d["created"] for d in docs) == [False, True]
    check_store(project_root, acknowledged)

    # A retry with a different payload under a used key fails, and changes nothing.
    clash = cli(project_root, "remember", "Something else entirely", "--operation-id", ops[0])
    assert clash.returncode != 0 and clash.stderr.startswith(b"error: ")
    check_store(project_root, acknowledged)


def test_readers_never_fail_or_see_half_a_row_while_writers_run(
    project_root: Path, spawn: Spawner
) -> None:
    seed = [f"seed-{n}" for n in range(3)]
    for op in seed:
        proc = start_writer(spawn, project_root, op)
        assert finish(proc)[0] == 0
    ops = [f"mixed-{n}" for n in range(8)]
    holder = raw(project_root)
    holder.execute("BEGIN IMMEDIATE")
    try:
        writers = [(op, start_writer(spawn, project_root, op)) for op in ops]
        readers = [popen_cli(spawn, project_root, "--json", "brief") for _ in range(3)]
        readers += [
            popen_cli(spawn, project_root, "--json", "recall", "cache shard") for _ in range(3)
        ]
        # Readers finish while the write lock is still held: WAL never makes
        # them wait for a writer.
        first = [finish(reader) for reader in readers]
        assert all(proc.poll() is None for _, proc in writers)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    # More readers while the writers commit.
    readers = [
        popen_cli(spawn, project_root, "--json", "recall", "concurrent fact") for _ in range(4)
    ]
    readers += [popen_cli(spawn, project_root, "--json", "brief") for _ in range(2)]
    acknowledged: dict[str, str] = {}
    for op, proc in writers:
        code, doc, err = finish(proc)
        assert code == 0, err
        acknowledged[op] = doc["id"]
    second = [finish(reader) for reader in readers]
    for op in seed:
        acknowledged[op] = cli_id(project_root, op)
    check_store(project_root, acknowledged)

    by_id = {mid: op for op, mid in acknowledged.items()}
    for code, doc, err in first + second:
        assert code == 0, err
        assert "error" not in err
        shown: list[str] = list(doc.get("ids", [])) + [r["id"] for r in doc.get("results", [])]
        for result in doc.get("results", []):
            # Whole rows only: the summary a reader sees is the one written.
            assert result["summary"] == summary_for(by_id[result["id"]])
        assert set(shown) <= set(by_id)


def cli_id(root: Path, op: str) -> str:
    with closing(raw(root)) as conn:
        row = conn.execute("SELECT id FROM memories WHERE operation_id = ?", (op,)).fetchone()
    assert row is not None
    return str(row[0])
