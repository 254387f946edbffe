"""`welcome` counts the project's memories as `status` does: the live ones
and those waiting for review (a disputed one among them, which the brief
shows marked), not the retired ones a store keeps on record."""

from __future__ import annotations

from pathlib import Path

from helpers import CliRunner

from tree_ring.web import pages
from tree_ring.web import status as status_page
from tree_ring.web.site import Site

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"}


def test_welcome_says_what_status_says(run_cli: CliRunner) -> None:
    disputed = run_cli("--json", "remember", "The billing export runs nightly at two").json()["id"]
    retired = run_cli("--json", "remember", "The cache TTL is ten minutes").json()["id"]
    newer = run_cli("--json", "remember", "The cache TTL is five minutes").json()["id"]
    assert run_cli("supersede", retired, newer, "--reason", "shortened").code == 0
    refuted = run_cli("refute", disputed, "--reason", "it runs at three now", environ=AGENT)
    assert refuted.code == 0, refuted.err
    status = run_cli("--json", "status").json()["memories"]
    store = run_cli("--json", "welcome").json()["store"]
    assert (
        (store["live"], store["waiting"])
        == (
            status["live"],
            status["pending"] + status["disputed"],
        )
        == (1, 1)
    )
    assert store["memories"] == 2
    assert ", 2 memories (1 live, 1 waiting for review)." in run_cli("welcome").out


LATER = "2099-03-01T00:00:00Z"


def test_a_memory_valid_from_a_later_time_is_upcoming_not_live(
    run_cli: CliRunner, project_root: Path
) -> None:
    """`list` leaves out a memory whose validity starts later; `status`,
    `welcome` and the web view count it apart, as upcoming, never as live."""
    said = run_cli("remember", "The Frankfurt datacenter opens for traffic", "--valid-from", LATER)
    assert said.code == 0 and f"it holds from {LATER}" in said.out
    run_cli("remember", "The linter runs ruff with the default rules")
    listed = run_cli("--json", "list").json()
    status = run_cli("--json", "status").json()["memories"]
    assert (listed["total"], status["live"], status["upcoming"], status["total"]) == (1, 1, 1, 2)
    assert "upcoming: 1 (valid from a later time" in run_cli("status").out
    assert ", 1 memory." in run_cli("welcome").out
    site = Site.open(str(project_root), {})
    session = site.session(site.new_session())
    assert session is not None
    page = status_page.status_page(site, session, {})
    assert '<span id="live">1</span>' in page and '<span id="upcoming">1</span>' in page
    assert "1 memory (1 live, 0 waiting for review)" in pages.rings_page(site, session, {})


def test_the_user_stores_upcoming_note_is_counted_apart(run_cli: CliRunner, tmp_path: Path) -> None:
    me = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    run_cli("remember", "I prefer small pull requests", "--scope", "global", environ=me)
    later = ("--valid-from", LATER)
    run_cli("remember", "I start the new team rota", "--scope", "global", *later, environ=me)
    mine = run_cli("--json", "status", environ=me).json()["user_store"]
    assert (mine["memories"], mine["live"], mine["upcoming"]) == (2, 1, 1)
    assert ": 2 memories, 1 live, 1 upcoming, 0 waiting" in run_cli("status", environ=me).out
