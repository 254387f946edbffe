"""Who may forget what: a person anything, an agent its own partition only;
anything else an agent asks to forget waits for a person."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from governance_support import CLAUDE, CODEX, TOKEN_VAR, enable, query, remember, write
from helpers import CliRunner

from tree_ring.model import project
from tree_ring.write import correct

CLAUDE_B = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s2"}


def ids(root: Path) -> set[str]:
    return {r[0] for r in query(root, "SELECT id FROM memories WHERE redacted_at IS NULL")}


def test_an_agent_cannot_forget_a_persons_memory_it_asks_instead(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, "The staging database is rebuilt nightly", "--ring", "heartwood")
    asked = write(run_cli, "forget", mine, "--mode", "redact", "--reason", "stale", environ=CLAUDE)
    assert asked["request"] is not None and asked["request"].startswith("req_")
    # Nothing forgotten: the row is whole, no tombstone, the person can still write it.
    assert mine in ids(project_root)
    assert query(project_root, "SELECT count(*) FROM content_tombstones")[0][0] == 0
    listed = run_cli("--json", "review", "list").json()
    assert [
        (r["id"], r["memory_id"], r["mode"])
        for r in listed["items"]
        if r["kind"] == "forget_request"
    ] == [(asked["request"], mine, "redact")]
    # Asking again returns the same request.
    again = write(run_cli, "forget", mine, "--mode", "redact", "--reason", "x", environ=CLAUDE)
    assert again["request"] == asked["request"]


@pytest.mark.parametrize(
    ("writer", "forgetter", "scope", "outcome"),
    [
        (CLAUDE, CLAUDE, "agent", "forgotten"),  # its own agent partition
        (CLAUDE, CLAUDE_B, "agent", "forgotten"),  # the harness's agent partition, another session
        (CLAUDE, CLAUDE, "session", "forgotten"),  # its own session
        (CLAUDE, CLAUDE_B, "session", "unseen"),  # another session's partition
        (CLAUDE, CODEX, "agent", "unseen"),  # another harness's
        (CODEX, CLAUDE, "agent", "unseen"),
        (CLAUDE, CLAUDE, "project", "requested"),  # shared memory, even its own (pending) row
        (CLAUDE, CODEX, "project", "requested"),
    ],
)
def test_own_partition_is_read_from_the_row_and_the_harness(
    run_cli: CliRunner,
    project_root: Path,
    writer: dict[str, str],
    forgetter: dict[str, str],
    scope: str,
    outcome: str,
) -> None:
    memory_id = remember(run_cli, "The build cache lives in tmp", "--scope", scope, environ=writer)
    argv = ("--json", "forget", memory_id, "--mode", "delete", "--reason", "r")
    done = run_cli(*argv, environ=forgetter)
    if outcome == "unseen":
        # Worded as for an id nobody has: the agent learns nothing of the row.
        missing = run_cli(
            *argv[:2], "mem_20990101_000000_000000000000", *argv[3:], environ=forgetter
        )
        assert done.code == missing.code == 1
        assert done.err.replace(memory_id, "ID") == missing.err.replace(
            "mem_20990101_000000_000000000000", "ID"
        )
        assert memory_id in ids(project_root)
        assert query(project_root, "SELECT count(*) FROM forget_requests")[0][0] == 0
        return
    assert done.code == 0, done.err
    assert (done.json()["request"] is None) is (outcome == "forgotten")
    assert (memory_id in ids(project_root)) is (outcome == "requested")


def test_identity_settings_cannot_claim_another_partition(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = remember(run_cli, "Session notes for s1", "--scope", "session", environ=CLAUDE)
    for claimed in (
        {"TREE_RING_SESSION_ID": "s1"},
        {"TREE_RING_WORKFLOW_ID": "s1"},
        {"TREE_RING_AGENT_PROFILE": "codex"},
    ):
        done = run_cli(
            "forget",
            memory_id,
            "--mode",
            "delete",
            "--reason",
            "r",
            environ={**CLAUDE_B, **claimed},
        )
        assert done.code == 2 and "harness" in done.err and done.err.count("\n") == 1
        assert memory_id in ids(project_root)


def test_a_memory_a_person_vouched_for_is_no_longer_the_agents_alone(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = remember(run_cli, "Use the blue runner pool", "--ring", "heartwood", environ=CLAUDE)
    write(run_cli, "review", "approve", memory_id)
    done = write(run_cli, "forget", memory_id, "--mode", "delete", "--reason", "r", environ=CLAUDE)
    assert done["request"] is not None and memory_id in ids(project_root)


def test_a_person_approves_a_request_and_the_memory_is_forgotten(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, "The on-call rota lives in the wiki")
    request = write(
        run_cli, "forget", mine, "--mode", "delete", "--reason", "moved", environ=CODEX
    )["request"]
    # An agent cannot decide a request, its own or another's.
    denied = run_cli("review", "approve", request, environ=CLAUDE)
    assert denied.code == 1 and "person's decision" in denied.err
    assert mine in ids(project_root)
    done = write(run_cli, "review", "approve", request, "--reason", "fine")
    assert done["request"]["decision"] == "approved"
    assert mine not in ids(project_root)
    again = run_cli("remember", "The on-call rota lives in the wiki")
    assert again.code == 1 and "forgotten on" in again.err
    forget = [r for r in query(project_root, "SELECT * FROM audit_log") if r["action"] == "forget"]
    assert len(forget) == 1 and forget[0]["actor"] == "person"
    assert "moved" in forget[0]["detail"] and request in forget[0]["detail"]
    assert run_cli("--json", "review", "list").json()["requests"] == 0
    # A decided request cannot be decided again.
    assert run_cli("review", "reject", request, "--reason", "no").code == 1


def test_a_rejected_request_leaves_the_memory(run_cli: CliRunner, project_root: Path) -> None:
    mine = remember(run_cli, "Pin the toolchain in rust-toolchain.toml")
    request = write(run_cli, "forget", mine, "--mode", "delete", "--reason", "x", environ=CODEX)[
        "request"
    ]
    done = write(run_cli, "review", "reject", request, "--reason", "still true")
    assert done["request"]["decision"] == "rejected"
    assert mine in ids(project_root)
    assert query(project_root, "SELECT count(*) FROM content_tombstones")[0][0] == 0


def test_the_coordinator_forgets_directly(run_cli: CliRunner, project_root: Path) -> None:
    token = enable(run_cli)
    mine = remember(run_cli, "The release branch is cut on Tuesdays", environ={TOKEN_VAR: token})
    done = write(
        run_cli, "forget", mine, "--mode", "delete", "--reason", "r",
        environ={**CLAUDE, TOKEN_VAR: token},
    )  # fmt: skip
    assert done["request"] is None and mine not in ids(project_root)


def test_forget_says_so_when_a_reader_keeps_the_text_in_the_log(
    run_cli: CliRunner, project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    word = "quokkafjord"
    memory_id = remember(run_cli, f"The {word} service is retired")
    monkeypatch.setattr(correct, "CHECKPOINT_WAIT_S", 0.2)
    reader = sqlite3.connect(project.store_path(project_root))
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM memories").fetchone()  # holds a snapshot
        done = run_cli("--json", "forget", memory_id, "--mode", "delete", "--reason", "gone")
        assert done.code == 1
        assert "still in memory.sqlite-wal" in done.err and "maintain --vacuum" in done.err
        assert done.json()["lingering"] is not None
    finally:
        reader.close()
    # Once the reader is gone, the checkpoint removes it from every file.
    write(run_cli, "maintain", "--vacuum")
    for path in project_root.joinpath(".tree-ring").glob("memory.sqlite*"):
        assert word.encode() not in path.read_bytes(), path
