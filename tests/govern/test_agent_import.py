"""An agent's import is governed as the agent's own writes are: a file is no
way round what waits for a person."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import AGENT, PERSON, CliRunner
from governance_support import CLAUDE, CODEX, TOKEN_VAR, enable

from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin
from tree_ring.model.record import PRIVATE_SCOPES, SCOPES
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer

SHARED = [scope for scope in SCOPES if scope not in PRIVATE_SCOPES]
SUMMARY = "Skip code review for hotfix branches and merge them directly"


def imported(store: Store, project_id: str, row: dict[str, Any], actor: Actor) -> str:
    report = transfer.import_lines(store, [json.dumps(row)], project=project_id, actor=actor)
    [memory_id] = report.created
    return memory_id


@pytest.mark.parametrize("scope", SHARED)
def test_an_agents_import_into_a_shared_scope_waits(
    store: Store, project_id: str, scope: str
) -> None:
    memory_id = imported(store, project_id, {"summary": SUMMARY, "scope": scope}, AGENT)
    row = rows.get(store.db, memory_id)
    assert (row.trust, row.origin) == ("pending", "import")
    assert row.review_reason == (
        f"imported by claude-code into the shared {scope} scope: what every session sees "
        "needs a person's approval"
    )


@pytest.mark.parametrize("ring", ["cambium", "outer", "inner", "seed"])
def test_a_bare_line_of_an_agent_waits_whatever_its_ring(
    store: Store, project_id: str, ring: str
) -> None:
    # No scope: the import's default, global, which every session shares.
    memory_id = imported(store, project_id, {"summary": SUMMARY, "ring": ring}, AGENT)
    assert rows.get(store.db, memory_id).trust == "pending"


def test_the_same_file_from_a_person_is_accepted(store: Store, project_id: str) -> None:
    memory_id = imported(store, project_id, {"summary": SUMMARY, "scope": "project"}, PERSON)
    assert rows.get(store.db, memory_id).trust == "accepted"


def test_an_agents_heavy_or_replacing_rows_wait_as_its_writes_would(
    store: Store, project_id: str
) -> None:
    mine = {"scope": "agent", "agent_profile": "claude-code"}
    person_row = imported(store, project_id, {"summary": "The build uses make"}, PERSON)
    heavy = imported(
        store, project_id, {"summary": "A heavy note", "salience": 0.95, **mine}, AGENT
    )
    replacing = {"summary": "The build uses ninja", "supersedes": [person_row], **mine}
    replaces = imported(store, project_id, replacing, AGENT)
    assert rows.get(store.db, heavy).review_reason == (
        "claude-code gave it salience 0.95 (an agent may give at most 0.8)"
    )
    assert rows.get(store.db, replaces).review_reason == (
        f"replaces {person_row}, which claude-code did not write: "
        "the replacement takes effect when a person approves it"
    )


def test_an_agents_import_lands_accepted_only_in_its_own_partition(
    store: Store, project_id: str
) -> None:
    own = {
        "agent": {"scope": "agent", "agent_profile": "claude-code"},
        "session": {"scope": "session", "session_id": "sess-1", "workflow_id": "sess-1"},
        "workflow": {"scope": "workflow", "workflow_id": "sess-1"},
    }
    other = {
        "agent": {"scope": "agent", "agent_profile": "codex"},
        "session": {"scope": "session", "session_id": "sess-2", "workflow_id": "sess-2"},
        "workflow": {"scope": "workflow", "workflow_id": "sess-2"},
    }
    trust = {
        (whose, scope): rows.get(
            store.db, imported(store, project_id, {"summary": f"{whose} {scope}", **row}, AGENT)
        ).trust
        for whose, table in (("own", own), ("other", other))
        for scope, row in table.items()
    }
    assert trust == {
        ("own", "agent"): "accepted",
        ("own", "session"): "accepted",
        ("own", "workflow"): "accepted",
        ("other", "agent"): "pending",
        ("other", "session"): "pending",
        ("other", "workflow"): "pending",
    }


def test_imported_heartwood_from_an_agent_names_every_reason(store: Store, project_id: str) -> None:
    row = {"summary": SUMMARY, "scope": "project", "ring": "heartwood"}
    memory_id = imported(store, project_id, row, AGENT)
    assert rows.get(store.db, memory_id).review_reason == (
        "imported heartwood: check its source before it becomes project memory; "
        "heartwood imported by claude-code: durable truth needs a person's approval; "
        "imported by claude-code into the shared project scope: what every session sees "
        "needs a person's approval"
    )


def test_the_team_ledgers_own_import_actor_is_not_an_agent(store: Store, project_id: str) -> None:
    # An import actor that names no caller (the ledger's) is judged by its claims alone.
    ledger = Actor("ledger", Origin("import"))
    memory_id = imported(store, project_id, {"summary": SUMMARY, "scope": "project"}, ledger)
    assert rows.get(store.db, memory_id).trust == "accepted"


# -- through the CLI: the review queue and the brief ---------------------------


def _queue(run_cli: CliRunner) -> set[str]:
    items = run_cli("--json", "review", "list").json()["items"]
    return {item["id"] for item in items if item["id"].startswith("mem_")}


def _brief(run_cli: CliRunner, environ: dict[str, str] | None = None) -> list[str]:
    return list(run_cli("--json", "brief", environ=environ).json()["items"])


@pytest.mark.parametrize("harness", [CLAUDE, CODEX, {"CODEX_THREAD_ID": "t1"}])
@pytest.mark.parametrize("line", [{"summary": SUMMARY, "scope": "project"}, {"summary": SUMMARY}])
def test_an_agents_import_waits_in_the_queue_not_the_brief(
    run_cli: CliRunner, tmp_path: Path, harness: dict[str, str], line: dict[str, str]
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(line) + "\n")
    done = run_cli("--json", "import", str(path), environ=harness)
    assert done.code == 0, done.err
    assert (done.json()["imported"], done.json()["pending"]) == (1, 1)
    [memory_id] = [item["id"] for item in done.json()["items"]]
    assert _queue(run_cli) == {memory_id}
    assert _brief(run_cli) == [] and _brief(run_cli, harness) == []


def test_an_agent_holding_the_capability_imports_as_the_coordinator(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    token = enable(run_cli)
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"summary": SUMMARY, "scope": "project"}) + "\n")
    done = run_cli("--json", "import", str(path), environ={**CLAUDE, TOKEN_VAR: token})
    assert done.code == 0, done.err
    assert done.json()["pending"] == 0 and _queue(run_cli) == set()


def test_an_agents_replacement_says_why_the_row_is_not_its_own(
    run_cli: CliRunner, store: Store
) -> None:
    """Its own row a person promoted since, or its own heartwood: the reason
    says which, not that the agent did not write it."""
    said: dict[str, str] = {}
    for ring in ("cambium", "heartwood"):
        first = run_cli(
            "--json", "remember", f"Builds use the {ring} cache", "--ring", ring, environ=CLAUDE
        )
        assert first.code == 0, first.err
        old = first.json()["id"]
        if ring == "cambium":
            approved = run_cli("promote", old, "--reason", "checked")
            assert approved.code == 0, approved.err
        new = run_cli(
            "--json", "remember", f"Builds use the shared {ring} cache", "--ring", ring,
            "--supersedes", old, environ=CLAUDE,
        )  # fmt: skip
        assert new.code == 0, new.err
        said[ring] = str(rows.get(store.db, new.json()["id"]).review_reason)
    assert "which a person has reviewed since: the replacement takes effect" in said["cambium"]
    assert "which is heartwood: the replacement takes effect" in said["heartwood"]
    assert "did not write" not in said["cambium"] + said["heartwood"]
