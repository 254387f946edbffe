"""Running `tree-ring` with its stderr on a terminal or a pipe, for the
progress tests: what a command draws depends on which one it gets."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from processes import run, started

REPO = Path(__file__).resolve().parents[1]


def clean_env() -> dict[str, str]:
    """This environment without Tree Ring's or a harness's identity."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TREE_RING_", "CLAUDE"))}
    env.pop("CODEX_SESSION_ID", None)
    return env


def run_tree_ring(root: Path, args: list[str], *, tty: bool) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of `tree-ring --root ROOT ARGS`; with
    `tty`, stderr is a pseudo-terminal and stdout stays a pipe."""
    argv = [sys.executable, "-m", "tree_ring", "--root", str(root), *args]
    if not tty:
        done = run(argv, env=clean_env(), cwd=REPO, timeout=60)
        return done.returncode, done.stdout, done.stderr
    main, child = pty.openpty()
    try:
        with started(
            argv,
            stdout=subprocess.PIPE,
            stderr=child,
            env=clean_env(),
            cwd=REPO,
            stdin=subprocess.DEVNULL,
        ) as proc:
            os.close(child)
            out = proc.communicate(timeout=60)[0]
        err = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child's side closed
                break
            if not chunk:
                break
            err += chunk
        return proc.returncode, out, err
    finally:
        os.close(main)
