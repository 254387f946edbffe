"""Forgetting with tombstones, the audit chain, and JSONL export / import."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import REPO, CliRunner

from tree_ring.model import project
from tree_ring.store.sql import add_functions

ORIGINAL_EXPORT = REPO / "tests" / "fixtures" / "original" / "export.jsonl"
WORD = "zebracorn7731"


def remember(run_cli: CliRunner, summary: str, *extra: str) -> str:
    result = run_cli("--json", "remember", summary, *extra)
    assert result.code == 0, result.err
    return result.json()["id"]


def db_bytes(root: Path) -> bytes:
    folder = root / ".tree-ring"
    return b"".join(p.read_bytes() for p in sorted(folder.glob("memory.sqlite*")))


def all_text(root: Path) -> str:
    """Every text value in every table, FTS shadow tables included."""
    conn = sqlite3.connect(project.store_path(root))
    add_functions(conn)  # memory_fts reads its text through them
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        chunks: list[str] = []
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                chunks += [str(v) for v in row if isinstance(v, str | bytes)]
        return "\n".join(chunks)
    finally:
        conn.close()


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_forget_removes_text_everywhere_and_keeps_reason(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    memory_id = remember(run_cli, f"The {WORD} endpoint needs a retry budget", "--details", WORD)
    remember(run_cli, "An unrelated memory that stays")
    assert WORD in all_text(project_root)
    assert WORD.encode() in db_bytes(project_root)
    assert run_cli("--json", "recall", WORD).json()["items"][0]["id"] == memory_id
    result = run_cli("forget", memory_id, "--mode", mode, "--reason", "user asked to forget it")
    assert result.code == 0, result.err
    assert WORD not in all_text(project_root)
    assert WORD.encode() not in db_bytes(project_root)
    assert "An unrelated memory that stays" in all_text(project_root)
    assert run_cli("recall", WORD).out.strip() == "no memories match"
    log = run_cli("--json", "audit", "--target", memory_id).json()["items"]
    forget_entry = [e for e in log if e["action"] == "forget"]
    assert len(forget_entry) == 1
    detail = dict(forget_entry[0]["detail"])  # an object, not JSON text inside JSON
    stones = detail.pop("tombstones")
    # The row's state after: gone, or what the redaction left.
    state = detail.pop("states")[memory_id]
    assert (state == "gone") is (mode == "delete")
    assert detail == {"mode": mode, "reason": "user asked to forget it"}
    # The entry names exactly the tombstones written (hashes, never text).
    conn = sqlite3.connect(project.store_path(project_root))
    try:
        written = {
            r[0]
            for r in conn.execute(
                "SELECT content_hash FROM content_tombstones WHERE memory_id = ?", (memory_id,)
            )
        }
    finally:
        conn.close()
    assert set(stones) == written and len(written) >= 2
    shown = run_cli("--json", "show", memory_id)
    if mode == "delete":
        assert shown.code != 0
    else:
        placeholder = shown.json()["memory"]
        assert placeholder["summary"] == "[REDACTED]" and placeholder["details"] == ""
        assert placeholder["redacted_at"] is not None


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_forgotten_content_cannot_return(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, mode: str
) -> None:
    memory_id = remember(run_cli, "Deploys go out on Fridays")
    run_cli("forget", memory_id, "--mode", mode, "--reason", "policy changed")
    for variant in ("Deploys go out on Fridays", "  deploys GO out on fridays. "):
        again = run_cli("remember", variant)
        assert again.code != 0
        assert "forgotten on" in again.err and f"audit --target {memory_id}" in again.err
        # The reason is somebody's free text: kept in the audit log, never echoed.
        assert "policy changed" not in again.err
    line = json.dumps(
        {
            "id": "mem_20260101_000000_abcdefabcdef",
            "summary": "Deploys go out on Fridays",
            "event_type": "note",
            "project": "x",
            "scope": "project",
        }
    )
    path = tmp_path / "in.jsonl"
    path.write_text(line + "\n")
    imported = run_cli("import", str(path))
    assert imported.code != 0 and "line 1" in imported.err
    live = run_cli("--json", "list").json()["items"]
    assert [m["summary"] for m in live] == []


def test_forget_requires_a_reason(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "Keep this one")
    missing = run_cli("forget", memory_id, "--mode", "delete")
    assert missing.code == 2
    blank = run_cli("forget", memory_id, "--mode", "delete", "--reason", "   ")
    assert blank.code == 2 and "reason" in blank.err
    assert run_cli("--json", "show", memory_id).code == 0


def test_audit_log_records_every_mutation_and_verifies(
    run_cli: CliRunner, project_root: Path
) -> None:
    a = remember(run_cli, "First fact about builds")
    b = remember(run_cli, "Second fact about builds", "--supersedes", a)
    run_cli("supersede", b, remember(run_cli, "Third fact about builds"), "--reason", "newer")
    run_cli("forget", b, "--mode", "redact", "--reason", "wrong")
    entries = run_cli("--json", "audit", "--limit", "100").json()["items"]
    actions = [e["action"] for e in entries]
    assert actions == ["create", "create", "supersede", "create", "supersede", "forget"]
    assert all(e["hash"].startswith("sha256:") for e in entries)
    assert entries[0]["prev_hash"] == ""
    assert all(entries[i]["prev_hash"] == entries[i - 1]["hash"] for i in range(1, len(entries)))
    assert run_cli("audit", "verify").code == 0


def _tamper(root: Path, sql: str) -> None:
    conn = sqlite3.connect(project.store_path(root))
    conn.execute(sql)
    conn.commit()
    conn.close()


def _changed(seq: int) -> str:
    return f"entry {seq} was changed after it was written"


def _broken(seq: int) -> str:
    return f"entry {seq}: the link to the previous entry is broken"


@pytest.mark.parametrize(
    ("sql", "first_bad", "checked", "problems"),
    [
        ('UPDATE audit_log SET detail = \'{"mode":"delete"}\' WHERE seq = 2', 2, 4, [_changed(2)]),
        # A removed entry leaves a gap, the next entry's link broken, and the
        # memory it recorded without an entry.
        ("DELETE FROM audit_log WHERE seq = 2", 3, 3,
         ["entries 2 to 2 are missing", _broken(3), "memory {second} has no audit entry"]),
        ("UPDATE audit_log SET actor = 'someone-else' WHERE seq = 1", 1, 4, [_changed(1)]),
        # Only the link: the entry's hash covers its link, so both are named.
        ("UPDATE audit_log SET prev_hash = 'sha256:' || hex(randomblob(32)) WHERE seq = 3", 3, 4,
         [_broken(3), _changed(3)]),
        ("UPDATE audit_log SET prev_hash = 'sha256:0' WHERE seq = 1", 1, 4,
         [_broken(1), _changed(1)]),
    ],
)  # fmt: skip
def test_audit_verify_names_the_tampered_entry_and_the_problem(
    run_cli: CliRunner,
    project_root: Path,
    sql: str,
    first_bad: int,
    checked: int,
    problems: list[str],
) -> None:
    made = [remember(run_cli, f"Fact number {n} about the cache") for n in range(4)]
    assert run_cli("--json", "audit", "verify").json() == {
        "ok": True,
        "checked": 4,
        "first_bad": None,
        "problem": None,
        "unanchored": 0,
        "command": "audit verify",
        "items": [],
        "total": 0,
        "shown": 0,
    }
    _tamper(project_root, sql)
    result = run_cli("--json", "audit", "verify")
    assert result.code == 1
    expected = [problem.format(second=made[1]) for problem in problems]
    report = result.json()
    assert {key: report[key] for key in ("ok", "checked", "first_bad", "problem", "items")} == {
        "ok": False,
        "checked": checked,
        "first_bad": first_bad,
        "problem": expected[0],
        "items": expected,
    }
    text = run_cli("audit", "verify")
    assert text.out.splitlines() == [
        f"audit BROKEN: {len(expected)} problem(s)",
        *(f"  {problem}" for problem in expected),
    ]


def test_export_import_round_trip(run_cli: CliRunner, project_root: Path, tmp_path: Path) -> None:
    kept = remember(run_cli, "Builds use the locked toolchain", "--ring", "scar")
    old = remember(run_cli, "Cache lives in Redis")
    new = remember(run_cli, "Cache lives in SQLite", "--supersedes", old)
    sensitive = remember(run_cli, "The user's salary is 120000 dollars")
    gone = remember(run_cli, "A note to forget")
    run_cli("forget", gone, "--mode", "delete", "--reason", "noise")
    default = [json.loads(line) for line in run_cli("export").out.splitlines()]
    exported = {r["id"] for r in default if "id" in r and r.get("record") is None}
    assert exported == {kept, new}
    stones = [r for r in default if r.get("record") == "content_tombstone"]
    # One line per tombstoned key of the forgotten memory (hashes, no text).
    assert len(stones) >= 2 and {(s["memory_id"], s["reason"]) for s in stones} == {(gone, "noise")}
    everything = run_cli("export", "--include-sensitive", "--include-superseded").out
    assert {kept, new, old, sensitive} <= {json.loads(x).get("id") for x in everything.splitlines()}

    other = tmp_path / "other"
    other.mkdir()
    run_cli("init", "--root", str(other), root=False)
    dump = tmp_path / "dump.jsonl"
    dump.write_text(everything)
    plan = run_cli("--json", "import", str(dump), "--dry-run", "--root", str(other), root=False)
    assert plan.code == 0 and plan.json()["dry_run"] is True
    assert run_cli("--json", "list", "--root", str(other), root=False).json()["items"] == []
    # A person restores their own export: the scar comes back accepted, as it was.
    done = run_cli(
        "--json", "import", str(dump), "--restore", "--root", str(other), root=False
    ).json()
    assert set([i["id"] for i in done["items"] if i["result"] == "imported"]) == {
        kept,
        new,
        old,
        sensitive,
    }
    again = run_cli("--json", "import", str(dump), "--root", str(other), root=False).json()
    assert again["imported"] == 0 and again["unchanged"] == 4
    assert {i["id"] for i in again["items"] if i["result"] == "unchanged"} == {
        kept,
        new,
        old,
        sensitive,
    }
    live = run_cli("--json", "list", "--root", str(other), root=False).json()["items"]
    assert {m["id"] for m in live} == {kept, new}
    blocked = run_cli("remember", "A note to forget", "--root", str(other), root=False)
    assert blocked.code != 0 and "forgotten" in blocked.err


def test_import_of_original_rows(run_cli: CliRunner, project_id: str) -> None:
    result = run_cli("--json", "import", str(ORIGINAL_EXPORT))
    assert result.code == 0, result.err
    assert result.json()["imported"] == 6
    memories = {
        m["id"]: m for m in run_cli("--json", "list", "--include-unreviewed").json()["items"]
    }
    # Superseded and expired rows stay out of every default read.
    assert "mem_20260901_100100_0123456789ab" not in memories
    assert "mem_20260901_100200_fedcba987654" not in memories
    assert set(memories) == {
        "mem_20260901_100000_a1b2c3d4e5f6",
        "mem_20260902_090000_ba9876543210",
        "mem_20260901_100300_00aa11bb22cc",
        "mem_20260901_100400_33dd44ee55ff",
    }
    assert all(m["project"] == project_id for m in memories.values())
    old = run_cli("--json", "show", "mem_20260901_100100_0123456789ab").json()["memory"]
    assert old["superseded_by"] == "mem_20260902_090000_ba9876543210"
    expired = run_cli("--json", "show", "mem_20260901_100200_fedcba987654").json()["memory"]
    assert expired["expires_at"] == "2026-09-05T00:00:00.000000Z"
    worker = memories["mem_20260901_100400_33dd44ee55ff"]
    assert (worker["agent_profile"], worker["operation_id"]) == (
        "worker-storage",
        "validate-storage-v1",
    )


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("{not json", "not valid JSON"),
        ('["a list"]', "not a JSON object"),
        ('{"summary": "x", "ring": "bark"}', "unknown ring"),
        ('{"summary": ""}', "summary"),
        ('{"summary": "token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}', "secret"),
        ('{"summary": "x", "salience": "high"}', "salience"),
    ],
)
def test_import_reports_bad_line_and_writes_nothing(
    run_cli: CliRunner, tmp_path: Path, bad_line: str, message: str
) -> None:
    good = json.dumps({"summary": "A fine memory", "event_type": "note", "scope": "project"})
    path = tmp_path / "batch.jsonl"
    path.write_text(f"{good}\n{good.replace('fine', 'second')}\n{bad_line}\n")
    result = run_cli("import", str(path))
    assert result.code != 0
    assert "line 3" in result.err and message in result.err
    assert result.err.count("\n") == 1
    assert run_cli("--json", "list").json()["items"] == []
