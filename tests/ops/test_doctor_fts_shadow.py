"""`doctor` on FTS indexes SQLite cannot open: a shadow table dropped,
replaced, or without the rows FTS5 opens it by. `--repair` makes the index
whole from an empty twin's tables and rebuilds it from the rows."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from helpers import LAUNCHER, CliRunner, unprivileged
from reliability_support import checks, db_path, fts_consistent, raw, recalled

from tree_ring.model.errors import StoreFault
from tree_ring.store import fts_shadow
from tree_ring.upkeep import doctor


@pytest.fixture
def ids(run_cli: CliRunner) -> list[str]:
    """Five memories, each with a word of its own (`shardN`) and one shared (`doctor`)."""
    return [
        run_cli("--json", "remember", f"Doctor fact {n} about shard{n}").json()["id"]
        for n in range(5)
    ]


def claimed(root: Path, word: str) -> set[int]:
    """The rows the contradiction search's index holds `word` for."""
    with closing(raw(root)) as conn:
        found = conn.execute("SELECT rowid FROM claim_fts WHERE claim_fts MATCH ?", (word,))
        return {row[0] for row in found}


def damage(root: Path, *statements: str) -> None:
    with closing(raw(root)) as conn:
        for statement in statements:
            conn.execute(statement)


# (what breaks the index, how the doctor names it, the index made whole)
DAMAGE = [
    (("DROP TABLE memory_fts_data",), "memory_fts_data is missing", "memory_fts"),
    (("DROP TABLE memory_fts_idx",), "memory_fts_idx is missing", "memory_fts"),
    (("DROP TABLE memory_fts_docsize",), "memory_fts_docsize is missing", "memory_fts"),
    (("DROP TABLE memory_fts_config",), "memory_fts_config is missing", "memory_fts"),
    (
        ("DELETE FROM memory_fts_config",),
        "memory_fts_config has lost the row FTS5 opens it by (version)",
        "memory_fts",
    ),
    (
        ("UPDATE memory_fts_config SET v = 3",),
        "memory_fts_config names another version of FTS5's format",
        "memory_fts",
    ),
    (
        ("DELETE FROM memory_fts_data",),
        "memory_fts_data has lost the rows FTS5 opens it by (1, 10)",
        "memory_fts",
    ),
    (
        ("DROP TABLE memory_fts_docsize", "CREATE TABLE memory_fts_docsize(x)"),
        "memory_fts_docsize is not the table FTS5 makes",
        "memory_fts",
    ),
    (
        ("DROP VIEW memory_text",),
        "the view memory_text that memory_fts reads is missing",
        "memory_fts",
    ),
    (
        ("PRAGMA writable_schema = ON", "DELETE FROM sqlite_master WHERE name = 'memory_fts'"),
        "memory_fts is missing",
        "memory_fts",
    ),
    (("DROP TABLE claim_fts_idx",), "claim_fts_idx is missing", "claim_fts"),
    (
        ("DELETE FROM claim_fts_config",),
        "claim_fts_config has lost the row FTS5 opens it by (version)",
        "claim_fts",
    ),
    (
        ("DROP TABLE memory_fts_data", "DROP TABLE claim_fts_config"),
        "memory_fts_data is missing; claim_fts_config is missing",
        "memory_fts and claim_fts",
    ),
]


