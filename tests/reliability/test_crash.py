"""Crash safety: writer processes killed with SIGKILL at random points.

A driver process writes a stream of memories with distinct operation ids
(and forgets every seventh), printing each acknowledgement, flushed, only
after the library call returned. The test kills drivers at random moments,
restarts them (so a write whose acknowledgement was lost is retried with the
same operation id), and afterwards opens the store and checks: SQLite's
integrity check passes, every acknowledged write is there with the id it was
acknowledged with, nothing is there that no driver attempted, nothing is
there twice, the FTS index matches the rows, and the audit chain verifies.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from processes import Spawner
from reliability_support import REPO, cli, fts_consistent, raw

from tree_ring.store import audit
from tree_ring.store.sql import Db

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

DRIVER = """
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from tree_ring.model import project
from tree_ring.model.errors import Conflict
from tree_ring.model.identity import Identity
from tree_ring.model.actor import Actor
from tree_ring.store.db import Store
from tree_ring.write import correct, verbs

root, prefix, count = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
identity = Identity(project.load_project_id(root))
actor = Actor.person()


def say(*words):
    sys.stdout.write(" ".join(words) + "\\n")
    sys.stdout.flush()


with Store.open(root) as store:
    for n in range(count):
        op = f"{prefix}-{n}"
        draft = verbs.Draft(
            summary=f"Crash test memory {op} records how shard {prefix} behaves",
            details=f"written by driver {prefix} as number {n}; " + "padding words " * 20,
            tags=("crash", prefix),
            operation_id=op,
        )
        try:
            result = verbs.remember(store, draft, identity, actor)
        except Conflict:
            # Forgotten in an earlier run: its content is tombstoned, as it should be.
            say("gone", op)
            continue
        say("ack", op, result.id)
        if n % 7 == 0:
            say("forgetting", op, result.id)
            correct.forget(store, result.id, mode="delete", reason="crash test", actor=actor)
            say("forgot", op, result.id)
"""

DRIVERS = 3
WRITES = 40
ROUNDS = 4


class Driver:
    """One driver process and the lines it has printed so far (read by a thread,
    so the test can kill it the moment it reaches a chosen point)."""

    def __init__(self, spawn: Spawner, script: Path, root: Path, prefix: str) -> None:
        self.proc = spawn(
            [sys.executable, str(script), str(REPO), str(root), prefix, str(WRITES)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw_line in self.proc.stdout:
            self.lines.append(raw_line.decode())

    def acks(self) -> int:
        return sum(1 for line in list(self.lines) if line.startswith("ack "))

    def finish(self) -> tuple[int, str]:
        assert self.proc.stderr is not None
        err = self.proc.stderr.read().decode()
        code = self.proc.wait(timeout=120)
        self.reader.join(timeout=120)
        return code, err


def test_sigkill_at_random_points_loses_nothing_acknowledged(
    project_root: Path, tmp_path: Path, spawn: Spawner
) -> None:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    rng = random.Random(20261129)
    acked: dict[str, str] = {}
    forgetting: set[str] = set()
    forgot: set[str] = set()
    kills = 0
    for round_ in range(ROUNDS + 1):
        drivers = {f"d{k}": Driver(spawn, script, project_root, f"d{k}") for k in range(DRIVERS)}
        if round_ < ROUNDS:
            # Each driver dies after its own random number of acknowledgements
            # plus a random few milliseconds, however fast the machine: mid
            # transaction, mid forget, mid checkpoint, between writes.
            target = {name: rng.randint(1, WRITES - 2) for name in drivers}
            delay = {name: rng.uniform(0, 0.03) for name in drivers}
            reached: dict[str, float] = {}
            while any(d.proc.poll() is None for d in drivers.values()):
                now = time.monotonic()
                for name, driver in drivers.items():
                    if driver.proc.poll() is not None:
                        continue
                    if name not in reached and driver.acks() >= target[name]:
                        reached[name] = now
                    if name in reached and now - reached[name] >= delay[name]:
                        os.kill(driver.proc.pid, signal.SIGKILL)
                        kills += 1
                time.sleep(0.002)
        for name, driver in drivers.items():
            code, err = driver.finish()
            if round_ == ROUNDS:
                assert code == 0, err
            elif code not in (0, -signal.SIGKILL):
                raise AssertionError(f"{name} failed: {err}")
            for line in driver.lines:
                kind, op, *rest = line.split()
                if kind == "ack":
                    # A retry after a crash gets the id of the first write.
                    assert acked.setdefault(op, rest[0]) == rest[0]
                elif kind == "forgetting":
                    forgetting.add(op)
                elif kind == "forgot":
                    forgot.add(op)
    assert kills >= DRIVERS  # a driver near its end may finish before the kill lands

    with closing(raw(project_root)) as conn:
        assert [r[0] for r in conn.execute("PRAGMA integrity_check")] == ["ok"]
        stored = {
            row["operation_id"]: row["id"]
            for row in conn.execute("SELECT id, operation_id FROM memories")
        }
        total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert total == len(stored), "an operation id is stored twice"
        attempted = {f"d{k}-{n}" for k in range(DRIVERS) for n in range(WRITES)}
        assert set(stored) <= attempted
        for op, memory_id in acked.items():
            if op in forgot:
                assert op not in stored
            elif op not in forgetting:
                assert stored.get(op) == memory_id, op
        # The final, unkilled round wrote every op that was never forgotten.
        assert set(stored) | forgetting == attempted
        assert fts_consistent(conn)
        assert audit.verify(Db(conn, Path())).ok
    verify = cli(project_root, "audit", "verify")
    assert verify.returncode == 0, verify.stderr
    doctor = cli(project_root, "doctor")
    assert doctor.returncode == 0, doctor.stdout.decode()
