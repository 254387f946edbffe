"""The write verbs, idempotency, the guard on the write path, and bad input."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from helpers import PERSON, CliRunner, Run, make_memory, run_process

from tree_ring.model import project
from tree_ring.model.errors import Conflict, SecretRefused, UsageError
from tree_ring.model.identity import Identity
from tree_ring.store.db import Store
from tree_ring.write import pipeline, verbs

CLAUDE_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sess-1"}


def count(root: Path) -> int:
    conn = sqlite3.connect(project.store_path(root))
    try:
        return conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    finally:
        conn.close()


def ids(root: Path) -> set[str]:
    conn = sqlite3.connect(project.store_path(root))
    try:
        return {r[0] for r in conn.execute("SELECT id FROM memories")}
    finally:
        conn.close()


def test_remember_defaults_to_the_current_project(run_cli: CliRunner, project_id: str) -> None:
    result = run_cli("--json", "remember", "Use WAL for the store", "--event-type", "decision")
    assert result.code == 0, result.err
    memory_id = result.json()["id"]
    assert re.fullmatch(r"mem_\d{8}_\d{6}_[0-9a-f]{12}", memory_id)
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    assert shown["project"] == project_id
    assert shown["scope"] == "project"
    assert shown["trust"] == "accepted"
    assert shown["origin"] == "person"
    assert shown["content_hash"].startswith("sha256:")
    assert shown["valid_from"] and shown["valid_to"] is None


def test_agent_remember_lands_in_its_own_partition(run_cli: CliRunner) -> None:
    result = run_cli("--json", "remember", "Worker note about caching", environ=CLAUDE_ENV)
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    assert shown["scope"] == "agent"
    assert shown["agent_profile"] == "claude-code"
    assert shown["session_id"] == "sess-1" and shown["workflow_id"] == "sess-1"
    assert shown["origin"] == "claude-code" and shown["origin_session"] == "sess-1"


@pytest.mark.parametrize(
    ("outcome", "ring", "retention"),
    [
        ("promoted", "heartwood", "durable"),
        ("rejected", "scar", "durable"),
        ("deferred", "seed", "normal"),
        ("observed", "outer", "normal"),
    ],
)
def test_evidence_outcome_table(
    run_cli: CliRunner, outcome: str, ring: str, retention: str
) -> None:
    result = run_cli(
        "--json",
        "evidence",
        f"Result of run for {outcome}",
        "--outcome",
        outcome,
        "--evidence-ref",
        "evals/run-42",
    )
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    salience, confidence = verbs.EVIDENCE_OUTCOMES[outcome][2:]
    assert (shown["ring"], shown["retention"]) == (ring, retention)
    assert (shown["salience"], shown["confidence"]) == (salience, confidence)
    assert shown["source"] == {"type": "evidence", "ref": "evals/run-42", "quote": ""}


def test_evidence_score_sets_confidence(run_cli: CliRunner) -> None:
    result = run_cli(
        "--json",
        "evidence",
        "Cache fix held",
        "--outcome",
        "observed",
        "--evidence-ref",
        "r1",
        "--score",
        "0.91",
    )
    assert run_cli("--json", "show", result.json()["id"]).json()["memory"]["confidence"] == 0.91


CAPTURE = [
    "capture",
    "Never run migrations during deploys",
    "--event-type",
    "warning",
    "--ring",
    "scar",
    "--agent-profile",
    "claude-code",
    "--workflow-id",
    "s1",
    "--session-id",
    "s1",
    "--operation-id",
    "auto-0123456789ab-1",
    "--source-ref",
    "session:s1",
]


def test_capture_writes_agent_scope(run_cli: CliRunner, project_id: str) -> None:
    result = run_cli("--json", *CAPTURE, "--project", project_id)
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    assert (shown["scope"], shown["ring"], shown["event_type"]) == ("agent", "scar", "warning")
    assert shown["agent_profile"] == "claude-code"


@pytest.mark.parametrize("summary", ["ONE_SENTENCE_SUMMARY", "Note: ONE_SENTENCE_SUMMARY here"])
def test_capture_refuses_the_commands_placeholder(
    run_cli: CliRunner, project_root: Path, project_id: str, summary: str
) -> None:
    """The stop hook's command holds a placeholder for the note: run as
    given, it stores nothing and says what to write."""
    argv = [*CAPTURE, "--project", project_id]
    argv[1] = summary
    result = run_cli(*argv)
    assert result.code == 2, result.err
    assert "write the outcome in one sentence" in result.err
    assert count(project_root) == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--ring", "heartwood"), "ring scar"),
        (("--event-type", "rule"), "event types"),
        (("--scope", "project"), "agent scope only"),
        (("--sensitivity", "health"), "normal sensitivity"),
    ],
)
def test_capture_refuses_anything_else(
    run_cli: CliRunner, project_root: Path, project_id: str, change: tuple[str, str], message: str
) -> None:
    argv = [*CAPTURE, "--project", project_id]
    flag, value = change
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]
    result = run_cli(*argv)
    assert result.code == 2, result.err
    assert message in result.err
    assert count(project_root) == 0


@pytest.mark.parametrize(
    "operation_id",
    [
        "whatever",
        "auto-0123456789ab-4",
        "auto-0123456789ab-0",
        "auto-0123456789ab-01",
        "auto-0123456789AB-1",
        "auto-0123456789a-1",
        "auto-0123456789abc-1",
        "auto-0123456789ag-1",
        "auto-0123456789ab-1-1",
        "auto-0123456789ab-",
        "Auto-0123456789ab-1",
        "auto-０123456789ab-1",
    ],
)
def test_capture_takes_only_an_operation_id_the_stop_hook_gives(
    run_cli: CliRunner, project_root: Path, project_id: str, operation_id: str
) -> None:
    argv = [*CAPTURE, "--project", project_id]
    argv[argv.index("--operation-id") + 1] = operation_id
    result = run_cli(*argv)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "error: capture takes an operation id the stop hook gave (auto-<12 hex digits>-1, "
        f"-2 or -3), not {operation_id!r}; copy the command the stop hook gave\n"
    )
    assert count(project_root) == 0


def test_each_of_a_checkpoints_three_ids_captures_and_a_retry_stores_nothing_twice(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    stored: list[str] = []
    for slot in ("1", "2", "3", "1"):
        argv = [*CAPTURE, "--project", project_id]
        argv[1] = f"Never run migrations during deploys, finding {slot}"
        argv[argv.index("--operation-id") + 1] = f"auto-0123456789ab-{slot}"
        result = run_cli("--json", *argv)
        assert result.code == 0, result.err
        stored.append(result.json()["id"])
    assert len(set(stored)) == 3 and stored[3] == stored[0]
    assert count(project_root) == 3


@pytest.mark.parametrize("missing", ["--operation-id", "--session-id"])
def test_capture_requires_identity_and_provenance(
    run_cli: CliRunner, project_root: Path, project_id: str, missing: str
) -> None:
    argv = [*CAPTURE, "--project", project_id]
    at = argv.index(missing)
    del argv[at : at + 2]
    if missing == "--session-id":  # nothing left to take the workflow from either
        at = argv.index("--workflow-id")
        del argv[at : at + 2]
    result = run_cli(*argv)
    assert result.code != 0
    assert missing in result.err
    # What a named session would give is not asked for apart.
    assert "--workflow-id" not in result.err and "--source-ref" not in result.err
    assert count(project_root) == 0


def test_capture_takes_the_roots_project_and_the_session_as_workflow_and_source(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    argv = list(CAPTURE)
    for flag in ("--workflow-id", "--source-ref"):
        at = argv.index(flag)
        del argv[at : at + 2]
    result = run_cli("--json", *argv)
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", result.json()["id"]).json()["memory"]
    said = {k: shown[k] for k in ("project", "workflow_id", "session_id")}
    assert said == {"project": project_id, "workflow_id": "s1", "session_id": "s1"}
    assert shown["source"]["ref"] == "session:s1"


def test_capture_pairs(store: Store, project_id: str) -> None:
    ident = Identity(project_id, "codex", "s", "s")
    for n, (event_type, ring) in enumerate(verbs.CAPTURE_PAIRS.items()):
        draft = verbs.Draft(
            f"A {event_type} worth keeping",
            event_type=event_type,
            ring=ring,
            operation_id=f"auto-{n:012x}-1",
            source_ref="session:s",
        )
        assert verbs.capture(store, draft, ident, PERSON).created
    assert set(verbs.CAPTURE_PAIRS) == {
        "preference",
        "decision",
        "lesson",
        "warning",
        "correction",
        "seed",
    }
    assert set(verbs.CAPTURE_PAIRS.values()) == {"cambium", "scar", "seed"}


# ---------------------------------------------------------------- idempotency


def remember_op(run_cli: CliRunner, summary: str, op: str, *extra: str) -> Run:
    return run_cli(
        "--json",
        "remember",
        summary,
        "--operation-id",
        op,
        "--agent-profile",
        "w1",
        "--workflow-id",
        "wf",
        "--session-id",
        "attempt-1",
        *extra,
    )


def test_exact_retry_returns_same_id(run_cli: CliRunner, project_root: Path) -> None:
    first = remember_op(run_cli, "Storage worker validated WAL", "op-1").json()
    second = remember_op(run_cli, "Storage worker validated WAL", "op-1").json()
    assert first["id"] == second["id"]
    assert first["created"] is True and second["created"] is False
    assert count(project_root) == 1


def test_different_payload_under_same_key_fails(run_cli: CliRunner, project_root: Path) -> None:
    remember_op(run_cli, "Storage worker validated WAL", "op-1")
    other = remember_op(run_cli, "Something else entirely", "op-1")
    assert other.code != 0 and "already used" in other.err
    session_only = run_cli(
        "remember",
        "Storage worker validated WAL",
        "--operation-id",
        "op-1",
        "--agent-profile",
        "w1",
        "--workflow-id",
        "wf",
        "--session-id",
        "attempt-2",
    )
    assert session_only.code != 0
    assert count(project_root) == 1


def test_namespace_is_project_workflow_agent(run_cli: CliRunner, project_root: Path) -> None:
    # Each agent's own partition: the same words in one place are one memory.
    remember_op(run_cli, "Same words", "op-1", "--scope", "agent")
    other_agent = run_cli(
        "--json",
        "remember",
        "Same words",
        "--scope",
        "agent",
        "--operation-id",
        "op-1",
        "--agent-profile",
        "w2",
        "--workflow-id",
        "wf",
        "--session-id",
        "attempt-1",
    )
    assert other_agent.code == 0 and other_agent.json()["created"] is True
    assert count(project_root) == 2


def test_claim_survives_redaction_and_hard_delete_releases_it(
    run_cli: CliRunner, project_root: Path
) -> None:
    first = remember_op(run_cli, "Claim survives redaction", "op-9").json()["id"]
    assert run_cli("forget", first, "--mode", "redact", "--reason", "wrong").code == 0
    retry = remember_op(run_cli, "Claim survives redaction", "op-9")
    assert retry.code != 0 and "forgotten" in retry.err
    new_payload = remember_op(run_cli, "A new claim under the old key", "op-9")
    assert new_payload.code != 0 and "redacted" in new_payload.err
    assert run_cli("forget", first, "--mode", "delete", "--reason", "remove").code == 0
    released = remember_op(run_cli, "A new claim under the old key", "op-9")
    assert released.code == 0, released.err
    assert count(project_root) == 1


# ---------------------------------------------------------------- guard on the write path


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize(
    "field", ["summary", "--details", "--source-ref", "--tag", "--source-quote"]
)
def test_secret_in_any_field_is_refused(run_cli: CliRunner, project_root: Path, field: str) -> None:
    argv = ["remember", "Deploy token for CI"]
    if field == "summary":
        argv[1] = f"Deploy with {SECRET}"
    else:
        argv += [field, f"token {SECRET}"]
    result = run_cli(*argv)
    assert result.code == 2
    assert "github" in result.err
    assert SECRET not in result.err and SECRET[4:20] not in result.err
    assert count(project_root) == 0


def test_secret_refused_names_rule(store: Store, project_id: str) -> None:
    memory = make_memory(project_id, "key AKIAQYLPMN5HHHFPZAM2 for the bucket")
    with pytest.raises(SecretRefused) as caught:
        pipeline.store_memory(store, memory, PERSON)
    assert caught.value.rule and "AKIA" not in str(caught.value)


def test_sensitive_content_is_stored_and_hidden(run_cli: CliRunner) -> None:
    result = run_cli("--json", "remember", "The user was diagnosed with diabetes and takes insulin")
    assert result.code == 0, result.err
    assert result.json()["sensitivity"] == "health"
    memory_id = result.json()["id"]
    control = run_cli("--json", "remember", "The nightly job rotates the logs").json()["id"]
    assert memory_id not in run_cli("recall", "diabetes insulin").out
    for verb in ("brief", "list", "export"):
        shown = run_cli(verb).out
        assert control in shown and memory_id not in shown, verb
    assert memory_id in run_cli("recall", "diabetes insulin", "--include-sensitive").out
    assert memory_id in run_cli("list", "--include-sensitive").out


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "argv",
    [
        ["remember", "   "],
        ["remember", "bell\x07 in the summary"],
        ["remember", "x", "--event-type", "Not A Type"],
        ["remember", "x", "--agent-profile", "a" * 300],
        ["remember", "x", "--workflow-id", "line\nbreak"],
        ["remember", "x", "--salience", "1.5"],
        ["remember", "x", "--confidence", "nan"],
        ["remember", "x", "--expires-at", "next tuesday"],
        ["remember", "x", "--valid-from", "2026-01-02", "--valid-to", "2026-01-01"],
        ["remember", "x", "--scope", "agent"],
        ["remember", "x", "--tag", ""],
        ["forget", "mem_20260101_000000_000000000000", "--mode", "delete", "--reason", "x"],
        ["forget", "mem_20260101_000000_000000000000", "--mode", "redact", "--reason", " "],
        ["show", "mem_nope"],
        ["supersede", "mem_a", "mem_b", "--reason", "x"],
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    run_cli: CliRunner, project_root: Path, argv: list[str]
) -> None:
    result = run_cli(*argv)
    assert result.code != 0
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert count(project_root) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["remember", "x", "--ring", "bark"],
        ["remember", "x", "--scope", "planet"],
        ["remember", "x", "--sensitivity", "spicy"],
        ["remember", "x", "--retention", "forever"],
        ["forget", "mem_x", "--mode", "shred", "--reason", "x"],
    ],
)
def test_unknown_enum_values_are_rejected_by_the_parser(
    run_cli: CliRunner, project_root: Path, argv: list[str]
) -> None:
    result = run_cli(*argv)
    assert result.code == 2
    assert "invalid choice" in result.err
    assert count(project_root) == 0


def test_ten_megabyte_summary_is_refused(project_root: Path) -> None:
    huge = b"a" * (10 * 1024 * 1024)
    done = run_process("--root", str(project_root), "remember", "-", input=huge)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: ") and done.stderr.count(b"\n") == 1
    assert count(project_root) == 0


def test_over_limit_summary_is_refused(store: Store, project_id: str) -> None:
    with pytest.raises(UsageError, match="limit"):
        pipeline.store_memory(store, make_memory(project_id, "w " * 5000), PERSON)


def test_id_collision_is_a_conflict(store: Store, project_id: str) -> None:
    first = make_memory(project_id, "first")
    pipeline.store_memory(store, first, PERSON)
    with pytest.raises(Conflict):
        pipeline.store_memory(store, make_memory(project_id, "second", id=first.id), PERSON)
    assert ids(store.root) == {first.id}


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200b", "\t"])
def test_invisible_characters_are_refused_in_the_summary(
    run_cli: CliRunner, project_root: Path, char: str
) -> None:
    result = run_cli("remember", f"Deploy on {char}Fridays")
    assert result.code == 2 and "control characters" in result.err
    assert count(project_root) == 0


@pytest.mark.parametrize(
    "variable", ["TREE_RING_SESSION_ID", "TREE_RING_WORKFLOW_ID", "TREE_RING_AGENT_PROFILE"]
)
def test_an_agents_capture_refuses_a_variable_naming_another_partition_as_remember_does(
    run_cli: CliRunner, project_root: Path, variable: str
) -> None:
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1", variable: "someone-else"}
    # Without identity flags (a flag comes before a variable, for every verb).
    bare = list(CAPTURE)
    for flag in ("--agent-profile", "--workflow-id", "--session-id"):
        at = bare.index(flag)
        del bare[at : at + 2]
    for argv in (bare, ["remember", "Never run migrations during deploys"]):
        result = run_cli(*argv, environ=agent)
        assert result.code != 0 and "an agent works in its" in result.err, (argv, result.err)
    assert count(project_root) == 0
    # Without it, the harness's own session: the command the hook gave stores.
    done = run_cli("--json", *bare, environ={"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"})
    assert done.code == 0, done.err
    shown = run_cli("--json", "show", done.json()["id"]).json()["memory"]
    said = (shown["agent_profile"], shown["workflow_id"], shown["session_id"])
    assert said == ("claude-code", "s1", "s1")
