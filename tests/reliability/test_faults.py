"""Faults a store can meet: read-only, locked past the timeout, a full disk, a
truncated or corrupt file, a SQLite without FTS5.

Each is produced for real, in a separate process, not mocked inside the
library:

- read-only: the tests run as root, where chmod stops nothing, so the store is
  opened with SQLite's `mode=ro` (TREE_RING_READ_ONLY=1). SQLite then refuses
  every write with SQLITE_READONLY, the same error a file the user cannot
  write gives, through the same code path.
- locked: another connection holds the lock (BEGIN IMMEDIATE for writers only;
  an exclusive-mode lock that stops readers too) and TREE_RING_BUSY_TIMEOUT_MS
  is small.
- full disk: TREE_RING_MAX_PAGES caps the file at its current size, so the
  next page SQLite needs fails with SQLITE_FULL, exactly as a full disk does.
- truncated / corrupt: the file itself is cut or overwritten.
- no FTS5: a sitecustomize makes `sqlite3.connect` raise SQLite's own
  "no such module: fts5", in the CLI process and the hook process alike.

Every CLI write gets one `error: ...` line saying what to do, a non-zero exit,
and leaves the store exactly as it was. The hooks exit 0 in every case, print
nothing or one valid JSON document, and print nothing at all when the store
cannot be read.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import PERSON, make_memory
from reliability_support import (
    assert_hook_contract,
    assert_one_line_error,
    checkpoint,
    cli,
    counts,
    db_path,
    file_digest,
    hook_payload,
    raw,
    run_hook,
)

from tree_ring.model.errors import StoreFault
from tree_ring.store import sql
from tree_ring.store.db import Store
from tree_ring.write import pipeline

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

# Both the C module, which Tree Ring loads, and the package around it.
NO_FTS5 = """
import _sqlite3
import sqlite3

def _connect(*args, **kwargs):
    raise sqlite3.OperationalError("no such module: fts5")

