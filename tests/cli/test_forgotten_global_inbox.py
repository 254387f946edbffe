"""What the person forgot in their user store stays out of the inbox, the
findings, the rings, `stale` and the requests to forget.

The inbox (the CLI's, the terminal UI's, the web view's) and `status`'s
count of it leave out an agent's row whose content the person forgot, before
any limit, as `list` leaves it out, and so does `stale`; `audit findings`
and a request to forget name such a row with its words withheld, as the
review queue names it; the rings picture (the web view's and `report
--html`) keeps its mark without its words. The fixtures
and helpers are those of `test_forgotten_global_copies.py`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import test_forgotten_global_copies as copies
from conftest import CliRunner
from helpers import make_memory
from test_forgotten_global_copies import KEPT, MANY, TEXT, _json, _remember
from web_support import serving

from tree_ring.model import project
from tree_ring.model.record import format_time
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State
from tree_ring.web import app as web

home = copies.home

IDS = re.compile(r"mem_\d{8}_\d{6}_[0-9a-f]{12}")
AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
WITHHELD = "[withheld: forgotten content]"


def _agent_rows(run: CliRunner, home: dict[str, str], project_root: Path) -> dict[str, str]:
    """An agent's note of TEXT in its partition, its proposal of TEXT to the
    project, and its note of KEPT; then the person forgets a global note of
    TEXT from outside the project, so the first two stay in the store, hidden."""
    agent = {**home, **AGENT}
    rows_ = {
        "note": _remember(run, agent, TEXT),
        "proposal": _remember(run, agent, TEXT, "--scope", "project"),
        "kept": _remember(run, agent, KEPT),
    }
    note = _remember(run, home, TEXT, "--scope", "global")
    copies.forget_outside(project_root, home, note)
    return rows_


def _inbox_ids(data: dict[str, object]) -> set[str]:
    items = data["items"]
    assert isinstance(items, list)
    return {str(i["memory"]["id"] if "memory" in i else i["id"]) for i in items}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]


def test_the_inbox_leaves_out_what_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    made = _agent_rows(run_cli, home, project_root)
    peeked = _json(run_cli, home, "inbox", "--peek")
    assert _inbox_ids(peeked) == {made["kept"]}
    assert (peeked["total"], peeked["shown"], peeked["withheld"]) == (1, 1, 0)
    text = run_cli("inbox", "--peek", environ=home)
    assert text.code == 0 and "wifi" not in text.out
    assert set(IDS.findall(text.out)) == {made["kept"]}
    assert _json(run_cli, home, "status")["inbox"] == 1
    # Listing marks the shown row and the left-out ones seen: nothing is left.
    assert _inbox_ids(_json(run_cli, home, "inbox")) == {made["kept"]}
    assert run_cli("inbox", environ=home).out == "inbox: nothing new since you last looked\n"
    assert _json(run_cli, home, "status")["inbox"] == 0


def test_the_inbox_of_the_terminal_ui_and_the_web_view_leave_it_out(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    made = _agent_rows(run_cli, home, project_root)
    screen = Session(str(project_root), home)
    try:
        state = State(view="inbox")
        screen.load(state)
        assert {i.key for i in state.items} == {made["kept"]}
        assert screen.totals["inbox"] == 1
        assert all("wifi" not in i.memory.summary for i in state.items if i.memory is not None)
    finally:
        screen.close()
    with serving(project_root, home) as client:
        client.login()
        page = client.get("/inbox")
        assert page.status == 200 and "wifi" not in page.body
        assert set(IDS.findall(page.body)) == {made["kept"]}


def test_audit_findings_withhold_the_words_of_what_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    made = _agent_rows(run_cli, home, project_root)
    data = _json(run_cli, home, "audit", "findings", "--audit-type", "all")
    items = data["items"]
    assert isinstance(items, list)
    review = {str(i["id"]): i for i in items if i["type"] == "review"}  # pyright: ignore[reportUnknownVariableType]
    assert set(review) == {made["proposal"]}
    assert review[made["proposal"]]["summary"] == WITHHELD
    assert "wifi" not in str(data)
    text = run_cli("audit", "findings", "--audit-type", "all", environ=home)
    assert text.code == 0 and "wifi" not in text.out
    assert set(IDS.findall(text.out)) == {made["proposal"]}


def test_the_rings_keep_each_mark_without_the_words_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    made = _agent_rows(run_cli, home, project_root)
    with serving(project_root, home) as client:
        client.login()
        page = client.get("/")
    assert page.status == 200 and "wifi" not in page.body
    titles = re.findall(r"<title>([^<]*)</title>", page.body)
    marked = {IDS.findall(t)[0]: t for t in titles if IDS.search(t)}
    assert set(marked) == set(made.values())
    assert {i for i, t in marked.items() if WITHHELD in t} == {made["note"], made["proposal"]}
    assert KEPT in marked[made["kept"]]
    out = tmp_path / "report.html"
    assert web.main(["report", "--root", str(project_root), "--html", str(out)], home) == 0
    html = out.read_text()
    assert "wifi" not in html and html.count(WITHHELD) == 2 and KEPT in html


@pytest.fixture
def crowded_inbox(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> tuple[list[str], str]:
    """The person forgot TEXT in their user store; MANY unseen agent rows
    holding it are newer than one agent row that does not."""
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copies.forget_outside(project_root, home, note)
    pid = project.load_project_id(project_root)
    agent = {"origin": "claude-code", "scope": "agent", "agent_profile": "claude-code"}
    visible = make_memory(pid, KEPT, created_at="2026-01-01T00:00:00.000000Z", **agent)
    hidden = [
        make_memory(
            pid,
            copies.FORMS[i % len(copies.FORMS)].format(text=TEXT, i=i),
            created_at=format_time_at(i),
            **agent,
        )
        for i in range(MANY)
    ]
    with Store.open(project_root) as store, store.write() as db:
        rows.insert_many(db, [*hidden, visible])
    return [m.id for m in hidden], visible.id


def format_time_at(i: int) -> str:
    return format_time(datetime(2026, 6, 1, tzinfo=UTC) + timedelta(seconds=i))


@pytest.mark.parametrize("limit", ["1", "10", "50"])
def test_the_inbox_leaves_them_out_before_its_limit(
    run_cli: CliRunner,
    home: dict[str, str],
    project_root: Path,
    crowded_inbox: tuple[list[str], str],
    limit: str,
) -> None:
    _, visible = crowded_inbox
    data = _json(run_cli, home, "inbox", "--peek", "--limit", limit)
    assert _inbox_ids(data) == {visible}
    assert (data["total"], data["shown"]) == (1, 1)
    screen = Session(str(project_root), home)
    try:
        state = State(view="inbox")
        screen.load(state)
        assert {i.key for i in state.items} == {visible}
    finally:
        screen.close()
    with serving(project_root, home) as client:
        client.login()
        assert set(IDS.findall(client.get("/inbox").body)) == {visible}


def test_inbox_all_acts_only_on_what_it_shows(
    run_cli: CliRunner,
    home: dict[str, str],
    project_root: Path,
    crowded_inbox: tuple[list[str], str],
) -> None:
    """`inbox --all --promote` shares no row whose content the person forgot."""
    hidden, visible = crowded_inbox
    done = _json(run_cli, home, "inbox", "--all", "--promote", "--reason", "share")
    assert done["promoted"] == [visible]
    with Store.open(project_root) as store:
        scopes = {str(r[0]): str(r[1]) for r in store.db.query("SELECT id, scope FROM memories")}
    assert scopes[visible] == "project"
    assert {scopes[i] for i in hidden} == {"agent"}


def test_stale_leaves_out_what_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    source = project_root / "a.py"
    source.write_text("x = 1\n")
    agent = {**home, **AGENT}
    _remember(run_cli, agent, TEXT, "--file", str(source))
    kept = _remember(run_cli, agent, KEPT, "--file", str(source))
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copies.forget_outside(project_root, home, note)
    source.write_text("x = 2\n")
    data = _json(run_cli, home, "stale")
    assert {str(i["id"]) for i in data["items"]} == {kept}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType, reportGeneralTypeIssues, reportAttributeAccessIssue]
    assert "wifi" not in run_cli("stale", environ=home).out


def test_a_request_to_forget_names_its_row_without_the_words_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """An agent asks to forget a person's row; the person then forgets its
    words in their user store: the request still waits, its row's words withheld."""
    own = _remember(run_cli, home, TEXT)
    asked = run_cli("forget", own, "--mode", "delete", "--reason", "stale", environ=home | AGENT)
    assert asked.code == 0, asked.err
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copies.forget_outside(project_root, home, note)
    listed = run_cli("review", "list", environ=home)
    assert listed.code == 0 and "wifi" not in listed.out
    assert f": {WITHHELD}" in listed.out
    items = _json(run_cli, home, "review", "list")["items"]
    assert isinstance(items, list)
    asking = [i for i in items if i["kind"] == "forget_request"]  # pyright: ignore[reportUnknownVariableType]
    assert [(i["memory_id"], i["summary"]) for i in asking] == [(own, WITHHELD)]  # pyright: ignore[reportUnknownVariableType]
    with serving(project_root, home) as client:
        client.login()
        page = client.get("/review")
    assert page.status == 200 and "wifi" not in page.body and WITHHELD in page.body
