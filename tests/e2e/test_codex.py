"""Tree Ring in the real Codex CLI (0.169.0), offline against the mock
Responses API: installed from this repository's marketplace with its hooks
trusted the way /hooks records trust, the brief at session start, one
checkpoint at stop, the capture command run as the reason wrote it (after the
HTML unescaping a model reading Codex's hook_prompt does), and the saved
memory in the next session's brief."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tree_ring.mcp import schemas
from tree_ring.read import brief

from .harnesses import (
    CHECKPOINT,
    REMEMBERED,
    STORED,
    WORK_COMMAND,
    Codex,
    capture_command,
    conversation,
    mcp_round_trip,
    memory_round_trip,
    offered_skills,
    session,
    skill_command,
    subagent_session,
    tool_outputs,
    tree_ring,
)
from .mockserver import Body, MockServer, Turn

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_brief_checkpoint_capture_and_next_brief(
    codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    trip = memory_round_trip(codex, plugin_dir, project, tmp_path)
    # Codex adds the brief as its own developer message, verbatim.
    assert any(t.startswith("Tree Ring memory for project ") for t in conversation(trip.first[0]))
    # Codex HTML-escapes the reason; it is written so that escaping changes nothing.
    prompts = [t for t in conversation(trip.first[2]) if "<hook_prompt " in t]
    assert prompts and "Tree Ring checkpoint " in prompts[-1]
    assert "&lt;" not in prompts[-1] and "&gt;" not in prompts[-1] and "&amp;" not in prompts[-1]
    # The plugin runs from Codex's plugin cache, and the command points there.
    cached = codex.codex_home / "plugins" / "cache" / "tree-ring" / "tree-ring" / "0.1.0"
    assert trip.command.startswith(f'python3 -I -S "{cached}/bin/tree-ring" --root "{project}" ')
    assert " --agent-profile codex " in trip.command


def test_subagent_gets_the_brief_and_no_checkpoint_of_its_own(
    codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    requests = subagent_session(codex, plugin_dir, project, tmp_path)
    # The main session and the subagent each get the brief as a developer message.
    assert sum("Tree Ring memory for project " in r for r in requests) >= 2
    # SubagentStop no longer blocks, and no agent ran a command: no checkpoint.
    assert not any(CHECKPOINT.search(r) for r in requests)


@pytest.fixture
def git_project(project: Path) -> Path:
    """The project as a git repository: Codex names a session's workspaces, which
    is how the MCP server learns the project, for git repositories."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def test_mcp_recall_returns_a_stored_memory_and_remember_reaches_the_next_brief(
    codex: Codex, plugin_dir: Path, git_project: Path, tmp_path: Path
) -> None:
    trip = mcp_round_trip(codex, plugin_dir, git_project, tmp_path)
    # The server is offered as one namespace; its instructions describe it.
    (namespace,) = [t for t in trip.first[-1]["tools"] if t.get("name") == "mcp__tree_ring"]
    assert namespace["type"] == "namespace" and namespace["description"] == schemas.INSTRUCTIONS
    assert {t["name"] for t in namespace["tools"]} == {t.name for t in schemas.TOOLS}
    # Codex shows the model only structuredContent, notice first, no isError flag.
    (recalled,) = [t for t in trip.outputs if STORED in t]
    document = json.loads(recalled[recalled.index("{") :])
    assert list(document)[:2] == ["ok", "notice"] and document["notice"] == schemas.NOTICE
    assert [r["summary"] for r in document["results"]] == [STORED]
    memory = trip.memory
    assert (memory["origin"], memory["agent_profile"], memory["scope"]) == (
        "codex",
        "codex",
        "agent",
    )
    assert memory["session_id"] == memory["origin_session"] and memory["session_id"]
    opening = [t for t in conversation(trip.second[0]) if brief.BEGIN in t]
    assert opening and REMEMBERED in opening[0]


