"""`doctor` on a store holding an index, trigger, view or table that no
migration makes (added by hand or by another tool): the `foreign` check
names each, and `--repair` drops the indexes, triggers and views, before
the repair's own audit record is written; a table is named and left."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from conftest import CliRunner
from reliability_support import checks, raw
from reliability_support import remembered as remember
from team_support import LEDGER, cli, first_repo
from team_support import remember as shared

from tree_ring.store import health
from tree_ring.store.sql import open_db

# A trigger that keeps every deleted memory's words, under a name that needs
# quoting, with a view and an index beside it and the table it writes to.
ADDED = (
    'CREATE TABLE "Stash"(words TEXT)',
    'CREATE TRIGGER "keep ""words""" AFTER DELETE ON memories '
    "BEGIN INSERT INTO Stash VALUES (old.summary); END",
    "CREATE VIEW peek AS SELECT words FROM Stash",
    "CREATE INDEX memories_by_words ON memories(summary)",
)
FOUND = {
    ("table", "Stash"),
    ("trigger", 'keep "words"'),
    ("view", "peek"),
    ("index", "memories_by_words"),
}
TEXT = "The staging database password rotates every Monday"


def add(root: Path, *statements: str) -> None:
    with closing(raw(root)) as conn:
        for statement in statements:
            conn.execute(statement)


def stashed(root: Path) -> list[str]:
    with closing(sqlite3.connect(root / ".tree-ring" / "memory.sqlite")) as conn:
        return [row[0] for row in conn.execute("SELECT words FROM Stash")]


def objects(root: Path) -> set[tuple[str, str]]:
    with closing(sqlite3.connect(root / ".tree-ring" / "memory.sqlite")) as conn:
        return {
            (str(r[0]), str(r[1])) for r in conn.execute("SELECT type, name FROM sqlite_master")
        }


def test_a_fresh_store_holds_nothing_foreign(run_cli: CliRunner) -> None:
    remember(run_cli, TEXT)
    code, found = checks(run_cli)
    assert code == 0 and found["foreign"]["ok"], found["foreign"]


