"""An agent works in its root's project: `--project` naming another is
refused, with nothing written; the root's own id (as the stop hook's capture
command names it) and a person's read of another project still work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, CODEX, query

from tree_ring.api.project import Project
from tree_ring.model.errors import UsageError

OTHER = "otherproj"


def capture(project: str) -> tuple[str, ...]:
    return (
        "capture", "The flaky test needs a fixed seed",
        "--event-type", "lesson", "--ring", "cambium",
        "--project", project, "--agent-profile", "claude-code",
        "--workflow-id", "s1", "--session-id", "s1",
        "--operation-id", "auto-0123456789ab-1", "--source-ref", "session:s1",
    )  # fmt: skip


def stored_projects(root: Path) -> set[str]:
    return {row["project"] for row in query(root, "SELECT project FROM memories")}


@pytest.mark.parametrize("harness", [CLAUDE, CODEX])
@pytest.mark.parametrize(
    "args",
    [
        ("remember", "x", "--project", OTHER),
        capture(OTHER),
        ("import", "{path}", "--project", OTHER),
        ("recall", "x", "--project", OTHER),
    ],
    ids=["remember", "capture", "import", "recall"],
)
def test_an_agent_naming_another_project_is_refused(
    run_cli: CliRunner,
    project_root: Path,
    project_id: str,
    tmp_path: Path,
    harness: dict[str, str],
    args: tuple[str, ...],
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"summary": "A note of the file"}) + "\n")
    argv = [arg.replace("{path}", str(path)) for arg in args]
    if harness is CODEX:  # capture names the harness's own partition
        argv = [{"claude-code": "codex", "s1": "cx-7"}.get(arg, arg) for arg in argv]
    done = run_cli(*argv, environ=harness)
    assert done.code == 2 and done.out == ""
    assert done.err == (
        f"error: an agent works in its root's project ({project_id}); drop --project, "
        "or run the command as a person\n"
    )
    assert stored_projects(project_root) == set()


def test_the_stop_hooks_capture_with_the_roots_own_project_works(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    done = run_cli("--json", *capture(project_id), environ=CLAUDE)
    assert done.code == 0, done.err
    assert done.json()["trust"] == "accepted"
    assert stored_projects(project_root) == {project_id}


def test_an_agent_naming_its_own_project_writes_there(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    done = run_cli("--json", "remember", "x", "--project", project_id, environ=CLAUDE)
    assert done.code == 0, done.err
    assert stored_projects(project_root) == {project_id}


def test_a_person_still_reads_under_any_project(run_cli: CliRunner, project_root: Path) -> None:
    """A read may name another project (rows kept from before the store
    recorded its own); a person's write may not (`test_project_flag_writes.py`)."""
    assert run_cli("remember", "The cache keys carry the schema version").code == 0
    done = run_cli("--json", "recall", "cache keys", "--project", OTHER)
    assert done.code == 0, done.err
    assert done.json()["items"] == []


def test_the_library_holds_an_agent_to_the_roots_project(project_root: Path) -> None:
    with pytest.raises(UsageError, match="drop --project"):
        Project.open(str(project_root), CLAUDE, project_id=OTHER)
    with Project.open(str(project_root), {}, project_id=OTHER) as project:
        assert project.project_id == OTHER
