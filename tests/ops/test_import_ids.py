"""A file's own memory ids are names like any other: guarded for secrets and
checked against what the project forgot, as an agent profile or an
operation id is; an id Tree Ring made names nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CliRunner

from tree_ring.model.record import generated_id, new_memory_id

TOKEN = "ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
FORGOTTEN = "The lima subsystem handles limaware routing for every tenant"


def line(memory_id: str, project: str, summary: str = "innocuous note text here") -> str:
    return json.dumps({"id": memory_id, "project": project, "summary": summary})


def project_of(run_cli: CliRunner) -> str:
    return run_cli("--json", "status").json()["project"]


def test_an_id_holding_a_secret_is_refused(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(line(f"mem_{TOKEN}", project_of(run_cli)) + "\n")
    done = run_cli("import", str(path))
    assert done.code != 0 and "secret" in done.err and TOKEN not in done.err
    assert run_cli("--json", "list").json()["items"] == []


def test_an_id_spelling_forgotten_words_is_refused(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    gone = run_cli("--json", "remember", FORGOTTEN).json()["id"]
    assert run_cli("forget", gone, "--mode", "delete", "--reason", "wrong").code == 0
    path = tmp_path / "in.jsonl"
    spelled = "mem_" + FORGOTTEN.replace(" ", "_")
    path.write_text(line(spelled, project_of(run_cli)) + "\n")
    done = run_cli("import", str(path))
    assert done.code != 0 and "forgotten" in done.err
    assert run_cli("--json", "list").json()["items"] == []
    # The same file with an id of Tree Ring's own shape imports.
    path.write_text(line(new_memory_id(), project_of(run_cli)) + "\n")
    assert run_cli("import", str(path)).code == 0


@pytest.mark.parametrize(
    ("memory_id", "made"),
    [
        ("mem_20261204_223653_a27bf567eb16", True),
        ("mem_20261204_223653_A27BF567EB16", False),
        ("mem_20261204_22365_a27bf567eb16", False),
        ("mem_2026120４_223653_a27bf567eb16", False),
        ("mem_dox_a27bf567eb16", False),
        ("mem_20261204_223653_a27bf567eb16_x", False),
    ],
)
def test_which_ids_tree_ring_made(memory_id: str, made: bool) -> None:
    assert generated_id(memory_id) is made
