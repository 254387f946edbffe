"""A row whose text is not UTF-8 (a store edited by hand): every read skips it,
the rest of the store stays readable, and `doctor` names the row.

Python's sqlite3 cannot step past such a row; `sql.Rows` runs the statement
again with a tolerant text factory and drops the bad rows, keeping what it had
already delivered.
"""

from __future__ import annotations

import io
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from helpers import REPO, CliRunner
from reliability_support import raw

from tree_ring.hook import adapter
from tree_ring.model.errors import StoreFault
from tree_ring.store.sql import Undecodable, open_db

BAD = b"Fact \xff\xfe with bytes that are not UTF-8"


def poison(root: Path, memory_id: str, column: str = "summary") -> None:
    """Write bytes that are not UTF-8 into one TEXT column, as a hand edit would."""
    with closing(raw(root)) as conn:
        conn.execute(
            f"UPDATE memories SET {column} = CAST(? AS TEXT) WHERE id = ?", (BAD, memory_id)
        )


@pytest.fixture
def seeded(run_cli: CliRunner) -> list[str]:
    ids: list[str] = []
    for n in range(6):
        result = run_cli("--json", "remember", f"Seed fact {n}: the toolchain is pinned")
        assert result.code == 0, result.err
        ids.append(result.json()["id"])
    return ids


def listed_ids(run_cli: CliRunner) -> set[str]:
    result = run_cli("--json", "list")
    assert result.code == 0 and result.err == "", result.err
    return {memory["id"] for memory in result.json()["items"]}


def test_reads_skip_the_row_and_keep_the_rest(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    bad = seeded[2]
    poison(project_root, bad)
    assert listed_ids(run_cli) == set(seeded) - {bad}
    recalled = run_cli("--json", "recall", "toolchain pinned")
    assert recalled.code == 0, recalled.err
    assert {hit["id"] for hit in recalled.json()["items"]} == set(seeded) - {bad}
    brief = run_cli("brief")
    assert brief.code == 0 and brief.err == "" and "Seed fact 0" in brief.out
    exported = run_cli("export")  # the rest, and the row left out named (exit 1)
    assert exported.code == 1 and exported.err.startswith("error: export left out 1 memory(ies)")
    assert f": {bad}; " in exported.err and len(exported.err.splitlines()) == 1
    assert {json.loads(line)["id"] for line in exported.out.splitlines()} == set(seeded) - {bad}
    shown = run_cli("show", bad)
    assert shown.code != 0 and len(shown.err.splitlines()) == 1


def test_session_start_still_injects_the_brief(
    seeded: list[str], project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    poison(project_root, seeded[0])
    data = json.loads((REPO / "tests/fixtures/hooks/claude-code-session-start.json").read_text())
    data["cwd"] = str(project_root)
    out = io.BytesIO()
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    code = adapter.main("claude-code", io.BytesIO(json.dumps(data).encode()), {}, out)
    assert code == 0 and err.getvalue() == ""
    context = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    assert "Seed fact 1" in context


def test_doctor_names_the_row_with_a_fix(
    run_cli: CliRunner, seeded: list[str], project_root: Path
) -> None:
    assert run_cli("doctor").code == 0
    poison(project_root, seeded[4], "details")
    result = run_cli("--json", "doctor")
    assert result.code == 1
    [text] = [c for c in result.json()["items"] if c["name"] == "text"]
    assert not text["ok"]
    assert f"memories {seeded[4]}" in text["detail"] and "restore a backup" in text["detail"]
    assert "\n" not in text["detail"]


def test_a_scan_skips_a_bad_row_after_whole_batches(tmp_path: Path) -> None:
    """The bad row sits past the first fetch batch: rows already delivered are
    not delivered twice, and only the bad one is missing."""
    path = tmp_path / "t.sqlite"
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("BEGIN")  # one transaction: 700 autocommits are 700 syncs
        conn.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, s TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(n, f"row {n}") for n in range(700)])
        conn.execute("UPDATE t SET s = CAST(? AS TEXT) WHERE n IN (300, 650)", (BAD,))
        conn.execute("COMMIT")
    db = open_db(path)
    try:
        seen = [row["n"] for row in db.execute("SELECT n, s FROM t ORDER BY n")]
        assert seen == [n for n in range(700) if n not in (300, 650)]
        assert db.skipped == 2
        assert db.execute("SELECT s FROM t WHERE n = 300").fetchone() is None
        assert [r["n"] for r in db.query("SELECT n FROM t WHERE n > 690")] == list(range(691, 700))
        bad = db.undecodable("SELECT n, s FROM t")
        assert [row["n"] for row in bad] == [300, 650]
        assert all(type(row["s"]) is Undecodable for row in bad)
        # A statement that writes is never run twice: it fails with one line.
        with pytest.raises(StoreFault, match="damaged"):
            db.execute("UPDATE t SET n = n WHERE n = 300 RETURNING s").fetchall()
    finally:
        db.conn.close()


def test_batches_after_a_bad_row_keep_their_sizes(tmp_path: Path) -> None:
    """Once a bad row was met, the rows left are handed out in the sizes asked
    for: `fetchmany(0)` gives none, a size past the end gives what is left."""
    path = tmp_path / "t.sqlite"
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, s TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(n, f"row {n}") for n in range(10)])
        conn.execute("UPDATE t SET s = CAST(? AS TEXT) WHERE n = 3", (BAD,))
    db = open_db(path)
    try:
        rows = db.execute("SELECT n, s FROM t ORDER BY n")
        assert [r["n"] for r in rows.fetchmany(2)] == [0, 1]
        assert [r["n"] for r in rows.fetchmany(2)] == [2, 4]  # row 3 skipped
        assert rows.fetchmany(0) == []
        assert [r["n"] for r in rows.fetchmany(3)] == [5, 6, 7]
        assert rows.fetchone()["n"] == 8
        assert [r["n"] for r in rows.fetchmany(5)] == [9]
        assert rows.fetchone() is None
        assert rows.fetchall() == []
        assert db.skipped == 1
        again = db.execute("SELECT n, s FROM t ORDER BY n")
        assert again.fetchone()["n"] == 0
        assert [r["n"] for r in again.fetchall()] == [1, 2, 4, 5, 6, 7, 8, 9]
    finally:
        db.conn.close()
