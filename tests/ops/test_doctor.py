"""`tree-ring doctor`: every check, and `--repair` for what the rows can rebuild."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import AGENT, PERSON, CliRunner, make_memory
from reliability_support import fts_consistent, raw

from tree_ring.govern import contradictions
from tree_ring.model import vectors
from tree_ring.read import relations
from tree_ring.store import schema
from tree_ring.store.db import Store
from tree_ring.upkeep import doctor
from tree_ring.write import correct, pipeline

CHECKS = {
    "text",
    "fields",
    "settings",
    "project",
    "integrity",
    "schema",
    "tables",
    "definitions",
    "foreign",
    "fts",
    "meaning",
    "claims",
    "tombstones",
    "summary_tree",
    "audit",
    "leftovers",
    "review_queue",
}


def run_doctor(run_cli: CliRunner, *flags: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("--json", "doctor", *flags)
    return result.code, json.loads(result.out)


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {check["name"]: check for check in report["items"]}


@pytest.fixture
def filled(store: Store, project_id: str) -> Store:
    for n in range(5):
        pipeline.store_memory(
            store,
            make_memory(project_id, f"Doctor fact {n} about shard{n}", operation_id=f"op-{n}"),
            PERSON,
        )
    return store


def test_a_healthy_store_passes_every_check(run_cli: CliRunner, filled: Store) -> None:
    code, report = run_doctor(run_cli)
    assert code == 0 and report["ok"] is True
    assert set(by_name(report)) == CHECKS
    assert all(check["ok"] for check in report["items"])
    text = run_cli("doctor")
    assert text.code == 0
    checks = [line.split()[:2] for line in text.out.splitlines()[1:]]
    assert sorted(name for _, name in checks) == sorted(CHECKS)
    assert {status for status, _ in checks} == {"ok"}


def test_the_doctor_knows_every_trigger_that_keeps_an_index() -> None:
    # The doctor checks and restores the triggers this table names.
    assert set(schema.INDEX_TRIGGERS) == {
        f"memories_{index}_{event}"
        for index in ("fts", "claim_fts", "meaning")
        for event in ("insert", "delete", "update")
    }


def test_lost_meaning_codes_are_found_and_rebuilt(run_cli: CliRunner, filled: Store) -> None:
    with closing(raw(filled.root)) as conn:
        conn.execute("DELETE FROM memory_meaning WHERE rowid IN (1, 2)")
    code, report = run_doctor(run_cli)
    meaning = by_name(report)["meaning"]
    assert code == 1 and not meaning["ok"] and meaning["repairable"]
    assert meaning["detail"] == "2 memory(ies) without a meaning code"
    with closing(raw(filled.root)) as conn:
        conn.execute("DROP TABLE memory_meaning")
    code, report = run_doctor(run_cli)
    assert by_name(report)["meaning"]["detail"] == "the meaning codes' table is missing"
    code, report = run_doctor(run_cli, "--repair")
    assert "coded 5 memory(ies)" in by_name(report)["meaning"]["repaired"]
    with closing(raw(filled.root)) as conn:
        coded = {r[0] for r in conn.execute("SELECT rowid FROM memory_meaning")}
        assert coded == {r[0] for r in conn.execute("SELECT rowid FROM memories")}
    assert run_cli("--json", "remember", "Doctor fact after the repair").code == 0
    code, report = run_doctor(run_cli)
    assert by_name(report)["meaning"]["ok"]


@pytest.mark.parametrize(
    "bad",
    [
        "x'01'",
        "x''",
        "randomblob(64)",
        "'hello'",
        "42",
        "zeroblob(2000000)",
        "CAST(x'ff00' AS TEXT)",
    ],
)
def test_meaning_codes_edited_outside_tree_ring_are_named_and_coded_again(
    run_cli: CliRunner, filled: Store, bad: str
) -> None:
    """Codes of another type or size (recall reads none of them) and codes
    of a memory gone or redacted: the doctor counts both, and the repair
    deletes them and codes those memories again, as the triggers would."""
    with closing(raw(filled.root)) as conn:
        sound = {r[0]: r[1] for r in conn.execute("SELECT rowid, code FROM memory_meaning")}
    redacted = filled.query("SELECT id, rowid FROM memories WHERE rowid = 5")[0]
    correct.forget(filled, redacted[0], mode="redact", reason="wrong", actor=PERSON)
    with closing(raw(filled.root)) as conn:
        conn.execute(f"UPDATE memory_meaning SET code = {bad} WHERE rowid IN (1, 2)")
        strays = [(99999, sound[3]), (-5, b"\x00"), (redacted[1], sound[5])]
        conn.executemany("INSERT INTO memory_meaning(rowid, code) VALUES (?, ?)", strays)
    code, report = run_doctor(run_cli)
    meaning = by_name(report)["meaning"]
    assert code == 1 and not meaning["ok"] and meaning["repairable"]
    # Named once, by the check whose repair mends them: the text check,
    # whose advice is a backup, reads no code (and loads none, however large).
    assert by_name(report)["text"]["ok"]
    assert meaning["detail"] == (
        "5 meaning code(s) edited outside Tree Ring (2 not a code's type or size, "
        "3 of a memory gone or redacted); `doctor --repair` codes those memories again"
    )
    code, report = run_doctor(run_cli, "--repair")
    assert by_name(report)["meaning"]["repaired"] == (
        "made the meaning codes' table whole, deleted 5 code(s) edited outside Tree Ring "
        "and coded 2 memory(ies)"
    )
    with closing(raw(filled.root)) as conn:
        after = {r[0]: r[1] for r in conn.execute("SELECT rowid, code FROM memory_meaning")}
    assert after == {rowid: sound[rowid] for rowid in (1, 2, 3, 4)}
    code, report = run_doctor(run_cli)
    assert code == 0 and by_name(report)["meaning"]["ok"]


def test_a_related_words_file_its_checksum_does_not_match_is_named(
    run_cli: CliRunner, filled: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall's lookups read the related words' file without its checksum
    (a pass over it would cost every recall a millisecond): the doctor is
    where a file damaged in place is found, and it says to reinstall."""
    data = Path(relations.PATH).read_bytes()
    end = data.index(b"\n") + 1
    at = end + len(data[end:]) // 2
    damaged = tmp_path / "relations.dat"
    damaged.write_bytes(data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :])
    shipped = relations.PATH
    monkeypatch.setattr(relations, "PATH", str(damaged))
    relations._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    try:
        code, report = run_doctor(run_cli)
        meaning = by_name(report)["meaning"]
        assert code == 1 and not meaning["ok"] and not meaning["repairable"]
        assert meaning["detail"] == (
            f"every memory is coded, but the related words: {damaged} "
            "is truncated or damaged; reinstall Tree Ring"
        )
    finally:
        monkeypatch.setattr(relations, "PATH", shipped)
        relations._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    code, report = run_doctor(run_cli)
    assert code == 0 and by_name(report)["meaning"]["ok"]


