"""Who an MCP call comes from and which project it reads: the harness says, in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tree_ring.harness import guidance
from tree_ring.mcp import identity
from tree_ring.model import sessions
from tree_ring.model.errors import NoStore, UsageError


@pytest.fixture
def projects(tmp_path: Path) -> dict[str, Path]:
    """Five initialised projects, one per place a root can come from."""
    found: dict[str, Path] = {}
    for name in ("explicit", "claude", "workspace", "pwd", "cwd"):
        root = tmp_path / name
        (root / "src" / "deep").mkdir(parents=True)
        guidance.init_project(root)
        found[name] = root
    return found


def meta_for(workspace: Path) -> dict[str, object]:
    return {"x-codex-turn-metadata": {"workspaces": {str(workspace): {"has_changes": False}}}}


def root_of(
    environ: dict[str, str], meta: dict[str, object], cwd: Path, harness: str = "agent"
) -> Path:
    return identity.resolve(harness, environ, meta, cwd).root


def test_the_root_comes_from_the_first_source_in_order(projects: dict[str, Path]) -> None:
    environ = {
        "TREE_RING_ROOT": str(projects["explicit"]),
        "CLAUDE_PROJECT_DIR": str(projects["claude"] / "src"),
        "PWD": str(projects["pwd"]),
    }
    meta = meta_for(projects["workspace"] / "src" / "deep")
    cwd = projects["cwd"]
    assert root_of(environ, meta, cwd) == projects["explicit"]
    del environ["TREE_RING_ROOT"]
    assert root_of(environ, meta, cwd) == projects["claude"]  # walked up from src/
    del environ["CLAUDE_PROJECT_DIR"]
    assert root_of(environ, meta, cwd) == projects["workspace"]
    assert root_of(environ, {}, cwd) == projects["pwd"]
    assert root_of({}, {}, cwd / "src") == projects["cwd"]


def test_relative_or_malformed_hints_are_skipped(projects: dict[str, Path]) -> None:
    environ = {"CLAUDE_PROJECT_DIR": "relative/dir", "PWD": ""}
    odd_meta: dict[str, object] = {"x-codex-turn-metadata": {"workspaces": 7}}
    assert root_of(environ, odd_meta, projects["cwd"]) == projects["cwd"]
    as_text: dict[str, object] = {
        "x-codex-turn-metadata": json.dumps({"workspaces": {str(projects["workspace"]): {}}})
    }
    assert root_of({}, as_text, projects["cwd"]) == projects["workspace"]
    listed: dict[str, object] = {"x-codex-turn-metadata": {"workspaces": [str(projects["pwd"])]}}
    assert root_of({}, listed, projects["cwd"]) == projects["pwd"]
    # JSON text too deep to parse names no workspace; it does not fault the call.
    assert identity.workspaces({"x-codex-turn-metadata": "[" * 5000}) == []


def test_no_project_says_where_it_looked_and_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(NoStore) as exc:
        identity.resolve("agent", {"PWD": str(empty)}, {}, tmp_path)
    message = str(exc.value)
    assert str(empty) in message and "from PWD" in message and "init" in message
    assert "TREE_RING_ROOT" in message


def test_codex_outside_git_takes_the_root_its_start_hook_recorded(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    sessions.record(home, "thread-a", str(projects["workspace"]), 100)
    sessions.record(home, "thread-b", str(projects["claude"]), 101)
    # What Codex sends outside git: ids, no workspaces; a PWD from elsewhere.
    stale = {**home, "PWD": str(projects["pwd"])}
    for key in ("sessionId", "threadId"):
        meta: dict[str, object] = {key: "thread-a", "x-codex-turn-metadata": {"turn_id": "t"}}
        assert root_of(stale, meta, projects["cwd"], "codex") == projects["workspace"]
    assert root_of(stale, {"sessionId": "thread-b"}, projects["cwd"], "codex") == projects["claude"]
    # Codex's own workspaces, where it names them, come first.
    named = {"sessionId": "thread-a", **meta_for(projects["explicit"])}
    assert root_of(stale, named, projects["cwd"], "codex") == projects["explicit"]


@pytest.mark.parametrize(
    "meta",
    [{}, {"sessionId": "thread-never-started"}, {"x-codex-turn-metadata": {"workspaces": {}}}],
)
def test_codex_with_no_workspace_and_no_recorded_session_is_refused_not_guessed(
    projects: dict[str, Path], tmp_path: Path, meta: dict[str, object]
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    sessions.record(home, "thread-a", str(projects["workspace"]), 100)
    # PWD and the working directory both hold a project: neither is taken.
    environ = {**home, "PWD": str(projects["pwd"])}
    with pytest.raises(NoStore) as refused:
        identity.resolve("codex", environ, meta, projects["cwd"])
    message = str(refused.value)
    assert "\n" not in message and "Codex did not say which project" in message
    assert "hooks" in message and "TREE_RING_ROOT" in message
    # A person's explicit choice still works.
    chosen = {**environ, "TREE_RING_ROOT": str(projects["explicit"])}
    assert identity.resolve("codex", chosen, meta, projects["cwd"]).root == projects["explicit"]


@pytest.mark.parametrize(
    ("named", "environ", "meta", "harness"),
    [
        ("codex", {"CLAUDECODE": "1"}, {}, "codex"),  # the launch command wins
        (None, {"CLAUDECODE": "1"}, {}, "claude-code"),
        (None, {"CLAUDECODE": "true"}, {}, "claude-code"),  # present, whatever its value
        (None, {"CLAUDECODE": ""}, {}, "claude-code"),
        (None, {"CODEX_THREAD_ID": "t"}, {}, "codex"),
        (None, {"CLAUDE_CODE_SESSION_ID": "s"}, {}, "claude-code"),
        (None, {}, {"x-codex-turn-metadata": {}}, "codex"),
        (None, {"CODEX_SESSION_ID": "s"}, {}, "codex"),
        (None, {}, {"sessionId": "s"}, "agent"),
    ],
)
def test_the_harness(
    named: str | None, environ: dict[str, str], meta: dict[str, object], harness: str
) -> None:
    assert identity.harness_of(named, environ, meta) == harness


def test_the_session_prefers_the_environment_then_the_calls_meta() -> None:
    meta: dict[str, object] = {"sessionId": "from-meta", "threadId": "thread"}
    assert identity.session_of({"CLAUDE_CODE_SESSION_ID": "from-env"}, meta) == "from-env"
    assert identity.session_of({}, meta) == "from-meta"
    assert identity.session_of({}, {"threadId": "thread"}) == "thread"
    assert identity.session_of({}, {}) is None


@pytest.mark.parametrize("bad", ["../../x", "a b", "x" * 200, 12, "-starts-with-dash"])
def test_an_unusable_session_id_is_refused_not_guessed(bad: object) -> None:
    with pytest.raises(UsageError, match="session id"):
        identity.session_of({}, {"sessionId": bad})


def test_a_session_id_that_reads_as_a_secret_is_refused() -> None:
    token = "ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    for key in ("sessionId", "threadId"):
        with pytest.raises(UsageError, match="reads as a secret") as refused:
            identity.session_of({}, {key: token})
        assert token not in str(refused.value)
    assert identity.session_of({}, {"sessionId": "019a2276-9930-7213-b888-2278fb11fbb4"}) == (
        "019a2276-9930-7213-b888-2278fb11fbb4"
    )
