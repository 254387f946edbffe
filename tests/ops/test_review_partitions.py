"""`review list` reads what the caller may read: an agent's queue is of the
rows its recall reads (the shared scopes and its own partitions), with the
requests about those rows; a person's is every partition's. The filter runs
in SQL, before `--limit`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE, CODEX
from helpers import AGENT, CliRunner, make_memory

from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin
from tree_ring.model.record import Link, now_iso
from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State
from tree_ring.web import queue as web_queue
from tree_ring.web.site import Site
from tree_ring.write import requests

CODEX_AGENT = Actor("codex", Origin("codex", "cx-7"))
OTHERS = 300


def seeded(store: Store, project_id: str) -> dict[str, Any]:
    """`OTHERS` waiting rows in codex's partition, all older than the one
    waiting row in claude's (which contradicts the oldest of them), a request
    about one row of each, and one waiting row of the project's."""
    others = [
        make_memory(
            project_id,
            f"The cache lives in tmp number {i}",
            scope="agent",
            agent_profile="codex",
            trust="pending",
            created_at=f"2026-01-01T00:00:00.{i:06d}Z",
        )
        for i in range(OTHERS)
    ]
    mine = make_memory(
        project_id,
        "The cache lives in var",
        scope="agent",
        agent_profile="claude-code",
        trust="pending",
        links=(Link("contradicts", others[0].id),),
        created_at="2026-02-01T00:00:00.000000Z",
    )
    shared = make_memory(
        project_id, "The queue drains hourly", trust="disputed", created_at=now_iso()
    )
    with store.write() as db:
        rows.insert_many(db, [*others, mine, shared])
        at = now_iso()
        mine_asked = requests.ask(db, mine, "redact", "not so", AGENT, at)
        others_asked = requests.ask(db, others[1], "redact", "not so", CODEX_AGENT, at)
    return {
        "others": [m.id for m in others],
        "mine": mine.id,
        "shared": shared.id,
        "mine_asked": mine_asked,
        "others_asked": others_asked,
    }


def review_list(run_cli: CliRunner, *argv: str, environ: dict[str, str] | None = None) -> Any:
    done = run_cli("--json", "review", "list", *argv, environ=environ)
    assert done.code == 0, done.err
    return done.json()


def by_kind(data: Any) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {"memory": set(), "forget_request": set()}
    for item in data["items"]:
        found[item["kind"]].add(item["id"])
    return found


def test_an_agents_queue_is_its_own_however_many_rows_wait_ahead(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    ids = seeded(store, project_id)
    agent = review_list(run_cli, "--limit", "1", environ=CLAUDE)
    assert by_kind(agent) == {"memory": {ids["mine"]}, "forget_request": {ids["mine_asked"]}}
    assert (agent["waiting"], agent["requests"]) == (2, 1)
    person = review_list(run_cli, "--limit", "1")
    assert by_kind(person) == {
        "memory": {ids["others"][0]},
        "forget_request": {ids["mine_asked"], ids["others_asked"]},
    }
    assert (person["waiting"], person["requests"]) == (OTHERS + 2, 2)


def test_an_agents_queue_names_no_row_of_another_partition(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    ids = seeded(store, project_id)
    agent = review_list(run_cli, environ=CLAUDE)
    assert by_kind(agent) == {
        "memory": {ids["mine"], ids["shared"]},
        "forget_request": {ids["mine_asked"]},
    }
    [mine] = [i for i in agent["items"] if i["id"] == ids["mine"]]
    assert mine["contradicts"] == []
    codex = review_list(run_cli, "--limit", str(OTHERS + 2), environ=CODEX)
    assert by_kind(codex) == {
        "memory": {*ids["others"], ids["shared"]},
        "forget_request": {ids["others_asked"]},
    }
    person = review_list(run_cli, "--limit", str(OTHERS + 2))
    [mine] = [i for i in person["items"] if i["id"] == ids["mine"]]
    assert [o["id"] for o in mine["contradicts"]] == [ids["others"][0]]
    out = run_cli("review", "list", environ=CLAUDE).out
    assert "tmp number" not in out and ids["others_asked"] not in out


@pytest.mark.parametrize(("environ", "agent"), [(CLAUDE, True), ({}, False)])
def test_the_terminal_and_web_queues_read_as_their_caller(
    store: Store, project_id: str, project_root: Path, environ: dict[str, str], agent: bool
) -> None:
    ids = seeded(store, project_id)
    if agent:
        expected = {ids["mine"], ids["shared"], ids["mine_asked"]}
    else:
        expected = {*ids["others"], ids["mine"], ids["shared"]}
        expected |= {ids["mine_asked"], ids["others_asked"]}
    terminal = Session(str(project_root), environ)
    try:
        state = State(view="review")
        terminal.load(state)
        assert {i.key for i in state.items} == expected
    finally:
        terminal.close()
    site = Site.open(str(project_root), environ)
    session = site.session(site.new_session())
    assert session is not None
    html = web_queue.review_page(site, session, {})
    every = {*ids["others"], ids["mine"], ids["shared"], ids["mine_asked"], ids["others_asked"]}
    # The page shows the oldest rows first, a page at a time: the agent's all.
    if agent:
        assert {i for i in every if i in html} == expected
    else:
        assert ids["others"][0] in html and ids["others_asked"] in html


@pytest.mark.parametrize(("environ", "agent"), [(CLAUDE, True), ({}, False)])
def test_the_terminals_audit_stream_is_a_persons(
    store: Store, project_id: str, project_root: Path, environ: dict[str, str], agent: bool
) -> None:
    seeded(store, project_id)
    every = {f"audit:{e['seq']}" for e in audit.entries(store.db, limit=200)}
    assert every
    terminal = Session(str(project_root), environ)
    try:
        state = State(view="stream")
        terminal.load(state)
        assert {i.key for i in state.items} == (set() if agent else every)
    finally:
        terminal.close()
