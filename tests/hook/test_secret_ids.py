"""A payload whose session id, turn id or subagent type reads as a secret is
refused as an unusable id is: the hook, run as the harnesses run it, exits 0,
says one line on stderr without the secret, and writes nothing anywhere (no
receipt, no session state, no usage line, no sessions map, no checkpoint)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from test_adapter import payload

from tree_ring.guard import find_secret
from tree_ring.model.text import is_uuid

LAUNCHER = REPO / "hooks" / "tree_ring_hook.py"
TOKEN = "ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"


def files(under: Path) -> dict[str, bytes]:
    return {str(p.relative_to(under)): p.read_bytes() for p in under.rglob("*") if p.is_file()}


def run(harness: str, data: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    """The hook as hooks.json runs it: `python3 -I -S` and the launcher."""
    return subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), harness],
        input=json.dumps(data).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )


def assert_refused_and_nothing_written(
    harness: str, data: dict[str, Any], tmp_path: Path, field: str
) -> None:
    before = files(tmp_path)
    proc = run(harness, data)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        f"tree-ring hook ({harness}): refused: payload field {field} reads as a secret "
        "(github-token); nothing recorded\n"
    )
    assert files(tmp_path) == before


def test_a_codex_stop_whose_session_id_is_a_token_writes_nothing(
    project_root: Path, tmp_path: Path
) -> None:
    data = {
        "session_id": TOKEN,
        "turn_id": "t5",
        "transcript_path": "/tmp/x.jsonl",
        "cwd": str(project_root),
        "hook_event_name": "Stop",
        "model": "gpt-5",
        "stop_hook_active": False,
    }
    assert_refused_and_nothing_written("codex", data, tmp_path, "session_id")


@pytest.mark.parametrize(
    "name", ["codex-session-start", "claude-code-session-start", "codex-stop", "claude-code-stop"]
)
def test_no_event_writes_a_session_id_that_is_a_token(
    name: str, project_root: Path, tmp_path: Path
) -> None:
    """A stop whose transcript shows work (it would block) and a start (it would
    write the brief's receipt, a usage line and, for Codex, the sessions map)."""
    harness = "claude-code" if name.startswith("claude-code") else "codex"
    data = payload(name, project_root, session_id=TOKEN)
    assert_refused_and_nothing_written(harness, data, tmp_path, "session_id")
    assert not (tmp_path / "home" / ".local").exists()


def test_a_turn_id_that_is_a_token_is_refused(project_root: Path, tmp_path: Path) -> None:
    data = payload("codex-stop", project_root, turn_id=TOKEN)
    assert_refused_and_nothing_written("codex", data, tmp_path, "turn_id")


def test_a_prompt_id_that_is_a_token_is_refused(project_root: Path, tmp_path: Path) -> None:
    data = payload("claude-code-stop", project_root, prompt_id=TOKEN)
    assert_refused_and_nothing_written("claude-code", data, tmp_path, "turn_id")


def test_a_subagent_type_that_is_a_token_is_refused(project_root: Path, tmp_path: Path) -> None:
    data = payload("codex-subagent-start", project_root, agent_type=TOKEN)
    assert_refused_and_nothing_written("codex", data, tmp_path, "agent_type")


def test_ordinary_ids_still_block(project_root: Path) -> None:
    """Ids that are not UUIDs go to the guard, and pass it."""
    data = payload("codex-stop", project_root, session_id="thread-1", turn_id="t5")
    proc = run("codex", data)
    assert proc.stderr == b""
    assert json.loads(proc.stdout)["decision"] == "block"


UUIDS = st.uuids().map(str) | st.uuids().map(lambda u: str(u).upper())


@settings(max_examples=300, deadline=None, database=None)
@given(text=UUIDS | st.text(alphabet=st.sampled_from(list("0aF-gx")), max_size=40))
def test_the_uuid_check_is_the_pattern_it_replaces(text: str) -> None:
    pattern = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    assert is_uuid(text) == bool(re.fullmatch(pattern, text))


@settings(max_examples=300, deadline=None, database=None)
@given(value=st.uuids())
def test_the_guard_reads_no_uuid_as_a_secret(value: uuid.UUID) -> None:
    """What lets a UUID skip the guard at hook start-up."""
    assert find_secret(str(value)) is None
    assert find_secret(str(value).upper()) is None
