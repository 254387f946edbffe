"""Every client's reason-taking write refuses a reason quoting content
already forgotten, as the CLI's does: the MCP server's forget and refute,
the terminal UI's and the web view's review decisions, promotion, forget
and supersede all go through the library's front (`api.Project`), whose use
cases check the reason in their own transaction (`reasons.kept`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CliRunner
from mcp_support import CLAUDE_ENV, claude, failed
from web_support import Client, serving

from tree_ring.model.errors import UsageError
from tree_ring.tui.actions import Session
from tree_ring.tui.state import Action

FORGOTTEN = "The vault unseal ceremony happens in room Bravo Twelve"
QUOTING = f"as said before: {FORGOTTEN}"
REFUSED = "and it holds content this project forgot; give the reason without it"


@pytest.fixture
def forgotten(run_cli: CliRunner) -> None:
    gone = run_cli("--json", "remember", FORGOTTEN).json()["id"]
    done = run_cli("forget", gone, "--mode", "delete", "--reason", "not true")
    assert done.code == 0, done.err


def _agent_note(run_cli: CliRunner, text: str, *flags: str) -> str:
    done = run_cli("--json", "remember", text, *flags, environ=CLAUDE_ENV)
    assert done.code == 0, done.err
    return done.json()["id"]


def _trust(run_cli: CliRunner, memory_id: str) -> tuple[str, str]:
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    return shown["trust"], shown["scope"]


@pytest.mark.usefixtures("forgotten")
def test_the_mcp_servers_forget_and_refute_refuse_it(
    project_root: Path, run_cli: CliRunner
) -> None:
    pipe = claude(project_root)
    own = pipe.call("remember", {"summary": "The build cache lives in /tmp/cache."})["id"]
    failed(pipe.call("forget", {"id": own, "reason": QUOTING}), "kept in the audit log", REFUSED)
    other = run_cli("--json", "remember", "The API listens on port 8080").json()["id"]
    failed(pipe.call("refute", {"id": other, "reason": QUOTING}), "shown in every brief")
    assert pipe.call("forget", {"id": own, "reason": "moved"})["ok"] is True
    assert _trust(run_cli, other) == ("accepted", "project")


@pytest.fixture
def session(project_root: Path) -> Iterator[Session]:
    opened = Session(str(project_root), {})
    yield opened
    opened.close()


@pytest.mark.usefixtures("forgotten")
def test_the_terminal_uis_decisions_refuse_it(run_cli: CliRunner, session: Session) -> None:
    waiting = _agent_note(run_cli, "Always squash merge", "--scope", "project")
    note = _agent_note(run_cli, "The printer is on floor two")
    for action in (
        Action("reject", waiting, (), QUOTING),
        Action("dispute", waiting, (), QUOTING),
        Action("promote", note, (), QUOTING),
        Action("forget", note, (), QUOTING),
    ):
        with pytest.raises(UsageError, match=REFUSED):
            session.run(action)
    assert _trust(run_cli, waiting) == ("pending", "project")
    assert _trust(run_cli, note) == ("accepted", "agent")
    assert session.run(Action("promote", note, (), "every session needs it")).startswith(
        f"promoted {note}"
    )


@pytest.fixture
def client(project_root: Path) -> Iterator[Client]:
    with serving(project_root) as c:
        c.login()
        yield c


@pytest.mark.usefixtures("forgotten")
def test_the_web_views_decisions_refuse_it(client: Client, run_cli: CliRunner) -> None:
    waiting = _agent_note(run_cli, "Always squash merge", "--scope", "project")
    note = _agent_note(run_cli, "The printer is on floor two")
    for action, target in (("approve", waiting), ("reject", waiting), ("promote", note)):
        form = {"action": action, "id": target, "back": "/review", "reason": QUOTING}
        assert client.post("/act", form).status == 303
        page = client.get("/review").body
        assert REFUSED in page and "unseal" not in page
    assert _trust(run_cli, waiting) == ("pending", "project")
    assert _trust(run_cli, note) == ("accepted", "agent")
    form = {"action": "approve", "id": waiting, "back": "/review", "reason": "matches the docs"}
    client.post("/act", form)
    assert _trust(run_cli, waiting) == ("accepted", "project")