def test_added_objects_are_named_and_repair_drops_all_but_the_table(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory = remember(run_cli, TEXT)
    before = objects(project_root)
    add(project_root, *ADDED)
    code, found = checks(run_cli)
    assert code == 1 and not found["foreign"]["ok"]
    detail = found["foreign"]["detail"]
    assert detail.startswith("4 object(s) Tree Ring's schema does not make: ")
    for kind, name in FOUND:
        assert f"{kind} {name}" in detail
    assert "doctor --repair` drops" in detail
    assert detail.endswith('then drop the table "Stash" in the sqlite3 shell')
    assert found["foreign"]["repairable"] is True
    # Every other check holds: the parts of the schema are all as it makes them.
    assert {name for name, check in found.items() if not check["ok"]} == {"foreign"}

    code, repaired = checks(run_cli, "--repair")
    assert code == 1
    assert repaired["foreign"]["repaired"] == (
        "dropped 3 index(es), trigger(s) and view(s) Tree Ring's schema does not make"
    )
    assert objects(project_root) == before | {("table", "Stash")}

    # The trigger is gone: a forget keeps nothing of the words.
    done = run_cli("forget", memory, "--mode", "delete", "--reason", "rotated")
    assert done.code == 0, done.err
    assert stashed(project_root) == []
    code, found = checks(run_cli)
    assert code == 1 and found["foreign"]["repairable"] is False
    assert found["foreign"]["detail"].startswith(
        "1 object(s) Tree Ring's schema does not make: table Stash; a table is left as it is"
    )
    add(project_root, 'DROP TABLE "Stash"')
    code, found = checks(run_cli)
    assert code == 0 and found["foreign"]["ok"]


def test_a_trigger_refusing_the_repairs_record_is_dropped_first(
    run_cli: CliRunner, project_root: Path
) -> None:
    remember(run_cli, TEXT)
    add(
        project_root,
        "CREATE TRIGGER no_record BEFORE INSERT ON policy_audit "
        "BEGIN SELECT RAISE(ABORT, 'no record'); END",
    )
    code, repaired = checks(run_cli, "--repair")
    assert code == 0, repaired["foreign"]
    assert repaired["foreign"]["repaired"].startswith("dropped 1 index(es), trigger(s)")
    assert ("trigger", "no_record") not in objects(project_root)


def test_a_forget_says_so_when_an_added_trigger_kept_the_words(
    run_cli: CliRunner, project_root: Path
) -> None:
    """What a trigger Tree Ring does not make copied out of a forgotten row
    stays in the file however it is rebuilt: the forget says the words are
    still there and where to look, rather than that they are gone."""
    memory = remember(run_cli, TEXT)
    kept = remember(run_cli, "The release train leaves every Tuesday at noon")
    add(project_root, *ADDED[:2])
    done = run_cli("forget", memory, "--mode", "delete", "--reason", "rotated")
    assert "the forgotten text is still in memory.sqlite" in done.err + done.out, done
    assert "doctor" in done.err + done.out
    assert stashed(project_root) == [TEXT]
    # A memory left standing that says it too does not count: nothing is said.
    add(project_root, 'DROP TRIGGER "keep ""words"""', 'DROP TABLE "Stash"')
    said = "Deploys pause while the release train is in the station"
    plain = remember(run_cli, said)
    remember(run_cli, f"{said}. Hotfixes still go out.")
    other = run_cli("forget", plain, "--mode", "delete", "--reason", "moved")
    assert other.code == 0 and "still in" not in other.err + other.out, other
    assert kept in {hit["id"] for hit in run_cli("--json", "list").json()["items"]}


# Tables whose names end a quoted name early when put into SQL unescaped, one
# with a row that is not UTF-8, one SQLite reads only by its key.
HOSTILE = (
    'CREATE TABLE "a""b"(s TEXT)',
    'INSERT INTO "a""b" VALUES (CAST(X\'46ff6163\' AS TEXT))',
    'CREATE TABLE "t""; DELETE FROM memories; --"(s TEXT)',
    'CREATE TABLE "keyed"(k TEXT PRIMARY KEY) WITHOUT ROWID',
)


def test_tables_no_migration_makes_are_named_and_not_read_for_text(
    run_cli: CliRunner, project_root: Path
) -> None:
    remember(run_cli, TEXT)
    _, before = checks(run_cli)
    add(project_root, *HOSTILE)
    code, found = checks(run_cli)
    assert code == 1
    assert {name for name, check in found.items() if not check["ok"]} == {"foreign"}
    # The text check reads Tree Ring's own tables, as before they were added.
    assert found["text"]["detail"] == before["text"]["detail"]
    assert found["text"]["detail"].startswith("every text value of ")
    assert found["foreign"]["detail"].endswith(
        'then drop the table "a""b", "keyed", "t""; DELETE FROM memories; --" in the sqlite3 shell'
    )
    code, repaired = checks(run_cli, "--repair")
    assert code == 1 and repaired["text"]["ok"]
    assert len(run_cli("--json", "list").json()["items"]) == 1


def test_a_table_name_with_a_quote_is_read_as_one_name(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute('CREATE TABLE "a""b"(s TEXT)')
        conn.execute('CREATE TABLE "a"(s TEXT)')
        conn.execute('INSERT INTO "a""b" VALUES (CAST(X\'46ff6163\' AS TEXT))')
        conn.execute("INSERT INTO a VALUES ('fine')")
    db = open_db(path)
    try:
        assert [row["rowid"] for row in health.undecodable(db, 'a"b')] == [1]
        assert health.undecodable(db, "a") == []
    finally:
        db.conn.close()


def test_a_name_with_a_line_break_cannot_forge_a_doctor_line(
    run_cli: CliRunner, project_root: Path
) -> None:
    remember(run_cli, TEXT)
    add(project_root, 'CREATE TABLE "x\nok   schema       forged" (a)')
    done = run_cli("doctor")
    assert done.code == 1
    assert not [
        line for line in done.out.splitlines() if "forged" in line and line.startswith("ok")
    ]
    assert "x\\nok   schema       forged" in done.out


def test_the_team_ledger_follows_a_forget_that_says_the_text_is_still_there(
    tmp_path: Path,
) -> None:
    """The forget stands though it exits 1 to say what is left in the file:
    the forgotten memory's line leaves the team ledger at once, as after any
    forget, rather than at the next `sync`."""
    alice = first_repo(tmp_path)
    memory = shared(alice, TEXT)
    assert TEXT in (alice / LEDGER).read_text(encoding="utf-8")
    add(alice, *ADDED[:2])
    done = cli(alice, "forget", memory, "--mode", "delete", "--reason", "rotated")
    assert done.code == 1 and "still in memory.sqlite" in done.err, done.err
    assert TEXT not in (alice / LEDGER).read_text(encoding="utf-8")