def test_mcp_outside_git_writes_the_session_project_not_where_codex_started(
    codex: Codex, plugin_dir: Path, project: Path, tmp_path: Path
) -> None:
    # `codex exec -C PROJECT` started in another Tree Ring project, neither a git
    # repository: Codex sends the server no workspaces and the PWD it started
    # in. The server finds the project by the session id the start hook recorded.
    started_in = tmp_path / "started-in"
    started_in.mkdir()
    tree_ring("init", root=started_in)
    codex.install(plugin_dir, project)
    codex.trust_hooks(started_in)
    remember = codex.mcp_tool("remember")
    turns = [
        Turn(
            expect=json.dumps(remember.split(".")[0]),
            wait_shell="sleep 1",
            tool=(remember, {"summary": REMEMBERED, "event_type": "decision"}),
        ),
        Turn(text="Remembered."),
    ]
    with MockServer(codex.handler, turns, tmp_path / "mcp-outside-git.jsonl") as mock:
        codex.session(started_in, mock.base_url, cd=project)
    outputs = [t for body in mock.model_requests() for t in tool_outputs(body)]
    assert any('"ok":true' in t for t in outputs), outputs
    summaries = {
        root: {m["summary"] for m in json.loads(tree_ring("--json", "list", root=root))["items"]}
        for root in (project, started_in)
    }
    assert summaries == {project: {REMEMBERED}, started_in: set()}


SKILLS = {
    f"tree-ring:{name}" for name in ("init", "recall", "remember", "forget", "status", "capture")
}


def test_every_command_has_a_skill_that_runs(
    codex: Codex, plugin_dir: Path, tmp_path: Path
) -> None:
    """One session in a fresh repository, with the commands each skill names, as a
    model reading the skill list would run them: init, remember, recall, status,
    forget, and at the checkpoint the capture command the capture skill points to."""
    repo = tmp_path / "fresh"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    codex.install(plugin_dir, repo)
    fact = "Integration tests need the local queue running, marker SK1LL."

    def stored_id(body: Body) -> str:
        found = re.findall(r"stored (mem_[\w.-]+)", "\n".join(tool_outputs(body)))
        if not found:
            raise ValueError("no stored memory id in the tool outputs yet")
        return found[-1]

    def capture(body: Body) -> str:
        return capture_command(codex.stop_reason(body), "The queue must be up before tests.")

    turns = [
        Turn(shell=lambda b: skill_command(b, "tree-ring:init", PROJECT_DIR=str(repo))),
        Turn(shell=lambda b: skill_command(b, "tree-ring:remember", SENTENCE=fact, TYPE="lesson")),
        Turn(shell=lambda b: skill_command(b, "tree-ring:recall", QUERY="local queue tests")),
        Turn(shell=lambda b: skill_command(b, "tree-ring:status")),
        Turn(
            shell=lambda b: skill_command(
                b, "tree-ring:forget", MEMORY_ID=stored_id(b), REASON="only a test"
            )
        ),
        Turn(shell=WORK_COMMAND),  # Tree Ring's own commands are not work to capture
        Turn(text="All six ran."),
        Turn(expect="Tree Ring checkpoint", shell=capture),
        Turn(text="Captured."),
    ]
    requests = session(codex, repo, turns, tmp_path / "skills.jsonl")
    offered = offered_skills(requests[0])
    tree_ring_skills = {name for name in offered if name.startswith("tree-ring:")}
    assert tree_ring_skills == SKILLS | {"tree-ring:tree-ring-memory"}
    for name in SKILLS:  # each from the plugin's own Codex skills, none migrated
        assert offered[name].is_relative_to(codex.installed / "codex-skills"), offered[name]
    outputs = list(dict.fromkeys(t for body in requests for t in tool_outputs(body)))
    said = "\n".join(outputs)
    assert "Tree Ring project " in said and "created .tree-ring" in said  # init
    assert re.search(r"stored mem_", said)  # remember
    assert fact in said  # recall found it
    assert "waiting for review:" in said  # status
    assert "redacted mem_" in said  # forget
    rows = json.loads(tree_ring("--json", "list", "--include-sensitive", root=repo))["items"]
    summaries = {m["summary"]: m for m in rows}
    assert fact not in summaries  # forgotten
    captured = summaries["The queue must be up before tests."]
    assert (captured["origin"], captured["scope"]) == ("codex", "agent")