@pytest.fixture
def vector_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the shipped vector table that the reader reads instead,
    its caches cleared before and after."""
    copy = tmp_path / "vectors.dat"
    copy.write_bytes(Path(vectors.PATH).read_bytes())
    monkeypatch.setattr(vectors, "PATH", str(copy))
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    vectors._vector.cache_clear()  # pyright: ignore[reportPrivateUsage]
    yield copy
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    vectors._vector.cache_clear()  # pyright: ignore[reportPrivateUsage]


def _damage_vectors(path: Path, damage: str) -> None:
    data = path.read_bytes()
    if damage == "missing":
        path.unlink()
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "a directory":
        path.unlink()
        path.mkdir()
    elif damage == "random bytes":
        path.write_bytes(random.Random(7).randbytes(len(data)))


@pytest.mark.parametrize("damage", ["missing", "empty", "truncated", "a directory", "random bytes"])
def test_a_missing_or_damaged_vector_table_fails_and_says_to_reinstall(
    run_cli: CliRunner, filled: Store, vector_copy: Path, damage: str
) -> None:
    """Recall works on without meaning (tests/read/test_meaning.py), but a
    Tree Ring whose vector table is gone is not sound: the doctor fails, as
    for the related words' file, and says what mends it."""
    code, report = run_doctor(run_cli)
    assert code == 0 and by_name(report)["meaning"]["ok"]
    _damage_vectors(vector_copy, damage)
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    code, report = run_doctor(run_cli)
    meaning = by_name(report)["meaning"]
    assert code == 1 and not meaning["ok"] and not meaning["repairable"]
    assert meaning["detail"].startswith("no vector table, so recall reads words alone: ")
    assert meaning["detail"].endswith("; reinstall Tree Ring") and "\n" not in meaning["detail"]
    assert str(vector_copy) in meaning["detail"]
    code, report = run_doctor(run_cli, "--repair")
    assert code == 1 and not by_name(report)["meaning"]["ok"]


