"""An agent's list, show, export and forget see exactly what its recall sees;
a person at the terminal sees every partition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner, make_memory
from governance_support import TOKEN_VAR, enable

from tree_ring.model.record import Memory
from tree_ring.store.db import Store
from tree_ring.write import bulk

CLAUDE_A = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sA"}
CODEX_B = {"CODEX_THREAD_ID": "sB"}
MISSING = "mem_20990101_000000_000000000000"


def partitions(project_id: str) -> dict[str, Memory]:
    """One row per partition, all holding the word 'harbour'."""

    def row(name: str, **fields: str) -> Memory:
        return make_memory(project_id, f"The harbour note of {name}.", **fields)

    return {
        "shared": row("everyone"),
        "global": row("the whole team", scope="global"),
        "claude agent": row("claude", scope="agent", agent_profile="claude-code"),
        "claude A session": row("session A", scope="session", session_id="sA", workflow_id="sA"),
        "claude A workflow": row("workflow A", scope="workflow", workflow_id="sA"),
        "claude C session": row("session C", scope="session", session_id="sC", workflow_id="sC"),
        "claude subagent": row("a subagent", scope="agent", agent_profile="claude-code:Explore:1"),
        "codex agent": row("codex", scope="agent", agent_profile="codex", session_id="sB"),
        "codex B session": row("session B", scope="session", session_id="sB", workflow_id="sB"),
        "other project": make_memory("another-project", "The harbour note of elsewhere."),
    }


SEES = {
    "claude A": {"shared", "global", "claude agent", "claude A session", "claude A workflow"},
    "codex B": {"shared", "global", "codex agent", "codex B session"},
    "person": {
        "shared",
        "global",
        "claude agent",
        "claude A session",
        "claude A workflow",
        "claude C session",
        "claude subagent",
        "codex agent",
        "codex B session",
    },
}
CALLERS = {"claude A": CLAUDE_A, "codex B": CODEX_B, "person": {}}


@pytest.fixture
def rows(store: Store, project_id: str) -> dict[str, Memory]:
    made = partitions(project_id)
    bulk.insert_many(store, made.values(), PERSON)
    return made


def ids_of(rows: dict[str, Memory], names: set[str]) -> set[str]:
    return {rows[name].id for name in names}


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_list_and_export_see_what_recall_sees(
    run_cli: CliRunner, rows: dict[str, Memory], caller: str
) -> None:
    environ = CALLERS[caller]
    listed = run_cli("--json", "list", environ=environ)
    assert listed.code == 0, listed.err
    assert {m["id"] for m in listed.json()["items"]} == ids_of(rows, SEES[caller])
    exported = run_cli("export", environ=environ)
    assert exported.code == 0, exported.err
    lines = [json.loads(line) for line in exported.out.splitlines()]
    assert {r["id"] for r in lines if "record" not in r} == ids_of(rows, SEES[caller])
    if caller != "person":
        recalled = run_cli("--json", "recall", "harbour note", "--limit", "50", environ=environ)
        assert {r["id"] for r in recalled.json()["items"]} == ids_of(rows, SEES[caller])


@pytest.mark.parametrize("caller", ["claude A", "codex B"])
def test_show_outside_the_partitions_is_no_memory(
    run_cli: CliRunner, rows: dict[str, Memory], caller: str
) -> None:
    environ = CALLERS[caller]
    missing = run_cli("--json", "show", MISSING, environ=environ)
    assert missing.code == 1 and missing.err.count("\n") == 1
    for name, memory in rows.items():
        shown = run_cli("--json", "show", memory.id, environ=environ)
        if name in SEES[caller]:
            assert shown.code == 0 and shown.json()["memory"]["id"] == memory.id
        else:
            # The same words as for an id nobody has: nothing says the row is there.
            assert shown.code == missing.code and shown.out == ""
            assert shown.err.replace(memory.id, "ID") == missing.err.replace(MISSING, "ID")
    # A person sees every row, whoever wrote it.
    for name in SEES["person"]:
        assert run_cli("--json", "show", rows[name].id).json()["memory"]["id"] == rows[name].id


def test_an_agent_cannot_widen_its_view_by_naming_another_partition(
    run_cli: CliRunner, rows: dict[str, Memory]
) -> None:
    for flags in (
        ("--session-id", "sA"),
        ("--workflow-id", "sA"),
        ("--agent-profile", "claude-code"),
    ):
        for verb in ("list", "export"):
            done = run_cli(verb, *flags, environ=CODEX_B)
            assert done.code == 2 and done.out == "" and "harness" in done.err
        recalled = run_cli("recall", "harbour", *flags, environ=CODEX_B)
        assert recalled.code == 2 and recalled.out == ""
    shown = run_cli("show", rows["claude A session"].id, "--session-id", "sA", environ=CODEX_B)
    assert shown.code == 2 and shown.out == ""
    # Its own partitions named outright, and a subagent of its harness, are fine.
    own = run_cli("--json", "list", "--session-id", "sB", environ=CODEX_B)
    assert {m["id"] for m in own.json()["items"]} == ids_of(rows, SEES["codex B"])
    sub = run_cli("--json", "list", "--agent-profile", "claude-code:Explore:1", environ=CLAUDE_A)
    assert {m["id"] for m in sub.json()["items"]} == ids_of(
        rows, SEES["claude A"] - {"claude agent"} | {"claude subagent"}
    )


def test_export_leaves_tombstones_to_a_person(run_cli: CliRunner, rows: dict[str, Memory]) -> None:
    forgotten = run_cli("forget", rows["codex B session"].id, "--mode", "delete", "--reason", "x")
    assert forgotten.code == 0, forgotten.err
    person = [json.loads(line) for line in run_cli("export").out.splitlines()]
    agent = [json.loads(line) for line in run_cli("export", environ=CLAUDE_A).out.splitlines()]
    assert any(r.get("record") == "content_tombstone" for r in person)
    assert not any("record" in r for r in agent)


def test_list_filters_partitions_before_the_limit(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    old = "2020-01-01T00:00:00.000000Z"
    visible = make_memory(project_id, "The one row session A sees.", created_at=old, valid_from=old)
    hidden = [
        make_memory(project_id, f"Codex note {i}.", scope="agent", agent_profile="codex")
        for i in range(200)
    ] + [
        make_memory(project_id, f"Session C note {i}.", scope="session", session_id="sC")
        for i in range(200)
    ]
    bulk.insert_many(store, [visible, *hidden], PERSON)
    listed = run_cli("--json", "list", "--limit", "1", environ=CLAUDE_A).json()["items"]
    assert {m["id"] for m in listed} == {visible.id}
    # A person's page of one is the newest row of any partition.
    assert {m["id"] for m in run_cli("--json", "list", "--limit", "1").json()["items"]} != {
        visible.id
    }


def test_coordinated_mode_takes_the_profile_from_the_harness(
    run_cli: CliRunner, project_root: Path
) -> None:
    enable(run_cli)
    base = ("remember", "Worker result for the harbour", "--scope", "agent")
    # The model names another profile: refused before the policy is asked.
    claimed = run_cli(*base, "--agent-profile", "w1", environ=CLAUDE_A)
    assert claimed.code == 2 and "harness" in claimed.err and claimed.err.count("\n") == 1
    as_env = run_cli(*base, environ={**CLAUDE_A, "TREE_RING_AGENT_PROFILE": "codex"})
    assert as_env.code == 2
    # Its own harness partition is the ordinary write; a person at the terminal
    # names the profile they work as.
    own = run_cli("--json", *base, environ=CLAUDE_A)
    assert own.code == 0, own.err
    shown = run_cli("--json", "show", own.json()["id"]).json()["memory"]
    assert shown["agent_profile"] == "claude-code"
    person = run_cli("--json", *base, "--agent-profile", "w1")
    assert run_cli("--json", "show", person.json()["id"]).json()["memory"]["agent_profile"] == "w1"
    shared = run_cli("remember", "Shared harbour rule", "--scope", "project", environ=CLAUDE_A)
    assert shared.code == 1 and TOKEN_VAR in shared.err
