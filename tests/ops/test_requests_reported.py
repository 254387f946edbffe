"""A request to forget that waits for a person is reported where a person
looks: `status` counts it (text and --json), the status page says so, and
`audit findings` names it, with who asked and why; once decided, none of
them does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conftest import CliRunner
from governance_support import CLAUDE, remember, write

from tree_ring.web import status as status_page
from tree_ring.web.site import Site


def _ask(run_cli: CliRunner, memory_id: str, reason: str) -> str:
    asked = write(
        run_cli, "forget", memory_id, "--mode", "delete", "--reason", reason, environ=CLAUDE
    )
    return str(asked["request"])


def _reported(run_cli: CliRunner) -> set[tuple[str, str]]:
    data: dict[str, Any] = run_cli("--json", "audit", "findings").json()
    return {(item["type"], item["id"]) for item in data["items"]}


def test_a_waiting_request_is_counted_and_named_until_decided(
    run_cli: CliRunner, project_root: Path
) -> None:
    kept = remember(run_cli, "Use the staging database for all integration tests")
    other = remember(run_cli, "Releases are cut from main every Tuesday")
    first = _ask(run_cli, kept, "stale since the move")
    _ask(run_cli, other, "no longer true")
    status = run_cli("--json", "status").json()
    assert (status["review_queue"], status["review_requests"]) == (0, 2)
    assert (
        "waiting for review: 0 pending, 0 disputed, 2 requests to forget or confirm"
        " (`tree-ring review list`: 2)"
    ) in run_cli("status").out
    assert _reported(run_cli) == {("review", kept), ("review", other)}
    items = run_cli("--json", "audit", "findings").json()["items"]
    why = next(item["reason"] for item in items if item["id"] == kept)
    assert why == f"forget {kept} (delete), asked by claude-code ({first}): stale since the move"
    site = Site.open(str(project_root), {})
    session = site.session(site.new_session())
    assert session is not None
    page = status_page.status_page(site, session, {})
    assert re.search(r'id="requests">2</span> requests to forget or confirm', page)

    write(run_cli, "review", "reject", first, "--reason", "still used")
    assert run_cli("--json", "status").json()["review_requests"] == 1
    assert _reported(run_cli) == {("review", other)}
    assert "1 request to forget or confirm (`tree-ring review list`: 1)" in run_cli("status").out


def test_no_request_adds_nothing_to_the_status_line(run_cli: CliRunner) -> None:
    remember(run_cli, "Accepted note")
    assert run_cli("--json", "status").json()["review_requests"] == 0
    assert "waiting for review: 0 pending, 0 disputed (`tree-ring review list`: 0)" in (
        run_cli("status").out
    )
    assert _reported(run_cli) == set()


def test_a_request_about_a_sensitive_row_is_left_out_of_the_report_and_counted(
    run_cli: CliRunner,
) -> None:
    hidden = remember(run_cli, "The on-call lead has a pollen allergy", "--sensitivity", "health")
    _ask(run_cli, hidden, "personal")
    data = run_cli("--json", "audit", "findings").json()
    assert data["items"] == []
    assert data["withheld"] == 2  # the sensitive finding and the request
    assert run_cli("--json", "status").json()["review_requests"] == 1


def test_review_list_shows_what_each_request_would_forget(run_cli: CliRunner) -> None:
    plain = remember(run_cli, "Deploys freeze on Fridays after the cut")
    hidden = remember(run_cli, "The on-call lead has a pollen allergy", "--sensitivity", "health")
    asked = {_ask(run_cli, plain, "outdated"): plain, _ask(run_cli, hidden, "personal"): hidden}
    items = run_cli("--json", "review", "list").json()["items"]
    said = {item["id"]: item["summary"] for item in items if item["kind"] == "forget_request"}
    assert set(said) == set(asked)
    by_memory = {asked[request]: summary for request, summary in said.items()}
    assert by_memory[plain] == "Deploys freeze on Fridays after the cut"
    assert "allergy" not in by_memory[hidden] and by_memory[hidden]
    out = run_cli("review", "list").out
    assert f"forget {plain} (delete): Deploys freeze on Fridays after the cut" in out
    assert "allergy" not in out