def test_codes_another_vector_table_made_are_found_and_made_again(
    run_cli: CliRunner, filled: Store
) -> None:
    """A store coded by another build of the vector table (an older
    release's): the doctor says so, and the repair codes every memory again
    and records the installed table."""
    with closing(raw(filled.root)) as conn:
        conn.execute("UPDATE memory_meaning SET code = zeroblob(144)")
        conn.execute("UPDATE meaning_source SET vectors = '1 10 128 3280 0badc0de'")
    code, report = run_doctor(run_cli)
    meaning = by_name(report)["meaning"]
    assert code == 1 and not meaning["ok"] and meaning["repairable"]
    assert meaning["detail"] == (
        "the meaning codes were made by another vector table; "
        "the next recall or `doctor --repair` codes them again"
    )
    code, report = run_doctor(run_cli, "--repair")
    assert "coded 5 memory(ies)" in by_name(report)["meaning"]["repaired"]
    with closing(raw(filled.root)) as conn:
        assert [tuple(r) for r in conn.execute("SELECT vectors FROM meaning_source")] == [
            (vectors.identity(),)
        ]
        blank = conn.execute("SELECT count(*) FROM memory_meaning WHERE code = zeroblob(144)")
        assert blank.fetchone()[0] == 0
    code, report = run_doctor(run_cli)
    assert by_name(report)["meaning"]["ok"]
    # The record itself dropped: the codes' maker is unknown, so they are stale.
    with closing(raw(filled.root)) as conn:
        conn.execute("DROP TABLE meaning_source")
    code, report = run_doctor(run_cli)
    assert code == 1 and not by_name(report)["meaning"]["ok"]
    code, report = run_doctor(run_cli, "--repair")
    assert "coded 5 memory(ies)" in by_name(report)["meaning"]["repaired"]
    code, report = run_doctor(run_cli)
    assert by_name(report)["meaning"]["ok"]


def test_fts_drift_is_found_and_rebuilt(run_cli: CliRunner, filled: Store) -> None:
    with closing(raw(filled.root)) as conn:
        conn.execute("DROP TRIGGER memories_fts_update")
        conn.execute("UPDATE memories SET summary = 'Rewritten behind the index' WHERE rowid = 1")
        conn.execute("DELETE FROM memory_fts_docsize WHERE id = 2")
        assert not fts_consistent(conn)
    code, report = run_doctor(run_cli)
    fts = by_name(report)["fts"]
    assert code == 1 and not fts["ok"] and fts["repairable"]
    assert "missing trigger" in fts["detail"] and "1 row(s) not indexed" in fts["detail"]

    code, report = run_doctor(run_cli, "--repair")
    checks = by_name(report)
    assert "rebuilt the FTS index" in checks["fts"]["repaired"] and checks["fts"]["ok"]
    # The row was changed behind Tree Ring's back: derived data is rebuilt, and
    # the change itself stays on the report, since the audit log is evidence.
    assert code == 1 and not checks["audit"]["ok"]
    assert "differs from its state in entry" in checks["audit"]["detail"]
    with closing(raw(filled.root)) as conn:
        assert fts_consistent(conn)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
        assert set(schema.INDEX_TRIGGERS) <= names
        # The repair itself is on the audit record.
        last = conn.execute("SELECT action, target FROM audit_log ORDER BY seq DESC").fetchone()
        assert tuple(last) == ("repair", "store")
    assert run_cli("--json", "recall", "rewritten behind").json()["items"]
    code, report = run_doctor(run_cli)
    assert code == 1 and [c["name"] for c in report["items"] if not c["ok"]] == ["audit"]