_sqlite3.connect = _connect
sqlite3.connect = _connect
"""

# Big enough that the row needs new pages (the full-disk case), plain enough
# that the guard has nothing to say about it.
DETAILS = " ".join(f"cache layer note {n} about eviction and warmup" for n in range(400))
WRITE = ("remember", "The cache is warmed at deploy time", "--details", DETAILS)


@dataclass
class Fault:
    name: str
    env: dict[str, str] = field(default_factory=lambda: {})
    expect: str = ""  # a fragment of the one-line error
    reads_fail: bool = False  # the store cannot be read either
    file_changed_ok: bool = True  # False: compare the file's bytes, not its rows
    holder: sqlite3.Connection | None = None  # the lock holder reads when no one else can


@pytest.fixture
def seeded(project_root: Path, project_id: str) -> Path:
    with Store.open(project_root) as store:
        for n in range(40):
            memory = make_memory(project_id, f"Seed fact {n}: the build uses toolchain {n}")
            pipeline.store_memory(store, memory, PERSON)
    checkpoint(project_root)
    return project_root


def _truncate(root: Path) -> None:
    path = db_path(root)
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)


def _corrupt(root: Path) -> None:
    # Keep page 1 (the header and the schema), scramble every page after it.
    path = db_path(root)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    noise = random.Random(7).randbytes(len(data) - page)
    data[page:] = noise
    path.write_bytes(bytes(data))


def _smash_header(root: Path) -> None:
    path = db_path(root)
    data = bytearray(path.read_bytes())
    data[:16] = b"not a database!!"
    path.write_bytes(bytes(data))


@pytest.fixture
def fault(request: pytest.FixtureRequest, seeded: Path, tmp_path: Path) -> Iterator[Fault]:
    name: str = request.param
    holder: sqlite3.Connection | None = None
    if name == "read-only":
        yield Fault(name, {"TREE_RING_READ_ONLY": "1"}, "is read-only")
        return
    if name == "locked-for-writes":
        holder = raw(seeded)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield Fault(name, {"TREE_RING_BUSY_TIMEOUT_MS": "50"}, "stayed locked")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    if name == "locked-exclusive":
        holder = sqlite3.connect(db_path(seeded), isolation_level=None)
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        try:
            yield Fault(
                name, {"TREE_RING_BUSY_TIMEOUT_MS": "50"}, "stayed locked", True, holder=holder
            )
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    if name == "full-disk":
        yield Fault(name, {"TREE_RING_MAX_PAGES": "1"}, "no space left")
        return
    if name == "truncated":
        _truncate(seeded)
        yield Fault(name, {}, "is damaged", True, False)
        return
    if name == "corrupt":
        _corrupt(seeded)
        yield Fault(name, {}, "is damaged", True, False)
        return
    if name == "not-a-database":
        _smash_header(seeded)
        yield Fault(name, {}, "is damaged", True, False)
        return
    if name == "no-fts5":
        site = tmp_path / "no-fts5"
        site.mkdir()
        (site / "sitecustomize.py").write_text(NO_FTS5, encoding="utf-8")
        path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
        yield Fault(name, {"PYTHONPATH": path}, "FTS5", True)
        return
    raise AssertionError(name)


FAULTS = [
    "read-only",
    "locked-for-writes",
    "locked-exclusive",
    "full-disk",
    "truncated",
    "corrupt",
    "not-a-database",
    "no-fts5",
]


def _state(root: Path, fault: Fault) -> object:
    if not fault.file_changed_ok:
        return file_digest(db_path(root))
    if fault.holder is not None:
        return counts(root, fault.holder)
    return counts(root)


@pytest.mark.parametrize("fault", FAULTS, indirect=True)
def test_a_write_fails_with_one_line_and_writes_nothing(seeded: Path, fault: Fault) -> None:
    before = _state(seeded, fault)
    proc = cli(seeded, *WRITE, "--operation-id", "fault-1", env=fault.env)
    line = assert_one_line_error(proc, fault.expect)
    # Says what to do next, and never leaks a raw SQLite message alone.
    assert any(
        hint in line for hint in ("retry", "doctor", "backup", "writable", "free", "Python")
    ), line
    assert _state(seeded, fault) == before


@pytest.mark.parametrize("fault", FAULTS, indirect=True)
def test_reads_work_or_fail_cleanly(seeded: Path, fault: Fault) -> None:
    proc = cli(seeded, "--json", "recall", "toolchain", env=fault.env)
    if fault.reads_fail:
        assert_one_line_error(proc, fault.expect)
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.count(b"\n") == 1


@pytest.mark.parametrize("fault", FAULTS, indirect=True)
@pytest.mark.parametrize("event", ["session-start", "stop"])
def test_hooks_exit_zero_and_stay_quiet(seeded: Path, fault: Fault, event: str) -> None:
    before = _state(seeded, fault)
    proc = run_hook(hook_payload(f"claude-code-{event}", seeded), env=fault.env)
    doc = assert_hook_contract(proc)
    if event == "session-start" and fault.reads_fail:
        # Nothing to inject and nothing on stdout; the reason goes to stderr.
        assert doc is None, proc.stdout
        assert proc.stderr.strip(), "the diagnostic belongs on stderr"
    assert b"Traceback" not in proc.stderr
    assert _state(seeded, fault) == before


def test_the_full_disk_store_takes_small_writes_again_when_space_returns(seeded: Path) -> None:
    assert cli(seeded, *WRITE, env={"TREE_RING_MAX_PAGES": "1"}).returncode != 0
    assert cli(seeded, *WRITE).returncode == 0
    assert cli(seeded, "doctor").returncode == 0


def test_an_empty_file_is_refused_not_reinitialised(seeded: Path) -> None:
    db_path(seeded).write_bytes(b"")
    assert_one_line_error(cli(seeded, *WRITE), "is empty", "backup")
    assert db_path(seeded).stat().st_size == 0


def test_no_fts5_in_process(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(
        path: Path, *, read_only: bool = False, immutable: bool = False, timeout_ms: int = 0
    ) -> sqlite3.Connection:
        raise sqlite3.OperationalError("no such module: fts5")

    monkeypatch.setattr(sql, "connect", broken)
    with pytest.raises(StoreFault, match="no FTS5"):
        Store.open(seeded)


def test_read_only_store_in_process(seeded: Path, project_id: str) -> None:
    before = counts(seeded)
    with Store.open(seeded, read_only=True) as store:
        with pytest.raises(StoreFault, match="read-only"):
            pipeline.store_memory(store, make_memory(project_id, "Blocked write"), PERSON)
        assert store.query("SELECT count(*) FROM memories")[0][0] == before["memories"]
    assert counts(seeded) == before


def test_a_corrupt_store_is_reported_by_doctor(seeded: Path) -> None:
    _corrupt(seeded)
    proc = cli(seeded, "doctor")
    assert proc.returncode == 1
    assert b"FAIL integrity" in proc.stdout


def test_doctor_on_a_truncated_store_says_restore(seeded: Path) -> None:
    _truncate(seeded)
    proc = cli(seeded, "doctor", "--repair")
    assert proc.returncode == 1
    assert b"truncated" in proc.stdout and b"restore a backup" in proc.stdout
    with closing(sqlite3.connect(db_path(seeded))):
        pass
