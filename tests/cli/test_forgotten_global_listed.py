"""What either store forgot stays out of every read that lists or shows rows.

`list` (the CLI's, the MCP server's, the terminal UI's, the web view's),
`show`, `tree show` and the web view's tree page, and `export` leave out a
project row whose content the person forgot in their user store, and a
global note holding what this project forgot (`Project.forgotten_elsewhere`),
before any cap; a row a person wrote over those tombstones is read again.
The fixtures and helpers are those of `test_forgotten_global_copies.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import test_forgotten_global_copies as copies
from conftest import CliRunner
from helpers import cli_runner
from mcp_support import claude
from test_forgotten_global_copies import KEPT, TEXT, _forget_user, _ids, _json, _remember
from web_support import serving

from tree_ring.read import listing
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State

# The same fixtures: a user home, another project, a project crowded with hidden rows.
home, other, crowded = copies.home, copies.other, copies.crowded

IDS = re.compile(r"mem_\d{8}_\d{6}_[0-9a-f]{12}")


def _forgotten_own(run: CliRunner, environ: dict[str, str]) -> tuple[str, str]:
    """A person's own project row of TEXT and one of KEPT; then the person
    forgets the global note of TEXT: the own row stays in the store, hidden."""
    note = _remember(run, environ, TEXT, "--scope", "global")
    own = _remember(run, environ, TEXT)
    kept = _remember(run, environ, KEPT)
    assert _ids(run, environ, "list") == {own, kept}
    assert _forget_user(run, environ, note)["copies"] == []
    return own, kept


def _exported(run: CliRunner, environ: dict[str, str], *flags: str) -> set[str]:
    items = _json(run, environ, "export", *flags)["items"]
    assert isinstance(items, list)
    return {str(i["id"]) for i in items if "record" not in i}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]


def test_list_show_and_export_leave_out_what_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    own, kept = _forgotten_own(run_cli, home)
    assert _ids(run_cli, home, "list") == {kept}
    assert _ids(run_cli, home, "list", "--trust", "pending") == set()
    assert _ids(run_cli, home, "list", "--include-sensitive", "--limit", "1") == {kept}
    assert "wifi" not in run_cli("list", environ=home).out
    shown = run_cli("show", own, environ=home)
    assert (shown.code, shown.out) == (1, "")
    assert shown.err == f"error: no memory {own!r}; `tree-ring list` shows the ids\n"
    assert run_cli("show", kept, environ=home).code == 0
    assert _exported(run_cli, home) == {kept}
    assert _exported(run_cli, home, "--include-sensitive", "--include-unreviewed") == {kept}
    session = claude(project_root, **home)
    assert {m["id"] for m in session.call("list", {})["memories"]} == {kept}
    assert session.call("show", {"id": own})["ok"] is False


def test_the_terminal_ui_and_the_web_view_leave_it_out(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    own, kept = _forgotten_own(run_cli, home)
    screen = Session(str(project_root), home)
    try:
        state = State()
        screen.load(state)
        assert {i.key for i in state.items} == {kept}
        assert screen.totals["memories"] == 1
        assert {str(r["id"]) for r in screen.opened.export(View()) if "record" not in r} == {kept}
    finally:
        screen.close()
    with serving(project_root, home) as client:
        client.login()
        listed = client.get("/memories")
        assert listed.status == 200 and set(IDS.findall(listed.body)) == {kept}
        assert client.get(f"/memory?id={own}").status == 404
        assert client.get(f"/memory?id={kept}").status == 200


def test_list_user_leaves_out_a_global_note_holding_what_this_project_forgot(
    run_cli: CliRunner, home: dict[str, str], other: Path
) -> None:
    """The reverse: the person forgets a project row here; a global note of
    the same words written in another project stays in the user store, out
    of this project's reads of it, and in the other project's."""
    here = _remember(run_cli, home, TEXT)
    done = _json(run_cli, home, "forget", here, "--mode", "delete", "--reason", "gone")
    assert done["tombstoned"] is True
    there = cli_runner(other)
    note = _remember(there, home, TEXT, "--scope", "global")
    kept = _remember(there, home, KEPT, "--scope", "global")
    assert _ids(there, home, "list", "--user") == {note, kept}
    assert _ids(run_cli, home, "list", "--user") == {kept}
    assert run_cli("show", note, "--user", environ=home).code == 1
    assert run_cli("show", note, "--user", environ=home).err.startswith("error: no memory")
    assert run_cli("show", kept, "--user", environ=home).code == 0
    assert _exported(run_cli, home, "--user") == {kept}
    assert _exported(there, home, "--user") == {note, kept}


def test_list_hides_before_its_limit_and_counts_what_it_shows(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, crowded: tuple[list[str], str]
) -> None:
    hidden, visible = crowded
    for limit in ("1", "10", "500"):
        data = _json(run_cli, home, "list", "--limit", limit)
        assert {str(i["id"]) for i in data["items"]} == {visible}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType, reportGeneralTypeIssues, reportAttributeAccessIssue]
        assert data["total"] == 1
    assert _ids(run_cli, home, "list", "--limit", "1", "--offset", "1") == set()
    session = claude(project_root, **home)
    assert {m["id"] for m in session.call("list", {"limit": 1})["memories"]} == {visible}
    screen = Session(str(project_root), home)
    try:
        state = State()
        screen.load(state)
        assert {i.key for i in state.items} == {visible}
    finally:
        screen.close()
    with serving(project_root, home) as client:
        client.login()
        assert set(IDS.findall(client.get("/memories").body)) == {visible}
    assert _exported(run_cli, home) == {visible}
    # Left unhidden (no user store), they are what the page would hold.
    assert _ids(run_cli, {}, "list", "--limit", "1") <= set(hidden)


def test_a_row_a_person_wrote_over_the_tombstone_lists_again(
    run_cli: CliRunner, home: dict[str, str]
) -> None:
    own, kept = _forgotten_own(run_cli, home)
    # Its own words re-admit the row that holds them, as it stands: no copy.
    again = _json(
        run_cli, home, "remember", TEXT, "--override-tombstone", "--reason", "it holds again"
    )
    assert (again["id"], again["created"], again["readmitted"]) == (own, False, True)
    assert _ids(run_cli, home, "list") == {kept, own}
    assert run_cli("show", own, environ=home).code == 0
    assert _exported(run_cli, home) == {kept, own}


def test_a_copy_a_person_wrote_over_the_tombstone_lists_and_the_row_stays_hidden(
    run_cli: CliRunner, home: dict[str, str]
) -> None:
    own, kept = _forgotten_own(run_cli, home)
    again = _json(
        run_cli, home, "remember", TEXT, "--scope", "manual",
        "--override-tombstone", "--reason", "it holds again",
    )  # fmt: skip
    assert again["created"] is True and again["id"] != own
    _json(run_cli, home, "review", "approve", str(again["id"]), "--reason", "agreed")
    assert _ids(run_cli, home, "list") == {kept, again["id"]}
    assert run_cli("show", str(again["id"]), environ=home).code == 0
    assert _exported(run_cli, home) == {kept, again["id"]}
    assert run_cli("show", own, environ=home).code == 1


def _nodes(root: Path) -> dict[str, str]:
    with Store.open(root) as store:
        return {str(r[0]): str(r[1]) for r in store.db.query("SELECT id, content FROM tree_nodes")}


def test_tree_show_and_the_tree_page_hide_a_node_quoting_what_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    assert run_cli("config", "set", "tree.input_token_budget=20", environ=home).code == 0
    _remember(run_cli, home, "The nightly job writes the audit tarball to the cold bucket")
    _remember(run_cli, home, TEXT)
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    nodes = _nodes(project_root)
    quoting = {i for i, content in nodes.items() if "wifi" in content}
    assert quoting and run_cli("tree", "show", environ=home).code == 0
    assert all("wifi" in run_cli("tree", "show", i, environ=home).out for i in quoting)
    _forget_user(run_cli, home, note)
    assert "wifi" not in run_cli("tree", "show", environ=home).out
    shown = {i for i in nodes if run_cli("tree", "show", i, environ=home).code == 0}
    assert shown == set(nodes) - quoting
    for i in quoting:
        said = run_cli("tree", "show", i, environ=home)
        assert said.code == 1 and said.err.startswith("error: no summary node")
    for i in shown:
        assert "wifi" not in run_cli("tree", "show", i, environ=home).out
    with serving(project_root, home) as client:
        client.login()
        assert "wifi" not in client.get("/tree").body
        assert {i for i in nodes if client.get(f"/tree?node={i}").status == 200} == shown
        assert all("wifi" not in client.get(f"/tree?node={i}").body for i in shown)


def test_past_the_page_the_rows_left_are_counted_only_so_far(
    run_cli: CliRunner,
    home: dict[str, str],
    project_root: Path,
    crowded: tuple[list[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exact count would read every row's claims (seconds in a large
    project), so past the page it stops: the total is then a floor, said so."""
    _, visible = crowded
    more = {
        _remember(run_cli, home, f"Room {i} of the new office has a whiteboard") for i in range(12)
    }
    monkeypatch.setattr(listing, "COUNTED_PAST_PAGE", 5)
    data = _json(run_cli, home, "list", "--limit", "2")
    assert len(data["items"]) == 2  # pyright: ignore[reportArgumentType]
    assert (data["total"], data["total_is_floor"]) == (2 + 5 + 1, True)
    assert run_cli("list", "--limit", "2", environ=home).out.splitlines()[-1] == (
        "showing 2 of more than 7 (--offset 2 shows the next)"
    )
    whole = _json(run_cli, home, "list", "--limit", "50")
    assert {str(i["id"]) for i in whole["items"]} == more | {visible}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType, reportGeneralTypeIssues, reportAttributeAccessIssue]
    assert (whole["total"], "total_is_floor" in whole) == (13, False)