@pytest.mark.parametrize(("statements", "named", "index"), DAMAGE, ids=[d[1] for d in DAMAGE])
def test_a_damaged_index_is_named_and_made_whole(
    run_cli: CliRunner,
    project_root: Path,
    ids: list[str],
    statements: tuple[str, ...],
    named: str,
    index: str,
) -> None:
    damage(project_root, *statements)
    code, found = checks(run_cli)
    assert code == 1
    fts = found["fts"]
    assert (fts["ok"], fts["repairable"]) == (False, True)
    assert fts["detail"] == (
        f"{named}; recall cannot read its index until "
        "`doctor --repair` makes the index again from the rows"
    )
    assert {name for name, check in found.items() if not check["ok"]} == {"fts"}

    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["fts"]["repaired"] == (
        f"made {index} whole again and rebuilt the FTS indexes from the rows"
    )
    assert all(check["ok"] for check in found.values())
    with closing(raw(project_root)) as conn:
        assert fts_consistent(conn)
        assert [tuple(r) for r in conn.execute("PRAGMA integrity_check")] == [("ok",)]
    # Recall finds the memories by their words again, and the contradiction
    # search's index holds their summaries.
    assert recalled(run_cli, "shard3") == {ids[3]}
    assert recalled(run_cli, "doctor fact") == set(ids)
    assert claimed(project_root, "shard2") == {3}
    # Writes index what they write again.
    new = run_cli("--json", "remember", "Doctor fact about the mended index").json()["id"]
    assert recalled(run_cli, "mended") == {new}
    assert checks(run_cli)[0] == 0


def test_damage_no_check_names_is_made_whole_when_the_rebuild_trips_on_it(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    """A structure record whose bytes are garbage: the row is there, so only
    FTS5's own check finds it, which reads an index of no segments, sound
    but without the rows' entries; the rebuild fails on it, so the tables
    are made whole first and the rebuild runs again."""
    damage(project_root, "UPDATE memory_fts_data SET block = x'ffffffff' WHERE id = 10")
    code, found = checks(run_cli)
    assert code == 1 and found["fts"]["detail"] == (
        "5 rows, 5 indexed; memory_fts's entries do not match the rows' text "
        "(missing, extra or out of date); `doctor --repair` rebuilds the FTS indexes from the rows"
    )
    code, found = checks(run_cli, "--repair")
    assert code == 0
    assert found["fts"]["repaired"].endswith("rebuilt the FTS indexes from the rows")
    assert recalled(run_cli, "shard1") == {ids[1]}


def test_a_repair_that_fails_leaves_the_store_as_it_was(
    run_cli: CliRunner, project_root: Path, ids: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    damage(project_root, "DROP TABLE memory_fts_data", "DROP TABLE anchors")
    with closing(raw(project_root)) as conn:
        before = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    real = fts_shadow.restore

    def restore_then_fail(db: Any, index: str) -> None:
        real(db, index)
        raise StoreFault("disk I/O error")

    monkeypatch.setattr(fts_shadow, "restore", restore_then_fail)
    with pytest.raises(StoreFault):
        doctor.diagnose(project_root, repair=True)
    with closing(raw(project_root)) as conn:
        after = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
        assert [tuple(r) for r in after] == [tuple(r) for r in before]
        actions = {r[0] for r in conn.execute("SELECT action FROM audit_log")}
        assert "repair" not in actions
    monkeypatch.undo()
    assert checks(run_cli, "--repair")[0] == 0
    assert recalled(run_cli, "shard4") == {ids[4]}


def test_a_read_only_store_is_refused_in_one_line_and_left_byte_for_byte(
    run_cli: CliRunner, project_root: Path, ids: list[str]
) -> None:
    damage(project_root, "DROP TABLE memory_fts_data", "DROP TABLE refutations")
    path = db_path(project_root)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    data = path.read_bytes()
    listing = sorted(os.listdir(path.parent))
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        argv = [*unprivileged(), sys.executable, str(LAUNCHER), "--root", str(project_root)]
        looked = subprocess.run([*argv, "doctor"], capture_output=True, text=True, check=False)
        assert looked.returncode == 1 and looked.stderr == ""
        assert "FAIL fts          memory_fts_data is missing" in looked.stdout
        assert "FAIL tables       missing table(s): refutations (" in looked.stdout
        refused = subprocess.run(
            [*argv, "doctor", "--repair"], capture_output=True, text=True, check=False
        )
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr == (
            f"error: the store at {path} is read-only; make it writable and retry\n"
        )
    finally:
        path.parent.chmod(0o755)
        path.chmod(0o644)
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(data).digest()
    assert sorted(os.listdir(path.parent)) == listing
    # Made writable, the same repair goes through.
    code, _ = checks(run_cli, "--repair")
    assert code == 0 and recalled(run_cli, "shard0") == {ids[0]}
