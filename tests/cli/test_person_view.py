"""A person's recall and list cover every partition, each row labelled with who
wrote it and where it lives; filters narrow the list; an agent's reads stay its own."""

from __future__ import annotations

from pathlib import Path

from conftest import CliRunner, make_memory
from governance_support import CLAUDE, CODEX, remember

from tree_ring.store import rows
from tree_ring.store.db import Store


def test_a_persons_recall_finds_every_partition_labelled(run_cli: CliRunner) -> None:
    mine = remember(run_cli, "The harbour crane needs a permit")
    claude = remember(run_cli, "The harbour crane is booked on Mondays", environ=CLAUDE)
    codex = remember(run_cli, "The harbour crane lifts ten tonnes", environ=CODEX)
    found = run_cli("--json", "recall", "harbour crane").json()["items"]
    labels = {r["id"]: (r["origin"], r["partition"], r["store"]) for r in found}
    assert labels == {
        mine: ("person", "project", "project"),
        claude: ("claude-code", "claude-code session s1 · agent claude-code", "project"),
        codex: ("codex", "codex session cx-7 · agent codex", "project"),
    }
    text = run_cli("recall", "harbour crane").out
    assert "(codex session cx-7 · agent codex;" in text
    # An agent's recall is what it was: shared scopes and its own partition.
    agent = run_cli("--json", "recall", "harbour crane", environ=CODEX).json()["items"]
    assert {r["id"] for r in agent} == {mine, codex}
    # A person naming a partition sees what that partition sees.
    named = run_cli("--json", "recall", "harbour crane", "--agent-profile", "claude-code")
    assert {r["id"] for r in named.json()["items"]} == {mine, claude}


def test_list_filters_by_origin_time_session_agent_and_mine(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    mine = remember(run_cli, "Person note about the quay")
    claude = remember(run_cli, "Claude note about the quay", environ=CLAUDE)
    codex = remember(run_cli, "Codex note about the quay", environ=CODEX)
    old = make_memory(
        project_id,
        "An old codex note",
        scope="agent",
        created_at="2020-01-01T00:00:00.000000Z",
        valid_from="2020-01-01T00:00:00.000000Z",
    ).replace(origin="codex", agent_profile="codex", session_id="cx-1", origin_session="cx-1")
    with Store.open(project_root) as store, store.write() as db:
        rows.insert(db, old)

    def listed(*args: str) -> set[str]:
        return {m["id"] for m in run_cli("--json", "list", *args).json()["items"]}

    assert listed() == {mine, claude, codex, old.id}
    assert listed("--origin", "codex") == {codex, old.id}
    assert listed("--mine") == {mine}
    assert listed("--since", "2025-01-01T00:00:00Z") == {mine, claude, codex}
    assert listed("--session-id", "cx-7") == {codex}
    assert listed("--agent-profile", "claude-code") == {claude}
    assert listed("--origin", "codex", "--since", "2025-01-01T00:00:00Z") == {codex}
    text = run_cli("list", "--origin", "claude-code").out
    assert "(claude-code session s1 · agent claude-code)" in text
    assert run_cli("list", "--since", "last tuesday").code == 2
    assert run_cli("list", "--origin", "robot").code == 2
