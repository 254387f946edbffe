"""A consolidation and a source found wrong after it was written.

A person's dispute in review stops believing the source: like the source's
other retirements it retires every live summary citing it, audited with the
source's id, so neither the brief nor recall goes on stating it. An agent's
refutation is a claim and retires nothing: the summary stays, its line in the
brief, `recall` and `list` marked with the refutation, naming the source,
until a person decides. Their approval takes the mark away; a rejection or
their own refutation retires the summary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner
from mcp_support import claude

from tree_ring.model.identity import Identity
from tree_ring.read import brief, recall
from tree_ring.review import queue
from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.upkeep import consolidate

PIPELINE = "Deltaforce uses the blue deployment pipeline always"
CACHES = "Echoline caches are flushed at noon daily"
AGENT_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
WHY = "caches flushed at midnight now"


def consolidated(run_cli: CliRunner) -> tuple[str, str, str]:
    """Two decisions and their accepted summary: (pipeline, caches, summary)."""
    ids = [
        run_cli("--json", "remember", text, "--event-type", "decision").json()["id"]
        for text in (PIPELINE, CACHES)
    ]
    made = run_cli("--json", "consolidate", "--period-type", "manual").json()
    (summary,) = [item["summary_id"] for item in made["items"]]
    return ids[0], ids[1], summary


def retirements(store: Store, summary: str) -> list[dict[str, object]]:
    return [
        json.loads(str(r[0]))
        for r in store.query(
            "SELECT detail FROM audit_log WHERE action = 'retire' AND target = ?", (summary,)
        )
    ]


def recalled(run_cli: CliRunner, query: str) -> dict[str, list[str]]:
    """Each id `recall --json` returns, with its `disputed` notes."""
    found = run_cli("--json", "recall", query).json()
    return {item["id"]: item["disputed"] for item in found["items"]}


def fenced(text: str) -> list[str]:
    return text.split(brief.BEGIN)[1].split(brief.END)[0].strip().splitlines()


def test_a_persons_dispute_retires_the_summary(
    run_cli: CliRunner, store: Store, identity: Identity
) -> None:
    pipeline, caches, summary = consolidated(run_cli)
    assert run_cli("review", "dispute", pipeline, "--reason", "not sure anymore").code == 0
    gone = rows.get(store.db, summary)
    assert gone.retired_at is not None and gone.valid_to is not None
    (entry,) = retirements(store, summary)
    assert (entry["source"], entry["reason"]) == (
        pipeline,
        f"its source {pipeline} was disputed in review",
    )
    assert audit.verify(store.db).ok
    # The disputed source is stated nowhere as a live memory; the other stays.
    shown = brief.build_brief(store, identity)
    assert set(shown.ids) == {caches}
    assert PIPELINE not in shown.text
    assert recalled(run_cli, "deployment pipeline") == {}
    assert recalled(run_cli, "caches flushed") == {caches: []}
    assert {h.memory.id for h in recall.recall(store, identity, "deployment pipeline")} == set()
    # A person approves it again: it is believed, the summary stays retired,
    # and the next run summarises what is live.
    queue.approve(store, pipeline, actor=PERSON)
    assert set(brief.build_brief(store, identity).ids) == {pipeline, caches}
    assert rows.get(store.db, summary).retired_at is not None
    report = consolidate.consolidate(store, identity.project, "manual", actor=PERSON)
    (again,) = report.to_dict()["written"]
    assert set(brief.build_brief(store, identity).ids) == {again}
    assert PIPELINE in rows.get(store.db, again).summary


def test_an_agents_refutation_marks_the_summary_stating_it(
    run_cli: CliRunner, store: Store, identity: Identity
) -> None:
    pipeline, caches, summary = consolidated(run_cli)
    assert run_cli("refute", caches, "--reason", WHY, environ=AGENT_ENV).code == 0
    note = f'its source {caches} disputed by claude-code: "{WHY}"'
    # The summary stays, accepted, and says its source is disputed.
    kept = rows.get(store.db, summary)
    assert (kept.retired_at, kept.trust) == (None, "accepted")
    shown = brief.build_brief(store, identity)
    assert shown.ids == (summary,)
    (line,) = fenced(shown.text)
    assert f"({note})" in line
    assert f"({note})" in run_cli("brief").out
    assert recalled(run_cli, "caches flushed") == {summary: [note]}
    assert recalled(run_cli, "deployment pipeline") == {summary: [note], pipeline: []}
    assert f"  ({note})" in run_cli("recall", "caches flushed").out
    listed = {ln.split()[0]: ln for ln in run_cli("list").out.splitlines()}
    assert set(listed) == {summary, pipeline}
    assert listed[summary].endswith(f"  ({note})")
    assert "disputed" not in listed[pipeline]
    # A view of the past is not marked with what is believed now.
    # (The refuted source was believed then too: it was refuted later.)
    past = run_cli("--json", "recall", "caches flushed", "--as-of", kept.created_at).json()
    assert {item["id"]: item["disputed"] for item in past["items"]} == {summary: [], caches: []}


def test_the_mcp_recall_names_the_disputed_source(project_root: Path, run_cli: CliRunner) -> None:
    _, caches, summary = consolidated(run_cli)
    pipe = claude(project_root)
    assert pipe.call("recall", {"query": "caches flushed"})["results"][0]["disputed"] is None
    pipe.call("refute", {"id": caches, "reason": WHY})
    (hit,) = pipe.call("recall", {"query": "caches flushed"})["results"]
    assert (hit["id"], hit["disputed"]) == (
        summary,
        f'its source {caches} disputed by claude-code: "{WHY}"',
    )


@pytest.mark.parametrize("decision", ["approve", "reject", "refute"])
def test_a_persons_decision_leaves_the_summary_consistent(
    run_cli: CliRunner, store: Store, identity: Identity, decision: str
) -> None:
    pipeline, caches, summary = consolidated(run_cli)
    run_cli("refute", caches, "--reason", WHY, environ=AGENT_ENV)
    if decision == "refute":
        assert run_cli("refute", caches, "--reason", "checked: midnight").code == 0
    else:
        assert run_cli("review", decision, caches, "--reason", "checked").code == 0
    shown = brief.build_brief(store, identity)
    assert "disputed" not in shown.text
    if decision == "approve":
        # It was right: the summary stands, unmarked.
        assert rows.get(store.db, summary).retired_at is None
        assert shown.ids == (summary,)
        assert recalled(run_cli, "caches flushed") == {summary: [], caches: []}
        assert retirements(store, summary) == []
        return
    # Found wrong: the summary retires with it, naming it.
    assert rows.get(store.db, summary).retired_at is not None
    assert [e["source"] for e in retirements(store, summary)] == [caches]
    assert set(shown.ids) == {pipeline}
    assert CACHES not in shown.text
    assert recalled(run_cli, "caches flushed") == {}
