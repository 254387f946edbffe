"""`tree-ring doctor` beside another writer: it waits as a write does, and a
store held past the wait is not called damaged."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any

from conftest import PERSON, CliRunner, make_memory
from reliability_support import fts_consistent, raw

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def checks(out: str) -> dict[str, dict[str, Any]]:
    return {check["name"]: check for check in json.loads(out)["items"]}


@contextmanager
def held_for(store: Store, seconds: float) -> Iterator[None]:
    """Another connection holds the write lock for `seconds`, from a thread."""
    taken = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(project.store_path(store.root), isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            taken.set()
            time.sleep(seconds)
            conn.execute("COMMIT")
        finally:
            conn.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(10)
        yield
    finally:
        holder.join(30)


def fill(store: Store, project_id: str) -> None:
    for n in range(3):
        pipeline.store_memory(store, make_memory(project_id, f"Busy fact {n} about q{n}"), PERSON)


def test_the_doctor_waits_for_another_writer(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    fill(store, project_id)
    with held_for(store, 1.0):
        ran = run_cli("--json", "doctor")
    assert ran.code == 0, ran.out
    fts = checks(ran.out)["fts"]
    assert (fts["ok"], fts["detail"]) == (True, "3 rows, 3 indexed, index matches the rows")
    assert all(check["ok"] for check in checks(ran.out).values())


def test_a_repair_waits_for_another_writer(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    fill(store, project_id)
    with closing(raw(store.root)) as conn:
        conn.execute("DELETE FROM memory_fts_docsize WHERE id = 2")
        assert not fts_consistent(conn)
    with held_for(store, 1.0):
        ran = run_cli("--json", "doctor", "--repair")
    assert ran.code == 0, ran.out
    fts = checks(ran.out)["fts"]
    assert fts["ok"] and "rebuilt the FTS indexes from the rows" in fts["repaired"]
    with closing(raw(store.root)) as conn:
        assert fts_consistent(conn)


def test_a_store_held_past_the_wait_is_not_called_damaged(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    fill(store, project_id)
    holder = sqlite3.connect(project.store_path(store.root), isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        ran = run_cli("--json", "doctor", environ={"TREE_RING_BUSY_TIMEOUT_MS": "50"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert ran.code == 0, ran.out
    found = checks(ran.out)
    assert (found["fts"]["ok"], found["fts"]["detail"]) == (
        True,
        "3 rows, 3 indexed, index text not compared "
        "(another process held the store; run `tree-ring doctor` again)",
    )
    assert [name for name, check in found.items() if not check["ok"]] == []