def test_drift_of_the_contradiction_index_alone_is_found_and_rebuilt(
    run_cli: CliRunner, filled: Store, project_id: str
) -> None:
    # Recall's index follows the change; the contradiction search's does not.
    with closing(raw(filled.root)) as conn:
        conn.execute("DROP TRIGGER memories_claim_fts_update")
        rotate = "UPDATE memories SET summary = 'Rotate the signing keys weekly' WHERE rowid = 1"
        conn.execute(rotate)
        assert not fts_consistent(conn)
    code, report = run_doctor(run_cli)
    fts = by_name(report)["fts"]
    assert code == 1 and not fts["ok"] and fts["repairable"]
    assert "claim_fts" in fts["detail"] and "memories_claim_fts_update" in fts["detail"]

    code, report = run_doctor(run_cli, "--repair")
    assert by_name(report)["fts"]["ok"]
    with closing(raw(filled.root)) as conn:
        assert fts_consistent(conn)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
        assert "memories_claim_fts_update" in names
    # The changed row is where the contradiction search looks for it.
    denial = make_memory(project_id, "Never rotate the signing keys weekly")
    summaries = {f.memory.summary for f in contradictions.find(filled.db, denial)}
    assert summaries == {"Rotate the signing keys weekly"}


def test_a_lost_contradiction_index_is_built_again(run_cli: CliRunner, filled: Store) -> None:
    with closing(raw(filled.root)) as conn:
        conn.execute("DROP TABLE claim_fts")
    code, report = run_doctor(run_cli)
    fts = by_name(report)["fts"]
    assert code == 1 and not fts["ok"] and "claim_fts" in fts["detail"]
    code, report = run_doctor(run_cli, "--repair")
    assert by_name(report)["fts"]["ok"]
    with closing(raw(filled.root)) as conn:
        assert fts_consistent(conn)
    # Writes work again, and what they write is in the index once more.
    assert run_cli("remember", "Writes index the summary again").code == 0
    with closing(raw(filled.root)) as conn:
        held = conn.execute("SELECT rowid FROM claim_fts WHERE claim_fts MATCH 'writes'")
        assert len(held.fetchall()) == 1


def test_orphaned_claims_and_tombstones_are_removed(run_cli: CliRunner, filled: Store) -> None:
    with closing(raw(filled.root)) as conn:
        conn.execute(
            "INSERT INTO operation_claims VALUES ('sha256:orphan', 'mem_gone_1', 'sha256:x', 't')"
        )
        conn.execute("INSERT INTO redaction_tombstones VALUES ('mem_gone_2', 't')")
    code, report = run_doctor(run_cli)
    checks = by_name(report)
    assert code == 1
    assert not checks["claims"]["ok"] and "1 of 6" in checks["claims"]["detail"]
    assert not checks["tombstones"]["ok"]
    code, report = run_doctor(run_cli, "--repair")
    checks = by_name(report)
    assert code == 0
    assert checks["claims"]["repaired"] == "removed 1 orphaned claim(s)"
    assert "removed 1 orphaned" in checks["tombstones"]["repaired"]
    with closing(raw(filled.root)) as conn:
        assert conn.execute("SELECT count(*) FROM operation_claims").fetchone()[0] == 5


def test_a_redacted_row_without_its_tombstone_gets_it_back(
    run_cli: CliRunner, filled: Store
) -> None:
    victim = filled.query("SELECT id FROM memories LIMIT 1")[0][0]
    correct.forget(filled, victim, mode="redact", reason="test", actor=PERSON)
    with closing(raw(filled.root)) as conn:
        conn.execute("DELETE FROM redaction_tombstones")
    code, report = run_doctor(run_cli, "--repair")
    assert code == 0
    assert "restored 1 missing" in by_name(report)["tombstones"]["repaired"]
    with closing(raw(filled.root)) as conn:
        assert [r[0] for r in conn.execute("SELECT memory_id FROM redaction_tombstones")] == [
            victim
        ]


