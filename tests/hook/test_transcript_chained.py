"""A shell command is Tree Ring's own, and no work for the stop checkpoint, only
when every command its line runs is Tree Ring's CLI: one that chains, pipes or
backgrounds anything else is work, wherever the Tree Ring part stands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from transcript_support import Step, codex_lines, write_transcript

from tree_ring.hook import transcript

HARNESSES = ("claude-code", "codex")
CAPTURE = 'python3 -I -S "/p/bin/tree-ring" --root "/r" capture "x" --operation-id auto-0a-1'

WORK = [
    "rm -rf build",
    "rm -rf build && tree-ring recall deploy",
    "tree-ring recall deploy && rm -rf build",
    "python3 bin/tree-ring recall x; git push --force origin main",
    "tree-ring recall x || make deploy",
    "tree-ring recall x | tee notes.txt",
    "tree-ring recall x & rm -rf build",
    "tree-ring recall x\nrm -rf build",
    f"{CAPTURE}; rm -rf build",
    # What the shell runs inside, or a file it writes: work unless plainly Tree Ring's.
    'tree-ring recall "$(rm -rf build)"',
    "tree-ring recall `rm -rf build`",
    'tree-ring recall "`rm -rf build`"',
    "tree-ring export > memories.jsonl",
    "tree-ring export >> memories.jsonl",
    "tree-ring recall x 2>errors.txt",
    "(tree-ring recall x; rm -rf build)",
    "{ tree-ring recall x; rm -rf build; }",
    "tree-ring recall x <<EOF\nhi\nEOF",
    'tree-ring recall "a && b',  # a quote left open
    "tree-ring recall ${x:-$(rm -rf build)}",
    "tree-ring recall $'a\\' ; rm -rf build'",
    "bash -c 'tree-ring recall x; rm -rf build'",
    "cd /repo && rm -rf build",
    "cd",
    'python3 -c "import shutil" bin/tree-ring',
    "",
    # A variable that changes which program runs, or what Python loads first.
    "PATH=/tmp/x tree-ring recall x",
    "TREE_RING_HOOKS=off PATH=/tmp/x tree-ring recall x",
    "PYTHONPATH=/tmp/x python3 -m tree_ring recall x",
    "LD_PRELOAD=/tmp/x.so tree-ring recall x",
    "BASH_ENV=/tmp/x bash -c 'tree-ring recall x'",
]
OWN = [
    "tree-ring recall deploy",
    'tree-ring recall "a && b"',
    "tree-ring recall 'a; b | c & d'",
    'tree-ring recall "say \\"x; y\\" $HOME"',
    "tree-ring recall a\\;b",
    "tree-ring recall '$(not run)' '`nor this`'",
    "tree-ring recall deploy && tree-ring brief",
    "tree-ring recall x 2>&1 >/dev/null </dev/null",
    "tree-ring recall x # and a comment; rm -rf build",
    "TREE_RING_HOOKS=off tree-ring recall x",
    "python3 bin/tree-ring recall x; /p/bin/tree-ring status",
    "python3 -m tree_ring recall x",
    "bash -lc 'tree-ring recall x'",
    "cd /repo && tree-ring recall x",
    CAPTURE,
]


def _steps(command: str) -> list[list[Step]]:
    return [[("prompt", "go"), ("shell", command), ("say", "Done.")]]


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("command", WORK)
def test_a_line_that_runs_anything_else_is_work(harness: str, command: str, tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t.jsonl", harness, _steps(command))
    assert transcript.did_work(str(path)) is True


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("command", OWN)
def test_a_line_of_tree_ring_commands_only_is_not_work(
    harness: str, command: str, tmp_path: Path
) -> None:
    path = write_transcript(tmp_path / "t.jsonl", harness, _steps(command))
    assert transcript.did_work(str(path)) is False


def _codex_call(tmp_path: Path, payload: dict[str, Any]) -> str:
    lines = codex_lines([[("prompt", "go")]])
    lines.append({"type": "response_item", "payload": payload})
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("payload", "work"),
    [
        # Codex's `shell` tool and `local_shell_call` name the command as words.
        (
            {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", "tree-ring recall x"]}),
            },
            False,
        ),
        (
            {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps(
                    {"command": ["bash", "-lc", "tree-ring recall x && rm -rf build"]}
                ),
            },
            True,
        ),
        (
            {
                "type": "local_shell_call",
                "action": {"type": "exec", "command": ["tree-ring", "recall", "x; rm"]},
            },
            False,
        ),
        (
            {
                "type": "local_shell_call",
                "action": {"type": "exec", "command": ["rm", "-rf", "bin/tree-ring"]},
            },
            True,
        ),
        (
            {
                "type": "function_call",
                "name": "write_stdin",
                "arguments": json.dumps({"session_id": "1", "chars": "tree-ring status; rm x\n"}),
            },
            True,
        ),
        (
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "make && python3 -I -S /p/bin/tree-ring status"}),
            },
            True,
        ),
    ],
)
def test_codex_command_shapes(tmp_path: Path, payload: dict[str, Any], work: bool) -> None:
    assert transcript.did_work(_codex_call(tmp_path, payload)) is work
