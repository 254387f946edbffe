"""`consolidate` reads what the caller may read: an agent's plan and run cover
the shared scopes and its own partitions, and write nowhere else; a person's
cover every partition. An agent's summary of shared rows is the agent's write
to a shared scope, and waits for a person as that write would."""

from __future__ import annotations

from typing import Any

from governance_support import CLAUDE, CODEX
from helpers import CliRunner, make_memory

from tree_ring.model.record import Memory
from tree_ring.store import rows
from tree_ring.store.db import Store

TEXTS = {
    "claude": ("Claude keeps the lint cache warm", "Claude pins the formatter version"),
    "codex": ("Codex rotates the signing keys weekly", "Codex mirrors the wheels offline"),
    "shared": ("The release branch freezes on Fridays", "The staging database resets nightly"),
}
PARTITIONS = {
    # Each agent's own notes, which it may retire.
    "claude": {"scope": "agent", "agent_profile": "claude-code", "origin": "claude-code"},
    "codex": {"scope": "agent", "agent_profile": "codex", "origin": "codex"},
    "shared": {"scope": "project"},
}


def seeded(store: Store, project_id: str) -> dict[str, set[str]]:
    """Two weighty rows in each agent's partition and two shared ones: one group each."""
    made: dict[str, list[Memory]] = {
        name: [make_memory(project_id, text, **PARTITIONS[name]) for text in texts]
        for name, texts in TEXTS.items()
    }
    with store.write() as db:
        rows.insert_many(db, [m for ms in made.values() for m in ms])
    return {name: {m.id for m in ms} for name, ms in made.items()}


def consolidated(
    run_cli: CliRunner, *argv: str, environ: dict[str, str] | None = None
) -> dict[str, Any]:
    done = run_cli("--json", "consolidate", *argv, environ=environ)
    assert done.code == 0, done.err
    data: dict[str, Any] = done.json()
    return data


def sources(data: dict[str, Any]) -> set[str]:
    return {memory_id for group in data["items"] for memory_id in group["source_ids"]}


def written(store: Store, project_id: str) -> dict[tuple[str, str | None], str]:
    """The summaries on record: (scope, agent profile) -> trust."""
    found = store.conn.execute(
        "SELECT scope, agent_profile, trust FROM memories"
        " WHERE project = ? AND source_type = 'consolidation'",
        (project_id,),
    )
    return {(r["scope"], r["agent_profile"]): r["trust"] for r in found}


def test_an_agents_plan_covers_its_own_partition_and_a_persons_every_one(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    ids = seeded(store, project_id)
    for environ, mine, other in ((CLAUDE, "claude", "codex"), (CODEX, "codex", "claude")):
        plan = consolidated(run_cli, "--dry-run", environ=environ)
        assert sources(plan) == ids[mine] | ids["shared"]
        assert plan["candidates"] == 4
        said = " ".join(str(group["summary"]) for group in plan["items"])
        assert all(text.split()[1] in said for text in TEXTS[mine])
        assert not any(text.split()[1] in said for text in TEXTS[other])
        shown = run_cli("consolidate", "--dry-run", environ=environ)
        assert shown.code == 0, shown.err
        assert not any(text.split()[1] in shown.out for text in TEXTS[other])
    assert (
        sources(consolidated(run_cli, "--dry-run")) == ids["claude"] | ids["codex"] | ids["shared"]
    )


def test_an_agents_run_writes_only_its_own_partition_and_its_shared_summary_waits(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    ids = seeded(store, project_id)
    plan = consolidated(run_cli, "--dry-run", environ=CLAUDE)
    assert {g["group"]["scope"]: g["trust"] for g in plan["items"]} == {
        "agent": "accepted",
        "project": "pending",
    }
    done = consolidated(run_cli, "--retire-sources", environ=CLAUDE)
    assert sources(done) == ids["claude"] | ids["shared"]
    assert written(store, project_id) == {
        ("agent", "claude-code"): "accepted",
        ("project", None): "pending",
    }
    shared = store.conn.execute(
        "SELECT review_reason FROM memories WHERE source_type = 'consolidation' AND scope = ?",
        ("project",),
    ).fetchone()[0]
    assert "shared project scope" in shared
    # Only the sources of its own accepted summary gave way to it.
    assert set(done["retired"]) == ids["claude"]


def test_a_persons_run_writes_every_partitions_summary_accepted(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    ids = seeded(store, project_id)
    done = consolidated(run_cli)
    assert sources(done) == ids["claude"] | ids["codex"] | ids["shared"]
    assert written(store, project_id) == {
        ("agent", "claude-code"): "accepted",
        ("agent", "codex"): "accepted",
        ("project", None): "accepted",
    }
