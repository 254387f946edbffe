"""Every client gives the same answer on the same store: status and recall.

One project holds live, pending, expired, forgotten and sensitive rows, and
the person's user store holds global memory. `status` and `recall` are asked
of the CLI (`--json`), the MCP server's tools, the terminal UI's session (its
header's figures, its search), the web view's pages (the status page's
figures, the memories page's search) and the library's front (`api.Project`)
itself; the clients render, so their figures and their hits are the front's,
user store included.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import cli_runner
from mcp_support import CLAUDE_ENV, claude

from tree_ring.api.project import Project
from tree_ring.model.project import store_path
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State
from tree_ring.web import pages
from tree_ring.web import status as status_page
from tree_ring.web.site import Site

QUERY = "deploy retries"


@pytest.fixture
def world(project_root: Path, tmp_path: Path) -> dict[str, Any]:
    home = tmp_path / "me"
    home.mkdir()
    person = {"TREE_RING_USER_HOME": str(home)}
    run = cli_runner(project_root)

    def cli(*args: str, environ: dict[str, str] | None = None) -> dict[str, Any]:
        done = run("--json", *args, environ={**person, **(environ or {})})
        assert done.code == 0, done.err
        return json.loads(done.out)

    shared = cli("remember", "The deploy script retries three times before paging")
    cli("remember", "Deploy retries back off by doubling the wait", "--ring", "scar")
    lint = cli("remember", "Lint runs before the deploy", "--expires-at", "2999-01-01T00:00:00Z")
    # Its expiry passes: a write refuses one already past.
    conn = sqlite3.connect(store_path(project_root))
    try:
        with conn:
            conn.execute(
                "UPDATE memories SET expires_at = '2020-01-01T00:00:00.000000Z' WHERE id = ?",
                (lint["id"],),
            )
    finally:
        conn.close()
    gone = cli("remember", "Deploy retries were once five")
    cli("forget", gone["id"], "--mode", "delete", "--reason", "wrong")
    cli("remember", "Deploy retries page the on-call at 3am", "--sensitivity", "private")
    # An agent's shared rule waits for a person.
    agent = {**CLAUDE_ENV}
    cli("remember", "Deploy retries must stay under five", "--scope", "project", environ=agent)
    mine = cli("remember", "I like deploy retries logged verbosely", "--scope", "global")
    return {"cli": cli, "person": person, "shared": shared["id"], "mine": mine["id"]}


def _mcp(project_root: Path, world: dict[str, Any], tool: str, args: dict[str, Any]) -> Any:
    result = claude(project_root, **world["person"]).call(tool, args)
    assert result["ok"] is True, result
    return result


def _project(project_root: Path, world: dict[str, Any], **env: str) -> Project:
    return Project.open(str(project_root), {**world["person"], **env})


def test_status_is_one_answer_across_clients(project_root: Path, world: dict[str, Any]) -> None:
    from_cli = world["cli"]("status")
    from_mcp = _mcp(project_root, world, "status", {})
    with _project(project_root, world) as project:
        from_front = project.status()
    counts = from_front["memories"]
    # The figures themselves, so a client that counts its own way cannot agree by accident.
    assert (counts["live"], counts["pending"], counts["sensitive"]) == (3, 1, 1)
    assert counts["retired_by_reason"] == {"expired": 1}
    assert from_front["user_store"]["live"] == 1
    for key, value in from_front.items():
        assert from_cli[key] == value, key
        assert from_mcp[key] == value, key
    session = Session(str(project_root), world["person"])
    try:
        state = State()
        session.load(state)
        header = state.dashboard.counts
    finally:
        session.close()
    assert header is not None
    assert (header.live, header.pending, header.sensitive, header.retired, header.user) == (
        counts["live"], counts["pending"], counts["sensitive"], counts["retired"],
        from_front["user_store"]["live"],
    )  # fmt: skip
    site = Site.open(str(project_root), world["person"])
    web = _web_session(site)
    shown = dict(FIGURE.findall(status_page.status_page(site, web, {})))
    assert (shown["live"], shown["pending"], shown["retired"]) == (
        str(counts["live"]), str(counts["pending"]), str(counts["retired"]),
    )  # fmt: skip
    # The rings page counts live as status does; what waits for review apart.
    waiting = counts["pending"] + counts["disputed"]
    live = counts["live"] - counts["sensitive"]  # the sensitive row is live, and hidden there
    said = f"({live} live, {waiting} waiting for review); {counts['sensitive']} sensitive hidden"
    assert said in pages.rings_page(site, web, {})


def test_recall_is_one_answer_across_clients(project_root: Path, world: dict[str, Any]) -> None:
    agent = {**CLAUDE_ENV}
    from_cli = world["cli"]("recall", QUERY, "--limit", "10", environ=agent)
    from_mcp = _mcp(project_root, world, "recall", {"query": QUERY, "limit": 10})
    with _project(project_root, world, **agent) as project:
        from_front = project.recall(QUERY, limit=10)
    expected = [(f.memory.id, f.store) for f in from_front]
    assert {world["shared"], world["mine"]} <= {memory_id for memory_id, _ in expected}
    assert (world["mine"], "user") in expected
    assert [(i["id"], i["store"]) for i in from_cli["items"]] == expected
    assert [(i["id"], i["store"]) for i in from_mcp["results"]] == expected


def test_a_persons_recall_is_one_answer_in_the_cli_the_tui_and_the_web(
    project_root: Path, world: dict[str, Any]
) -> None:
    from_cli = world["cli"]("recall", QUERY, "--limit", "10")
    expected = {(i["id"], i["store"]) for i in from_cli["items"]}
    assert (world["mine"], "user") in expected
    session = Session(str(project_root), world["person"])
    try:
        state = State(view="search", query=QUERY)
        session.load(state)
    finally:
        session.close()
    tui = {(i.key, "user" if i.note.startswith("you; ") else "project") for i in state.items}
    # The screen lists what waits for review too, labelled, as `--include-unreviewed` does.
    unreviewed = world["cli"]("recall", QUERY, "--limit", "10", "--include-unreviewed")
    assert tui == {(i["id"], i["store"]) for i in unreviewed["items"]} > expected
    site = Site.open(str(project_root), world["person"])
    html = pages.memories_page(site, _web_session(site), {"q": QUERY})
    web = {
        (memory_id, "user" if mark == "you" else "project") for memory_id, mark in HIT.findall(html)
    }
    assert web == expected


FIGURE = re.compile(r'<(?:span|a href="[^"]*") id="([\w-]+)">([^<]*)(?=<)')
HIT = re.compile(
    r"<tr><td>(?:<a href=\"/memory\?id=)?(mem_\w+)[^<]*(?:</a>)?</td>"
    r"(?:<td[^>]*>.*?</td>){6}<td>([^<]*)</td><td>[\d.]+</td></tr>"
)


def _web_session(site: Site) -> Any:
    session = site.session(site.new_session())
    assert session is not None
    return session
