"""The viewer reads through `Project`, so it gives the CLI's answer on the same store.

A search is `Project.recall`: the person's own user store merged in, each of
its hits marked "you" where the person wrote them (an agent's proposal there
by its writer), exactly the hits and marks `tree-ring recall` gives.
The status page is `Project.status`: every figure it shows is the one the
facade computes, on a store with rows in every state and a user store, and a
new note in the user store shows at once, although the project's store did
not change.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import CliRunner, make_memory
from web_support import insert

from tree_ring.api.project import Project
from tree_ring.model import project
from tree_ring.model.record import now_iso
from tree_ring.web import pages, status
from tree_ring.web.site import Site

PAST = "2020-01-01T00:00:00.000000Z"
HIT_ROW = re.compile(
    r"<tr><td>(?:<a href=\"/memory\?id=)?(mem_\w+)[^<]*(?:</a>)?</td>"
    r"(?:<td[^>]*>.*?</td>){6}<td>([^<]*)</td><td>[\d.]+</td></tr>"
)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def _id(run: Any) -> str:
    assert run.code == 0, run.err
    return str(run.json()["id"])


def _session(site: Site) -> Any:
    session = site.session(site.new_session())
    assert session is not None
    return session


def test_a_search_finds_the_persons_own_memory_and_marks_it_theirs(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    mine = _id(
        run_cli(
            "--json", "remember", "I run the harbour deploy with pytest -q first",
            "--scope", "global", environ=home,
        )
    )  # fmt: skip
    shared = _id(run_cli("--json", "remember", "The harbour deploy goes through staging"))
    # An agent's global proposal waits in the user store: not the person's note.
    agents = _id(
        run_cli(
            "--json", "remember", "Skip the harbour deploy review", "--scope", "global",
            environ={**home, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"},
        )
    )  # fmt: skip
    site = Site.open(str(project_root), home)
    html = pages.memories_page(site, _session(site), {"q": "harbour deploy", "trust": "any"})
    shown = dict(HIT_ROW.findall(html))
    assert shown == {
        mine: "you",
        shared: "project",
        agents: "claude-code session s1 · user store",
    }
    # Not a link: the id names a row of the person's store, not of the project.
    assert f'<a href="/memory?id={mine}"' not in html
    assert f'<a href="/memory?id={agents}"' not in html
    assert f'<a href="/memory?id={shared}"' in html
    assert "“you”: a note you wrote in your user store" in html
    # The CLI's recall, on the same stores: the same hits, marked the same way.
    recalled = run_cli(
        "--json", "recall", "harbour deploy", "--include-unreviewed", environ=home
    ).json()["items"]  # fmt: skip
    assert {hit["id"]: hit["partition"] for hit in recalled} == shown
    stores = {mine: "user", shared: "project", agents: "user"}
    assert {hit["id"]: hit["store"] for hit in recalled} == stores


def _figures(html: str) -> dict[str, str]:
    return dict(re.findall(r'<(?:span|a href="[^"]*") id="([\w-]+)">([^<]*)(?=<)', html))


def test_the_status_page_shows_what_project_status_counts(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    pid = project.load_project_id(project_root)
    now = now_iso()
    insert(
        project_root,
        [
            make_memory(pid, "live cambium note", ring="cambium"),
            make_memory(pid, "live scar note", ring="scar"),
            make_memory(pid, "sensitive live note", ring="scar", sensitivity="private"),
            make_memory(pid, "pending note", ring="inner", trust="pending"),
            make_memory(pid, "another pending note", ring="inner", trust="pending"),
            make_memory(pid, "disputed note", ring="outer", trust="disputed"),
            make_memory(pid, "expired note", ring="cambium", expires_at=PAST),
            make_memory(pid, "retired note", ring="cambium", retired_at=now),
            make_memory(
                pid, "superseded note", ring="cambium", retired_at=now, superseded_by="mem_x"
            ),
            make_memory(pid, "agent note", ring="cambium", origin="codex"),
            make_memory("other-project", "another project's note", ring="scar"),
        ],
    )
    for text in ("I prefer pytest -q", "I read diffs before committing", "I like short names"):
        last = _id(run_cli("--json", "remember", text, "--scope", "global", environ=home))
    forgot = run_cli(
        "forget", last, "--user", "--mode", "delete", "--reason", "not so", environ=home
    )
    assert forgot.code == 0, forgot.err
    site = Site.open(str(project_root), home)
    shown = _figures(status.status_page(site, _session(site), {}))
    with Project.open(str(project_root), home) as opened:
        data = opened.status()
    counts, mine = data["memories"], data["user_store"]
    expected = {
        "live": str(counts["live"]),
        "pending": str(counts["pending"]),
        "disputed": str(counts["disputed"]),
        "retired": str(counts["retired"]),
        "total": str(counts["total"]),
        "by-ring": ", ".join(f"{ring} {n}" for ring, n in sorted(counts["by_ring"].items())),
        "queue": f"{data['review_queue']} waiting",
        "inbox": f"{data['inbox']} new from agents",
        "user-live": str(mine["live"]),
        "user-memories": str(mine["memories"]),
        "user-queue": str(mine["review_queue"]),
    }
    assert {key: shown.get(key) for key in expected} == expected
    # And the facade's figures are the store's, so equal figures are right ones.
    assert expected == {
        "live": "4",  # two, the sensitive one, the agent's
        "pending": "2",
        "disputed": "1",
        "retired": "3",  # expired, retired, superseded
        "total": "10",  # another project's row is not this project's
        "by-ring": "cambium 2, scar 2",
        "queue": "3 waiting",
        "inbox": "1 new from agents",
        "user-live": "2",
        "user-memories": "2",
        "user-queue": "0",
    }


def test_a_new_note_in_the_user_store_shows_on_the_status_page_at_once(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    run_cli("remember", "The harbour deploy goes through staging")
    _id(run_cli("--json", "remember", "I prefer pytest -q", "--scope", "global", environ=home))
    site = Site.open(str(project_root), home)
    session = _session(site)
    assert _figures(status.status_page(site, session, {}))["user-live"] == "1"
    # The project's store is as it was: the cached counts must see the user store change.
    _id(run_cli("--json", "remember", "I like short names", "--scope", "global", environ=home))
    assert _figures(status.status_page(site, session, {}))["user-live"] == "2"
