"""A store belongs to one project: a person's write whose `--project` names
another is refused in one line (exit 2), with nothing written, as an edited
project.json is refused; naming the store's own project still writes, and a
read may still name another (not `tree status`: tests/cli/test_store_wide_verbs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import query

OTHER = "p-00000000"
TEXT = "The staging admin password hint is the dog's name"


def capture(project: str) -> tuple[str, ...]:
    return (
        "capture", TEXT, "--event-type", "lesson", "--ring", "cambium",
        "--project", project, "--agent-profile", "claude-code",
        "--workflow-id", "s1", "--session-id", "s1",
        "--operation-id", "auto-0123456789ab-1", "--source-ref", "session:s1",
    )  # fmt: skip


WRITES = {
    "remember": ("remember", TEXT, "--project", "{project}"),
    "evidence": (
        "evidence",
        TEXT,
        "--outcome",
        "observed",
        "--evidence-ref",
        "ci:1",
        "--project",
        "{project}",
    ),
    "capture": capture("{project}"),
    "import": ("import", "{path}", "--project", "{project}"),
    "refute": ("refute", "{id}", "--reason", "it proved wrong", "--project", "{project}"),
    "consolidate": ("consolidate", "--project", "{project}"),
    "tree rebuild": ("tree", "rebuild", "--project", "{project}"),
    "tree flush": ("tree", "flush", "--max-age", "0", "--project", "{project}"),
    "tree config": ("tree", "config", "--set", "summary_fanout=4", "--project", "{project}"),
    "dox sync": ("dox", "sync", "--project", "{project}"),
    "revolve sync": ("revolve", "sync", "--project", "{project}"),
}


def _state(root: Path) -> tuple[object, ...]:
    """Every row, tombstone, tree node and audit entry the store holds."""
    return tuple(
        tuple(tuple(row) for row in query(root, f"SELECT * FROM {table} ORDER BY rowid"))
        for table in ("memories", "content_tombstones", "audit_log", "tree_nodes")
    )


def _argv(args: tuple[str, ...], project: str, path: Path, memory_id: str) -> list[str]:
    return [
        arg.replace("{project}", project).replace("{path}", str(path)).replace("{id}", memory_id)
        for arg in args
    ]


@pytest.fixture
def seeded(run_cli: CliRunner, tmp_path: Path) -> tuple[Path, str]:
    """A JSONL file to import and a row to refute."""
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"summary": TEXT}) + "\n")
    done = run_cli("--json", "remember", "The deploy runs from the release branch")
    assert done.code == 0, done.err
    return path, str(done.json()["id"])


@pytest.mark.parametrize("verb", list(WRITES))
def test_a_persons_write_naming_another_project_is_refused(
    run_cli: CliRunner, project_root: Path, project_id: str, seeded: tuple[Path, str], verb: str
) -> None:
    path, memory_id = seeded
    before = _state(project_root)
    done = run_cli(*_argv(WRITES[verb], OTHER, path, memory_id))
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        f"error: this store belongs to project {project_id}, not {OTHER}; drop --project, "
        f"or run `tree-ring {verb}` in {OTHER}'s folder\n"
    )
    assert _state(project_root) == before


@pytest.mark.parametrize("verb", ["remember", "evidence", "capture", "import"])
def test_a_persons_write_naming_the_stores_own_project_writes(
    run_cli: CliRunner, project_root: Path, project_id: str, seeded: tuple[Path, str], verb: str
) -> None:
    path, memory_id = seeded
    before = len(query(project_root, "SELECT id FROM memories"))
    done = run_cli(*_argv(WRITES[verb], project_id, path, memory_id))
    assert done.code == 0, done.err
    projects = {row["project"] for row in query(project_root, "SELECT project FROM memories")}
    assert projects == {project_id}
    assert len(query(project_root, "SELECT id FROM memories")) == before + 1


def test_forgotten_text_cannot_come_back_under_another_project(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    made = run_cli("--json", "remember", TEXT)
    assert made.code == 0, made.err
    gone = run_cli("forget", str(made.json()["id"]), "--mode", "delete", "--reason", "never")
    assert gone.code == 0, gone.err
    done = run_cli("remember", TEXT, "--project", OTHER)
    assert done.code == 2 and done.out == ""
    assert query(project_root, "SELECT project, summary FROM memories") == []
    assert run_cli("brief", "--project", OTHER).out.count("dog") == 0


@pytest.mark.parametrize(
    "argv",
    [("remember", TEXT), ("recall", "staging"), ("list",), ("tree", "status"), ("consolidate",)],
)
@pytest.mark.parametrize("value", ["a" * 100_000, "has space", "-leading", "x" * 65, "é-id"])
def test_a_value_that_is_no_project_id_is_refused_unechoed(
    run_cli: CliRunner, project_root: Path, argv: tuple[str, ...], value: str
) -> None:
    before = query(project_root, "SELECT count(*) FROM memories")
    refused = run_cli(*argv, f"--project={value}")
    assert (refused.code, refused.out) == (2, "")
    assert refused.err.count("\n") == 1 and len(refused.err) < 300, refused.err
    assert "expects a project id" in refused.err and value not in refused.err
    assert query(project_root, "SELECT count(*) FROM memories") == before
