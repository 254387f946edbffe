"""A memory holding a BLOB where Tree Ring stores text (a hand edit: Python's
sqlite3 stores a bytes parameter so, even valid UTF-8) is treated as a row
whose text is not UTF-8: every read skips it, `doctor` names the row and
column, `audit verify` reports, and `export` names it as left out."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from helpers import CliRunner
from reliability_support import raw

from tree_ring.store import sql

# Columns an export's query compares in SQL, where a BLOB equals no text:
# the row is outside what the export asks for (as a superseded row is, for
# superseded_by filled), so its leaving out is not named; it is never written.
COMPARED = {"project", "sensitivity", "superseded_by", "trust"}
# A value for a column that may be NULL: a time, which every such column but
# the few ids accepts as text.
FILL = "2026-01-01T00:00:00.000000Z"


@pytest.fixture
def seeded(run_cli: CliRunner) -> list[str]:
    ids: list[str] = []
    for n in range(3):
        result = run_cli("--json", "remember", f"Seed fact {n}: deploys freeze on Fridays")
        assert result.code == 0, result.err
        ids.append(result.json()["id"])
    return ids


def as_blob(root: Path, column: str, memory_id: str) -> int:
    """The column's value (or a time, when NULL) stored as a BLOB; the rowid."""
    with closing(raw(root)) as conn:
        rowid = conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()[0]
        conn.execute(
            f"UPDATE memories SET {column} = CAST(coalesce({column}, ?) AS BLOB) WHERE rowid = ?",
            (FILL, rowid),
        )
        assert (
            conn.execute(
                f"SELECT typeof({column}) FROM memories WHERE rowid = ?", (rowid,)
            ).fetchone()[0]
            == "blob"
        )
    return int(rowid)


def test_texts_are_the_memories_text_columns_a_check_does_not_cover(project_root: Path) -> None:
    with closing(raw(project_root)) as conn:
        found = conn.execute("SELECT name, type FROM pragma_table_info('memories')").fetchall()
    assert {name for name, kind in found if kind == "TEXT"} - set(sql.READABLE) == sql.TEXTS


@pytest.mark.parametrize("column", sorted(sql.TEXTS))
def test_a_blob_where_text_belongs_is_skipped_and_named(
    run_cli: CliRunner, seeded: list[str], project_root: Path, column: str
) -> None:
    bad = seeded[1]
    rowid = as_blob(project_root, column, bad)
    name = f"rowid {rowid}" if column == "id" else bad
    rest = set(seeded) - {bad}
    for verb in (("list",), ("recall", "deploys Fridays")):
        result = run_cli("--json", *verb)
        assert result.code == 0 and result.err == "", result.err
        assert {item["id"] for item in result.json()["items"]} == rest
    exported = run_cli("export")
    if column in COMPARED:
        assert exported.code in (0, 1) and "unexpected" not in exported.err, exported.err
    else:
        assert exported.code == 1 and name in exported.err, exported.err
    assert bad not in exported.out
    verified = run_cli("audit", "verify")
    assert verified.code == 1 and "unexpected" not in verified.err, verified.err
    if column != "id":  # a row is found by its id: one that is no text is not
        said = verified.out + verified.err
        assert f"memory {bad} holds a value no read can use" in said, said
        assert "removed without an audit entry" not in said, said
    doctor = run_cli("--json", "doctor")
    assert doctor.code == 1 and doctor.err == "", doctor.err
    [fields] = [c for c in doctor.json()["items"] if c["name"] == "fields"]
    assert f"{name} ({column})" in str(fields["detail"])
    assert "restore a backup" in str(fields["detail"])
    assert "forget" not in str(fields["detail"])  # a forget's read skips the row too
    repaired = run_cli("doctor", "--repair")
    assert repaired.code == 1 and "unexpected" not in repaired.err, repaired.err


def test_a_clean_store_reads_whole_and_passes(run_cli: CliRunner, seeded: list[str]) -> None:
    result = run_cli("--json", "list")
    assert {item["id"] for item in result.json()["items"]} == set(seeded)
    doctor = run_cli("--json", "doctor")
    [fields] = [c for c in doctor.json()["items"] if c["name"] == "fields"]
    assert fields["ok"], fields
    assert run_cli("audit", "verify").code == 0
