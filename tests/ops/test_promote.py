"""Promote: a person's decision that moves a partition memory into a shared scope."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner, make_memory
from governance_support import CLAUDE, CODEX, TOKEN_VAR, enable, remember, write

from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.read.brief import build_brief
from tree_ring.store import rows
from tree_ring.store.db import Store

CAPTURE = (
    "--event-type", "lesson", "--ring", "cambium", "--agent-profile", "claude-code",
    "--workflow-id", "s1", "--session-id", "s1", "--source-ref", "session:s1",
)  # fmt: skip


def capture(run_cli: CliRunner, project_id: str, text: str, op: str = "auto-cccccccccccc-1") -> str:
    done = write(
        run_cli,
        "capture",
        text,
        "--project",
        project_id,
        *CAPTURE,
        "--operation-id",
        op,
        environ=CLAUDE,
    )
    return str(done["id"])


def codex_brief(root: Path, project_id: str) -> str:
    with Store.open(root) as store:
        return build_brief(store, Identity(project_id, "codex", "cx-9", "cx-9")).text


def snapshot(root: Path) -> tuple[list[tuple[Any, ...]], int]:
    """Every memory row and the audit log's length: what 'nothing changed' compares."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        memories = [tuple(r) for r in conn.execute("SELECT * FROM memories ORDER BY id")]
        entries = conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    finally:
        conn.close()
    return memories, entries


def test_a_promoted_capture_reaches_another_harness_brief_keeping_its_history(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    memory_id = capture(run_cli, project_id, "Integration tests need docker running")
    assert "Integration tests need docker" not in codex_brief(project_root, project_id)

    done = write(run_cli, "promote", memory_id, "--reason", "every harness needs this")

    assert done["command"] == "promote" and done["total"] == done["shown"] == 1
    assert done["items"][0] | {"promoted_at": None} == {
        "id": memory_id,
        "scope": "project",
        "ring": "cambium",
        "store": "project",
        "from_scope": "agent",
        "decision_reason": "every harness needs this",
        "promoted_at": None,
        "disputes": [],
    }
    assert "Integration tests need docker" in codex_brief(project_root, project_id)
    with Store.open(project_root) as store:
        row = rows.get(store.db, memory_id)
        entries = store.query("SELECT action, target FROM audit_log ORDER BY seq")
    assert (row.scope, row.origin, row.origin_session) == ("project", "claude-code", "s1")
    assert (row.source_ref, row.agent_profile, row.reviewed_by) == (
        "session:s1",
        "claude-code",
        "person",
    )
    assert [tuple(e) for e in entries][-1] == ("promote", memory_id)
    assert run_cli("audit", "verify").code == 0


def test_promote_can_give_a_ring(run_cli: CliRunner, project_id: str) -> None:
    memory_id = capture(run_cli, project_id, "The cache warms in two minutes")
    write(run_cli, "promote", memory_id, "--ring", "heartwood", "--reason", "checked it")
    assert run_cli("--json", "show", memory_id).json()["memory"]["ring"] == "heartwood"


# An agent is known by a harness variable's presence, not its value.
AGENT_ENVIRONMENTS = [
    CLAUDE,
    CODEX,
    {"CLAUDECODE": "true"},
    {"CLAUDECODE": ""},
    {"CLAUDECODE": "0"},
    {"CLAUDE_CODE_SESSION_ID": ""},
    {"CODEX_SESSION_ID": ""},
    {"CODEX_THREAD_ID": "cx-8"},
]


def test_an_agent_cannot_promote(run_cli: CliRunner, project_root: Path, project_id: str) -> None:
    memory_id = capture(run_cli, project_id, "Run the linters before pushing")
    before = snapshot(project_root)
    for harness in AGENT_ENVIRONMENTS:
        refused = run_cli("promote", memory_id, "--reason", "mine now", environ=harness)
        assert refused.code != 0 and refused.out == ""
        assert len(refused.err.strip().splitlines()) == 1
        # A harness that may read the row is told it is a person's decision;
        # to another, it is no memory, as `show` says (docs/THREAT-MODEL.md).
        seen = run_cli("show", memory_id, environ=harness)
        if seen.code == 0:
            assert "person's decision" in refused.err
        else:
            assert (refused.code, refused.err) == (seen.code, seen.err)
    assert snapshot(project_root) == before


def _stored(root: Path, memory_id: str, **changes: Any) -> None:
    conn = sqlite3.connect(project.store_path(root))
    try:
        sets = ", ".join(f"{k} = ?" for k in changes)
        conn.execute(f"UPDATE memories SET {sets} WHERE id = ?", (*changes.values(), memory_id))
        conn.commit()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("pending", "is pending"),
        ("disputed", "is disputed"),
        ("rejected", "was rejected"),
        ("redacted", "was forgotten"),
        ("expired", "expired"),
        ("superseded", "was superseded"),
        ("shared", "already in the shared project scope"),
        ("unknown", "no memory"),
    ],
)
def test_bad_promotes_are_one_line_and_change_nothing(
    run_cli: CliRunner, project_root: Path, project_id: str, state: str, message: str
) -> None:
    memory_id = capture(run_cli, project_id, "Builds need the cache mounted")
    other = capture(run_cli, project_id, "Builds pin the toolchain version", "auto-cccccccccccc-2")
    past = "2020-01-01T00:00:00.000000Z"
    if state == "pending":
        _stored(project_root, memory_id, trust="pending")
    elif state == "disputed":
        _stored(project_root, memory_id, trust="disputed")
    elif state == "rejected":
        write(run_cli, "review", "reject", memory_id, "--reason", "wrong")
    elif state == "redacted":
        write(run_cli, "forget", memory_id, "--mode", "redact", "--reason", "wrong")
    elif state == "expired":
        _stored(project_root, memory_id, expires_at=past)
    elif state == "superseded":
        write(run_cli, "supersede", memory_id, other, "--reason", "newer")
    elif state == "shared":
        write(run_cli, "promote", memory_id, "--reason", "first time")
    elif state == "unknown":
        memory_id = "mem_20990101_000000_000000000000"
    before = snapshot(project_root)
    refused = run_cli("promote", memory_id, "--reason", "share it")
    assert refused.code != 0 and refused.out == ""
    assert len(refused.err.strip().splitlines()) == 1 and message in refused.err
    assert snapshot(project_root) == before


