"""A caller that writes its payload and leaves stdin open gets its answer once
the hook's wait for the payload's end (`adapter.STDIN_SECONDS`) is over, not
never; both harnesses close stdin, and are answered at once."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from reliability_support import HOOK

from tree_ring.hook import adapter


def test_a_payload_whose_stdin_stays_open_is_answered_after_the_wait(
    project_root: Path,
) -> None:
    payload = {"hook_event_name": "SessionStart", "cwd": str(project_root), "session_id": "s1"}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, str(HOOK), "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(payload).encode())
        process.stdin.flush()
        assert process.wait(timeout=60) == 0
        waited = time.monotonic() - started
        answer = json.loads(process.stdout.read())
    finally:
        process.stdin.close()
        process.kill()
    assert "Tree Ring memory for project" in answer["hookSpecificOutput"]["additionalContext"]
    # It waited for the end that never came, then answered: not forever.
    assert waited >= adapter.STDIN_SECONDS
