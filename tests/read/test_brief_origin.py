"""Each brief line says where its row came from, from the row's stored fields."""

from __future__ import annotations

import json
from pathlib import Path

from governance_support import CLAUDE, CODEX, remember, write
from helpers import PERSON, CliRunner, make_memory

from tree_ring.read import brief
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.write import bulk

SUBAGENT = "claude-code:Explore:0123456789abcdef"


def stored(store: Store, memory_id: str) -> str:
    return brief.line(rows.get(store.db, memory_id))


def origin_of(line: str) -> str:
    return line.rsplit("(", 1)[1].rstrip(")").split("; ")[1]


def test_each_origin_is_labelled_and_no_agent_row_is_manual(
    run_cli: CliRunner, store: Store, project_id: str, project_root: Path
) -> None:
    capture = ("capture", "Check the lockfile first", "--event-type", "lesson", "--ring", "cambium")
    capture += ("--project", project_id, "--agent-profile", SUBAGENT, "--workflow-id", "s1")
    capture += (
        "--session-id",
        "s1",
        "--operation-id",
        "auto-0123456789ab-1",
        "--source-ref",
        "session:s1",
    )
    path = project_root / "in.jsonl"
    path.write_text(json.dumps({"summary": "Imported harbour fact", "event_type": "note"}) + "\n")
    assert run_cli("import", str(path)).code == 0
    [imported] = [
        m["id"] for m in run_cli("--json", "list").json()["items"] if "Imported" in m["summary"]
    ]
    synced = {
        kind: make_memory(project_id, f"A rule from {kind}", source_type=kind)
        for kind in ("dox", "revolve")
    }
    consolidated = make_memory(
        project_id, "Two notes in one", source_type="consolidation", origin="tree-ring"
    )
    bulk.insert_many(store, [*synced.values(), consolidated], PERSON)
    made = {
        "person": remember(run_cli, "The person's harbour note"),
        "claude-code session s1": remember(run_cli, "Claude's harbour note", environ=CLAUDE),
        "codex session cx-7": remember(run_cli, "Codex's harbour note", environ=CODEX),
        "claude-code subagent Explore session s1": write(run_cli, *capture, environ=CLAUDE)["id"],
        "import": imported,
        "dox": synced["dox"].id,
        "revolve": synced["revolve"].id,
        "consolidation": consolidated.id,
    }
    labels = {label: origin_of(stored(store, memory_id)) for label, memory_id in made.items()}
    assert labels == {label: f"origin: {label}" for label in made}
    assert not any("manual" in stored(store, memory_id) for memory_id in made.values())


def test_an_agents_own_brief_names_its_harness_not_manual(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "Use the blue runner pool", environ=CLAUDE)
    text = run_cli("--json", "brief", environ=CLAUDE).json()["text"]
    assert f"({memory_id}; origin: claude-code session s1)" in text
    assert "manual" not in text


def test_long_identifiers_keep_lines_and_brief_within_budget(store: Store, project_id: str) -> None:
    odd = "claude-code:" + "x)---\n" * 40 + ":" + "f" * 16
    memories = [
        make_memory(
            project_id,
            "word " * 400,
            origin="claude-code",
            agent_profile=odd,
            origin_session="s" * 128,
            source_ref="r" * 1000,
            salience=1.0 - i / 100,
        )
        for i in range(8)
    ]
    for memory in memories:
        line = brief.line(memory)
        assert len(line.encode()) <= brief.LINE_BYTES and "\n" not in line and "---" not in line
    result = brief.render(project_id, memories)
    assert len(result.text.encode()) <= brief.MAX_BYTES and len(result.ids) == 8