def test_the_review_queue_keeps_a_waiting_row_with_its_forgotten_words_withheld(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """A proposal still waits for the person's decision after they forgot its
    words in their user store (outside this project, so no copy was taken):
    every review queue names it, without its words, and it can be rejected."""
    agent = {**home, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    proposed = _remember(run_cli, agent, TEXT, "--scope", "project")
    other_proposal = _remember(run_cli, agent, KEPT, "--scope", "project")
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copies.forget_outside(project_root, home, note)
    listed = run_cli("review", "list", environ=home)
    assert listed.code == 0, listed.err
    assert "wifi" not in listed.out
    assert f'{proposed}  [PENDING] [cambium] "[withheld: forgotten content]"' in listed.out
    items = {i["id"]: i for i in _json(run_cli, home, "review", "list")["items"]}  # pyright: ignore[reportUnknownVariableType, reportGeneralTypeIssues]
    assert set(items) == {proposed, other_proposal}
    assert items[proposed]["summary"] == "[withheld: forgotten content]"
    assert items[other_proposal]["summary"] == KEPT
    screen = Session(str(project_root), home)
    try:
        state = State(view="review")
        screen.load(state)
        shown = {i.key: i.memory.summary for i in state.items if i.memory is not None}
        assert shown == {proposed: "[withheld: forgotten content]", other_proposal: KEPT}
    finally:
        screen.close()
    with serving(project_root, home) as client:
        client.login()
        page = client.get("/review")
        assert page.status == 200 and "wifi" not in page.body
        assert {proposed, other_proposal} <= set(IDS.findall(page.body))
    rejected = run_cli("review", "reject", proposed, "--reason", "forgotten", environ=home)
    assert rejected.code == 0, rejected.err
    assert set(IDS.findall(run_cli("review", "list", environ=home).out)) == {other_proposal}


def test_consolidation_takes_no_source_holding_what_the_person_forgot(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """A summary is a write of its sources' words: a row the other store's
    forget hides is no source, so neither the plan nor the summary quotes it."""
    agent = {**home, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    kept = {_remember(run_cli, agent, f"Room {i} of the office has a whiteboard") for i in range(3)}
    _remember(run_cli, agent, TEXT)
    _remember(run_cli, agent, "Office notes", "--details", TEXT)
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copies.forget_outside(project_root, home, note)
    planned = run_cli("consolidate", "--dry-run", environ=home)
    assert planned.code == 0, planned.err
    assert "wifi" not in planned.out and "Room 0" in planned.out
    done = _json(run_cli, home, "consolidate")
    [group] = [g for g in done["items"] if g["summary_id"]]  # pyright: ignore[reportGeneralTypeIssues, reportUnknownVariableType]
    assert set(group["source_ids"]) == kept  # pyright: ignore[reportUnknownArgumentType]
    assert "wifi" not in str(group["summary"])


def test_review_readmit_user_lifts_what_this_project_forgot_as_a_global_write_does(
    run_cli: CliRunner, home: dict[str, str], other: Path
) -> None:
    """`review readmit --user` of a global note hidden here because this
    project forgot its words: the user store answers to the project's
    tombstones, as a global write made here does, so the note is re-admitted
    as it stands and shows here again; a reason quoting the forgotten words
    is refused, and the words are never printed."""
    here = _remember(run_cli, home, TEXT)
    _json(run_cli, home, "forget", here, "--mode", "delete", "--reason", "gone")
    note = _remember(cli_runner(other), home, TEXT, "--scope", "global")
    assert _ids(run_cli, home, "list", "--user") == set()
    quoting = run_cli("review", "readmit", note, "--user", "--reason", TEXT, environ=home)
    assert quoting.code == 2 and TEXT not in quoting.err
    assert "holds content this project forgot" in quoting.err
    done = run_cli("review", "readmit", note, "--user", "--reason", "mine", environ=home)
    assert done.code == 0, done.err
    assert done.out == (
        f"re-admitted {note} as it stands: its export row carries the re-admission, so an "
        "import takes it over the tombstones\n"
    )
    assert _ids(run_cli, home, "list", "--user") == {note}


def test_a_global_re_admissions_reason_may_not_quote_what_this_project_forgot(
    run_cli: CliRunner, home: dict[str, str]
) -> None:
    """A global note written over the person's own forget, from inside a
    project: its reason travels with the note, and this project's reads and
    exports of the user store show it, so quoting what the project forgot is
    refused as it is for a project's re-admission."""
    here = _remember(run_cli, home, TEXT)
    _json(run_cli, home, "forget", here, "--mode", "delete", "--reason", "gone")
    note = _remember(run_cli, home, KEPT, "--scope", "global")
    _forget_user(run_cli, home, note)
    quoting = run_cli(
        "remember", KEPT, "--scope", "global", "--override-tombstone",
        "--reason", f"needed. {TEXT}", environ=home,
    )  # fmt: skip
    assert quoting.code == 2 and quoting.out == ""
    assert quoting.err == (
        "error: the reason travels with the re-admission to every clone, and it holds content "
        "this project forgot; give the reason without it\n"
    )
    assert _ids(run_cli, home, "list", "--user") == set()
    written = _json(
        run_cli, home, "remember", KEPT, "--scope", "global", "--override-tombstone",
        "--reason", "needed after all",
    )  # fmt: skip
    assert written["created"] is True
    exported = run_cli("export", "--user", "--include-unreviewed", environ=home)
    assert exported.code == 0 and TEXT not in exported.out