def test_a_summary_tree_leaf_without_its_memory_is_rebuilt(
    run_cli: CliRunner, filled: Store
) -> None:
    with closing(raw(filled.root)) as conn:
        leaves = conn.execute("SELECT count(*) FROM tree_leaves").fetchone()[0]
        assert leaves == 5
        # A row removed behind the library's back (not through forget).
        conn.execute("DELETE FROM memories WHERE operation_id = 'op-0'")
    code, report = run_doctor(run_cli)
    tree = by_name(report)["summary_tree"]
    assert code == 1 and not tree["ok"] and "1 of 5" in tree["detail"]
    code, report = run_doctor(run_cli, "--repair")
    checks = by_name(report)
    assert checks["summary_tree"]["repaired"].startswith("rebuilt the summary tree")
    assert checks["summary_tree"]["ok"]
    assert code == 1 and "removed without an audit entry" in checks["audit"]["detail"]
    with closing(raw(filled.root)) as conn:
        assert conn.execute("SELECT count(*) FROM tree_leaves").fetchone()[0] == 4


def test_a_broken_audit_chain_is_reported_and_never_repaired(
    run_cli: CliRunner, filled: Store
) -> None:
    with closing(raw(filled.root)) as conn:
        conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 2")
        conn.execute("DELETE FROM memory_fts_docsize WHERE id = 1")
    code, report = run_doctor(run_cli, "--repair")
    checks = by_name(report)
    assert code == 1 and report["ok"] is False
    assert not checks["audit"]["ok"] and not checks["audit"]["repairable"]
    assert "entry 2 was changed after it was written" in checks["audit"]["detail"]
    # What could be rebuilt still was.
    assert checks["fts"]["ok"] and checks["fts"]["repaired"]
    text = run_cli("doctor")
    assert text.code == 1 and "FAIL audit" in text.out


def test_a_store_from_a_newer_tree_ring_is_not_touched(run_cli: CliRunner, filled: Store) -> None:
    with closing(raw(filled.root)) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 't')")
    code, report = run_doctor(run_cli, "--repair")
    schema_check = by_name(report)["schema"]
    assert code == 1 and not schema_check["ok"] and not schema_check["repaired"]
    assert "newer Tree Ring" in schema_check["detail"]


def test_review_queue_size_is_reported(run_cli: CliRunner, store: Store, project_id: str) -> None:
    for n in range(3):
        memory = make_memory(
            project_id, f"Agent heartwood {n} about module{n}", ring="heartwood", scope="project"
        )
        assert pipeline.store_memory(store, memory, AGENT).trust == "pending"
    code, report = run_doctor(run_cli)
    assert code == 0
    assert by_name(report)["review_queue"]["detail"].startswith("3 memory(ies) waiting")
    # A disputed row retired since waits for nothing, as `review list` says.
    store.conn.execute(
        "UPDATE memories SET trust = 'disputed', retired_at = updated_at WHERE summary LIKE '%0 %'"
    )
    store.conn.commit()
    _, report = run_doctor(run_cli)
    assert by_name(report)["review_queue"]["detail"].startswith("2 memory(ies) waiting")
    assert len(run_cli("--json", "review", "list").json()["items"]) == 2


def test_library_report_round_trips_to_json(filled: Store) -> None:
    report = doctor.diagnose(filled.root)
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["ok"] is True and Path(str(data["path"])) == filled.path


def test_doctor_without_a_store_says_init(tmp_path: Path, run_cli: CliRunner) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    result = run_cli("--root", str(bare), "doctor", root=False)
    assert result.code == 1 and result.err.startswith("error: no Tree Ring store")


@pytest.mark.parametrize("scope", ["agent", "session"])
def test_a_redacted_agent_note_passes_every_check(run_cli: CliRunner, scope: str) -> None:
    """A redaction empties the placeholder's partition columns on purpose:
    no check reads that as a hand edit."""
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    written = run_cli("--json", "remember", "Scratch note on the widget cache", "--scope", scope,
                      environ=agent)  # fmt: skip
    assert written.code == 0, written.err
    memory_id = written.json()["id"]
    assert run_cli("forget", memory_id, "--mode", "redact", "--reason", "noise").code == 0
    checked = run_cli("--json", "doctor")
    assert checked.code == 0, checked.out
    report = checked.json()
    assert report["ok"] is True
    assert [item["name"] for item in report["items"] if not item["ok"]] == []
