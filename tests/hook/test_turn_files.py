"""The Stop checkpoint keeps the files its turn edited, and the capture it
names anchors to them: only paths inside the project (none opened by the
hook), the checkpoint's text unchanged, the hook silent on anything odd."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO

from tree_ring.hook import transcript
from tree_ring.model import turn_files

LAUNCHER = REPO / "hooks" / "tree_ring_hook.py"


def claude_edit(name: str, path: str) -> dict[str, Any]:
    key = "notebook_path" if name == "NotebookEdit" else "file_path"
    block = {"type": "tool_use", "id": "t", "name": name, "input": {key: path}}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def prompt(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def codex_patch(patch: str) -> dict[str, Any]:
    payload = {"type": "custom_tool_call", "name": "apply_patch", "input": patch}
    return {"type": "response_item", "payload": payload}


def write_lines(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def stop(harness: str, root: Path, transcript_path: str, session: str = "sess-1") -> dict[str, Any]:
    payload = {
        "session_id": session,
        "transcript_path": transcript_path,
        "cwd": str(root),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "turn_id": "turn-1",
    }
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), harness],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out: dict[str, Any] = json.loads(proc.stdout) if proc.stdout else {}
    return out


@pytest.fixture
def files(project_root: Path, tmp_path: Path) -> dict[str, Path]:
    (project_root / "src").mkdir()
    made = {
        "edited": project_root / "src" / "retry.py",
        "written": project_root / "notes.md",
        "earlier": project_root / "old.py",
        "outside": tmp_path / "outside.py",
    }
    for path in made.values():
        path.write_text("x = 1\n")
    return made


def test_the_turns_edits_inside_the_project_are_kept_and_nothing_else(
    project_root: Path, files: dict[str, Path], tmp_path: Path
) -> None:
    lines = [
        prompt("first turn"),
        claude_edit("Edit", str(files["earlier"])),  # a turn before: not this one's
        prompt("fix the retry"),
        claude_edit("Edit", str(files["edited"])),
        claude_edit("Write", str(files["written"])),
        claude_edit("MultiEdit", str(files["edited"])),
        claude_edit("Write", str(files["outside"])),
        claude_edit("Write", "/etc/passwd"),
        claude_edit("Edit", str(project_root / ".git" / "config")),
        claude_edit("Edit", str(project_root / ".tree-ring" / "project.json")),
        claude_edit("Edit", str(project_root / "src" / ".." / ".." / "escape.py")),
    ]
    path = write_lines(tmp_path / "t.jsonl", lines)
    out = stop("claude-code", project_root, path)
    assert out["decision"] == "block"
    assert set(turn_files.load(str(project_root), "claude-code", "sess-1")) == {
        "src/retry.py",
        "notes.md",
    }


def test_the_capture_the_checkpoint_names_anchors_to_them_and_its_text_is_unchanged(
    project_root: Path, files: dict[str, Path], tmp_path: Path
) -> None:
    quiet = write_lines(tmp_path / "quiet.jsonl", [prompt("go"), {"type": "assistant", "message": {
        "role": "assistant", "content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": "make"}}]}}])  # fmt: skip
    edits = write_lines(
        tmp_path / "edits.jsonl", [prompt("go"), claude_edit("Edit", str(files["edited"]))]
    )
    plain = stop("claude-code", project_root, quiet, session="sess-q")["reason"]
    anchored = stop("claude-code", project_root, edits, session="sess-e")["reason"]

    def masked(text: str) -> str:
        return re.sub(r"[0-9a-f]{12}", "CHECKPOINT", text.replace("sess-e", "sess-q"))

    assert masked(anchored) == masked(plain)
    assert len(anchored) <= 600
    command = anchored.split("\n")[1].replace("ONE_SENTENCE_SUMMARY", "Retry needs jitter")
    env = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sess-e", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [*shlex.split(command), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [a["path"] for a in json.loads(done.stdout)["anchors"]] == ["src/retry.py"]


def capture_anchors(
    reason: str, env: dict[str, str], summary: str = "Retry needs jitter"
) -> list[str]:
    """The paths the memory the checkpoint's capture command stores is anchored to."""
    command = reason.split("\n")[1].replace("ONE_SENTENCE_SUMMARY", summary)
    done = subprocess.run(
        [*shlex.split(command), "--json"],
        capture_output=True,
        text=True,
        env={**env, "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [a["path"] for a in json.loads(done.stdout)["anchors"]]


def test_a_claude_code_and_a_codex_session_with_one_id_keep_a_list_each(
    project_root: Path, files: dict[str, Path], tmp_path: Path
) -> None:
    claude = write_lines(
        tmp_path / "claude.jsonl", [prompt("go"), claude_edit("Edit", str(files["edited"]))]
    )
    codex = write_lines(
        tmp_path / "codex.jsonl",
        [
            {"type": "event_msg", "payload": {"type": "task_started"}},
            codex_patch("*** Begin Patch\n*** Update File: notes.md\n+x\n*** End Patch"),
        ],
    )
    claude_reason = stop("claude-code", project_root, claude, session="same")["reason"]
    codex_reason = stop("codex", project_root, codex, session="same")["reason"]
    root = str(project_root)
    assert turn_files.load(root, "claude-code", "same") == ["src/retry.py"]
    assert turn_files.load(root, "codex", "same") == ["notes.md"]
    receipts = project_root / ".tree-ring" / "receipts"
    assert {p.name for p in receipts.glob("*.files")} == {
        "claude-code.same.files",
        "codex.same.files",
    }
    # Each capture anchors to its own session's turn, whichever stopped last.
    claude_env = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "same"}
    assert capture_anchors(claude_reason, claude_env) == ["src/retry.py"]
    assert capture_anchors(codex_reason, {"CODEX_SESSION_ID": "same"}) == ["notes.md"]


def test_codex_apply_patch_names_its_files_relative_to_the_session(
    project_root: Path, files: dict[str, Path], tmp_path: Path
) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/retry.py\n@@\n-x = 1\n+x = 2\n"
        "*** Add File: notes.md\n+hello\n*** Update File: ../outside.py\n"
        "*** Delete File: old.py\n*** End Patch"
    )
    lines = [
        {"type": "event_msg", "payload": {"type": "task_started"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "go"}]}},
        codex_patch(patch),
    ]  # fmt: skip
    path = write_lines(tmp_path / "c.jsonl", lines)
    assert stop("codex", project_root, path)["decision"] == "block"
    assert set(turn_files.load(str(project_root), "codex", "sess-1")) == {
        "src/retry.py",
        "notes.md",
    }


