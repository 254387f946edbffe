"""How `doctor` names an FTS index that does not match the rows: entries
missing, extra or out of date are said plainly (FTS5 itself calls them
"database disk image is malformed"), and SQLite's words are kept for an
index whose own pages are damaged. `--repair` rebuilds either from the rows."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from helpers import CliRunner
from reliability_support import checks, fts_consistent, raw

REPAIR = "`doctor --repair` rebuilds the FTS indexes from the rows"


def mismatch(index: str) -> str:
    return f"{index}'s entries do not match the rows' text (missing, extra or out of date)"


@pytest.fixture
def ids(run_cli: CliRunner) -> list[str]:
    return [
        run_cli("--json", "remember", f"Doctor fact {n} about shard{n}").json()["id"]
        for n in range(5)
    ]


# (what is done to the index, how the doctor names it)
CASES = {
    "an entry missing": (
        "INSERT INTO memory_fts(memory_fts, rowid, summary, details, tags) "
        "SELECT 'delete', rowid, summary, details, tags FROM memory_text WHERE rowid = 2",
        f"5 rows, 4 indexed; 1 row(s) not indexed, 0 index entry(ies) without a row; "
        f"{mismatch('memory_fts')}; {REPAIR}",
    ),
    "an entry without a row": (
        "INSERT INTO memory_fts(rowid, summary, details, tags) VALUES (99, 'ghost', '', '')",
        f"5 rows, 6 indexed; 0 row(s) not indexed, 1 index entry(ies) without a row; "
        f"{mismatch('memory_fts')}; {REPAIR}",
    ),
    "the contradiction index missing an entry": (
        "INSERT INTO claim_fts(claim_fts, rowid, summary) "
        "SELECT 'delete', rowid, summary FROM memories WHERE rowid = 2",
        f"5 rows, 5 indexed; {mismatch('claim_fts')}; {REPAIR}",
    ),
    "a page of the index damaged": (
        "UPDATE memory_fts_data SET block = x'00ff00ff00ff00ff' "
        "WHERE id = (SELECT max(id) FROM memory_fts_data)",
        f"5 rows, 5 indexed; integrity-check: memory_fts: database disk image is malformed; "
        f"{REPAIR}",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_index_is_named_for_what_is_wrong_with_it_and_rebuilt(
    run_cli: CliRunner, project_root: Path, ids: list[str], case: str
) -> None:
    statement, detail = CASES[case]
    with closing(raw(project_root)) as conn:
        conn.execute(statement)
        assert not fts_consistent(conn)
    code, found = checks(run_cli)
    assert code == 1
    assert {name for name, check in found.items() if not check["ok"]} == {"fts"}
    assert (found["fts"]["detail"], found["fts"]["repairable"]) == (detail, True)

    code, found = checks(run_cli, "--repair")
    assert code == 0, found
    assert found["fts"]["repaired"].endswith("rebuilt the FTS indexes from the rows")
    with closing(raw(project_root)) as conn:
        assert fts_consistent(conn)
