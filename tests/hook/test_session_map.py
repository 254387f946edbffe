"""The Codex SessionStart hook records its session's project for the MCP server.

Outside git, a Codex tool call names its session and nothing more; the hook,
which saw the session's cwd, writes the pair to `sessions.json` in the user's
Tree Ring folder (model/sessions.py), and the server reads it back by id.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from mcp_support import session

from tree_ring.hook import adapter
from tree_ring.model import sessions


def start(harness: str, root: Path, session: str, environ: dict[str, str]) -> str:
    """Run one SessionStart hook; what it said on stderr."""
    payload = {"hook_event_name": "SessionStart", "session_id": session, "cwd": str(root / "src")}
    (root / "src").mkdir(exist_ok=True)
    err = io.StringIO()
    saved, sys.stderr = sys.stderr, err
    try:
        code = adapter.main(
            harness, io.BytesIO(json.dumps(payload).encode()), environ, io.BytesIO()
        )
    finally:
        sys.stderr = saved
    assert code == 0
    return err.getvalue()


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def test_a_codex_start_records_the_project_and_the_server_finds_it_by_id(
    project_root: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    assert start("codex", project_root, "thread-1", home) == ""
    assert sessions.root_of(home, "thread-1") == str(project_root)
    # The server, started elsewhere with a stale PWD, as Codex starts it.
    elsewhere = tmp_path / "plugin"
    elsewhere.mkdir()
    pipe = session({**home, "PWD": str(elsewhere)}, elsewhere, harness="codex")
    reply = pipe.request(
        "tools/call",
        {"name": "remember", "arguments": {"summary": "Recorded by id."},
         "_meta": {"sessionId": "thread-1", "threadId": "thread-1"}},
    )  # fmt: skip
    assert reply["result"]["structuredContent"]["ok"] is True, reply
    status = pipe.request("tools/call", {"name": "status", "_meta": {"sessionId": "thread-1"}})
    assert status["result"]["structuredContent"]["root"] == str(project_root)


def test_a_claude_code_start_records_nothing(
    project_root: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    # Claude Code names the project to its server (CLAUDE_PROJECT_DIR).
    start("claude-code", project_root, "s-1", home)
    assert not (tmp_path / "me" / sessions.FILE).exists()


def test_the_map_keeps_the_newest_sessions_only(tmp_path: Path, home: dict[str, str]) -> None:
    for n in range(sessions.MAX_SESSIONS + 20):
        sessions.record(home, f"t-{n}", f"/p/{n}", 1000 + n)
    kept = json.loads((tmp_path / "me" / sessions.FILE).read_text())["sessions"]
    newest = {f"t-{n}" for n in range(20, sessions.MAX_SESSIONS + 20)}
    assert set(kept) == newest
    assert sessions.root_of(home, "t-0") is None
    assert (
        sessions.root_of(home, f"t-{sessions.MAX_SESSIONS + 19}")
        == f"/p/{sessions.MAX_SESSIONS + 19}"
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        '{"sessions": []}',
        '{"sessions": {"t": "x"}}',
        '{"sessions": {"t": ["rel", 1]}}',
    ],
)
def test_a_damaged_map_finds_nothing_and_is_rewritten(
    tmp_path: Path, home: dict[str, str], text: str
) -> None:
    (tmp_path / "me").mkdir()
    (tmp_path / "me" / sessions.FILE).write_text(text)
    assert sessions.root_of(home, "t") is None
    sessions.record(home, "t2", "/p/2", 5)
    assert sessions.root_of(home, "t2") == "/p/2"


def test_a_linked_map_or_folder_is_refused_and_the_hook_stays_open(
    project_root: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / sessions.FILE).write_text(json.dumps({"sessions": {"t": [str(elsewhere), 1]}}))
    (tmp_path / "me").symlink_to(elsewhere)
    before = (elsewhere / sessions.FILE).read_text()
    err = start("codex", project_root, "thread-2", home)
    assert "session not recorded for the MCP server" in err and "symbolic link" in err
    assert (elsewhere / sessions.FILE).read_text() == before
    (tmp_path / "me").unlink()
    (tmp_path / "me").mkdir()
    (tmp_path / "me" / sessions.FILE).symlink_to(elsewhere / sessions.FILE)
    err = start("codex", project_root, "thread-2", home)
    assert "symbolic link" in err and (elsewhere / sessions.FILE).read_text() == before
    with pytest.raises(Exception, match="symbolic link"):
        sessions.root_of(home, "t")


RECORD = """\
import sys
sys.path.insert(0, sys.argv[1])
from tree_ring.model import sessions
sessions.record({"TREE_RING_USER_HOME": sys.argv[2]}, sys.argv[3], sys.argv[4], 1)
"""


def test_sessions_starting_together_each_keep_their_entry(tmp_path: Path) -> None:
    import subprocess

    repo = str(Path(__file__).resolve().parents[2])
    home = tmp_path / "me"
    started = [
        subprocess.Popen(
            [sys.executable, "-c", RECORD, repo, str(home), f"s-{n}", f"/work/p{n}"],
            stderr=subprocess.PIPE,
        )
        for n in range(24)
    ]
    for process in started:
        assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
    environ = {"TREE_RING_USER_HOME": str(home)}
    assert {n: sessions.root_of(environ, f"s-{n}") for n in range(24)} == {
        n: f"/work/p{n}" for n in range(24)
    }


def test_a_lock_held_too_long_costs_the_entry_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl
    import os

    environ = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    sessions.record(environ, "first", "/work/a", 1)
    path = sessions.path_str(environ)
    assert path is not None
    held = os.open(path + ".lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    monkeypatch.setattr(sessions, "LOCK_WAIT_SECONDS", 0.05)
    try:
        with pytest.raises(OSError, match="being written by another start"):
            sessions.record(environ, "second", "/work/b", 2)
    finally:
        os.close(held)
    assert sessions.root_of(environ, "second") is None
    sessions.record(environ, "second", "/work/b", 2)
    assert sessions.root_of(environ, "second") == "/work/b"