def test_a_secret_bearing_row_is_not_spread(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    """A row stored before a newer guard rule (written here past the guard)."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    row = make_memory(project_id, f"The deploy token is {token}", scope="agent")
    row = row.replace(origin="claude-code", agent_profile="claude-code")
    with Store.open(project_root) as store, store.write() as db:
        rows.insert(db, row)
    before = snapshot(project_root)
    refused = run_cli("promote", row.id, "--reason", "share it")
    assert refused.code == 2 and token not in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    assert snapshot(project_root) == before


def test_bad_arguments_are_refused(run_cli: CliRunner, project_id: str) -> None:
    memory_id = capture(run_cli, project_id, "Docs build with mkdocs")
    for argv in (
        ("promote", memory_id),  # no reason
        ("promote", memory_id, "--reason", "  "),
        ("promote", memory_id, "--reason", "x", "--scope", "agent"),
        ("promote", memory_id, "--reason", "x", "--ring", "bark"),
    ):
        refused = run_cli(*argv)
        assert refused.code == 2, argv


def test_a_batch_is_all_or_nothing(run_cli: CliRunner, project_root: Path, project_id: str) -> None:
    first = capture(run_cli, project_id, "Tests run with pytest -q", "auto-cccccccccccc-1")
    second = capture(run_cli, project_id, "Lint runs with ruff", "auto-cccccccccccc-2")
    write(run_cli, "promote", second, "--reason", "already shared")
    before = snapshot(project_root)
    refused = run_cli("promote", first, second, "--reason", "both")
    assert refused.code != 0 and second in refused.err
    assert snapshot(project_root) == before


def test_the_coordinator_may_promote_and_an_open_agent_may_not(
    run_cli: CliRunner, project_id: str
) -> None:
    memory_id = capture(run_cli, project_id, "Release notes live in CHANGES.md")
    token = enable(run_cli)
    done = write(
        run_cli,
        "promote",
        memory_id,
        "--reason",
        "coordinator",
        environ={**CLAUDE, TOKEN_VAR: token},
    )
    assert done["items"][0]["scope"] == "project"


def test_a_person_note_in_a_partition_can_be_promoted_too(run_cli: CliRunner) -> None:
    memory_id = remember(
        run_cli, "Scratch idea: shard by tenant", "--scope", "agent", "--agent-profile", "w1"
    )
    assert (
        write(run_cli, "promote", memory_id, "--reason", "we agreed")["items"][0]["from_scope"]
        == "agent"
    )