def test_a_patch_codex_applied_from_a_shell_command_is_read_from_its_file_change(
    project_root: Path, files: dict[str, Path], tmp_path: Path
) -> None:
    # The model wrote `apply_patch` as a shell command; Codex applied it and
    # recorded the change as an item, with absolute paths.
    shell = {
        "type": "function_call",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": "apply_patch <<'EOF'\n...\nEOF"}),
    }
    change = {
        "type": "item_completed",
        "item": {
            "type": "FileChange",
            "status": "completed",
            "changes": {
                str(project_root / "src" / "retry.py"): {"type": "update"},
                "/etc/passwd": {"type": "update"},
                str(project_root / ".git" / "x"): {},
            },
        },
    }
    lines = [
        {"type": "event_msg", "payload": {"type": "task_started"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "go"}]}},
        {"type": "response_item", "payload": shell},
        {"type": "event_msg", "payload": change},
    ]  # fmt: skip
    path = write_lines(tmp_path / "s.jsonl", lines)
    assert stop("codex", project_root, path)["decision"] == "block"
    assert set(turn_files.load(str(project_root), "codex", "sess-1")) == {"src/retry.py"}


def test_a_function_call_apply_patch_is_read_too(tmp_path: Path) -> None:
    arguments = json.dumps({"input": "*** Begin Patch\n*** Update File: a.py\n*** End Patch"})
    payload = {"type": "function_call", "name": "apply_patch", "arguments": arguments}
    entry = {"type": "response_item", "payload": payload}
    path = write_lines(tmp_path / "f.jsonl", [prompt("go"), entry])
    assert transcript.changed_files(path) == ["a.py"]


@pytest.mark.parametrize("session", ["../x", ".hidden", "a/b", "", "x" * 300])
def test_a_session_id_that_names_another_place_keeps_nothing(
    project_root: Path, session: str
) -> None:
    assert turn_files.path(str(project_root), "codex", session) is None
    turn_files.save(str(project_root), "codex", session, ["a.py"])
    assert turn_files.load(str(project_root), "codex", session) == []


@pytest.mark.parametrize("harness", ["", ".", "..", "a/b", "../x", "codex.x", "x" * 65])
def test_a_harness_name_that_names_another_place_keeps_nothing(
    project_root: Path, harness: str
) -> None:
    assert turn_files.path(str(project_root), harness, "s") is None
    turn_files.save(str(project_root), harness, "s", ["a.py"])
    assert turn_files.load(str(project_root), harness, "s") == []
    assert list((project_root / ".tree-ring").rglob("*.files")) == []


def test_a_garbled_list_reads_as_none(project_root: Path) -> None:
    turn_files.save(str(project_root), "codex", "s", ["a.py"])
    target = turn_files.path(str(project_root), "codex", "s")
    assert target is not None
    for garbage in (b"{", b'{"a": 1}', b'["../x", "/etc/passwd", 7, "ok.py"]'):
        Path(target).write_bytes(garbage)
        expected = ["ok.py"] if b"ok" in garbage else []
        assert turn_files.load(str(project_root), "codex", "s") == expected


@pytest.mark.parametrize(
    ("summary", "anchored"),
    [
        ("Retry needs jitter", {"src/retry.py"}),
        ("RETRY.PY backs off twice", {"src/retry.py"}),
        ("src/retry.py backs off twice", {"src/retry.py"}),
        ("Keep notes.md short", {"notes.md"}),
        ("The release notes go in NOTES", {"notes.md"}),
        ("Retry once; notes.md says why", {"src/retry.py", "notes.md"}),
        ("Migrations run on a replica first", {"src/retry.py", "notes.md"}),
        ("Retrying twice is enough", {"src/retry.py", "notes.md"}),
    ],
)
def test_a_capture_is_anchored_to_the_turns_files_it_names(
    project_root: Path, files: dict[str, Path], tmp_path: Path, summary: str, anchored: set[str]
) -> None:
    """Of the files the turn changed, those the note names; all of them when it names none."""
    lines = [
        prompt("go"),
        claude_edit("Edit", str(files["edited"])),
        claude_edit("Write", str(files["written"])),
    ]
    reason = stop("claude-code", project_root, write_lines(tmp_path / "t.jsonl", lines))["reason"]
    env = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sess-1"}
    assert set(capture_anchors(reason, env, summary)) == anchored
