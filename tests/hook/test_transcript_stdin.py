"""Codex's `write_stdin` feeds a running command: work, unless it types Tree Ring's own CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transcript_support import codex_lines

from tree_ring.hook import transcript


def _turn(path: Path, name: str, arguments: dict[str, str]) -> str:
    lines = codex_lines([[("prompt", "go")]])
    lines.append(
        {
            "type": "response_item",
            "payload": {"type": "function_call", "name": name, "arguments": json.dumps(arguments)},
        }
    )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("name", "arguments", "work"),
    [
        ("write_stdin", {"session_id": "1", "chars": "make deploy\n"}, True),
        ("write_stdin", {"session_id": "1", "chars": "tree-ring remember 'use uv'\n"}, False),
        ("exec_command", {"cmd": "tree-ring remember 'use uv'"}, False),
        # Any other tool changes something, whatever its arguments mention.
        ("apply_patch", {"input": "docs: run tree-ring remember after a fix"}, True),
    ],
)
def test_what_a_codex_call_counts_as(
    tmp_path: Path, name: str, arguments: dict[str, str], work: bool
) -> None:
    assert transcript.did_work(_turn(tmp_path / "t.jsonl", name, arguments)) is work
