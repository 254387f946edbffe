"""Processes a test starts, ended however the test ends.

`started` runs a command in a process group of its own and, when its block
is left (the test passed, an assertion failed, a read timed out, Ctrl-C),
kills what is left of that group: the process and anything it started. A
test that fails therefore leaves no server, writer or CLI running behind it.
`run` is `subprocess.run` on the same terms: on a timeout the whole group
goes, not only the process the test started. `Spawner` (conftest.py's `spawn`
fixture) starts processes that the test's teardown ends.

Imported as `from processes import ...`, like helpers.py.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from typing import Any


@contextmanager
def started(argv: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """`subprocess.Popen(argv, **popen)` in a new session; its group is killed on leaving."""
    proc: subprocess.Popen[Any] = subprocess.Popen(argv, start_new_session=True, **popen)
    try:
        yield proc
    finally:
        end(proc)


def end(proc: subprocess.Popen[Any]) -> None:
    """Kill the process group `proc` leads, reap `proc`, close its pipes."""
    with suppress(ProcessLookupError, PermissionError):  # the group is gone already
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with suppress(BrokenPipeError):  # stdin's unsent rest, to a process now gone
                stream.close()


class Spawner:
    """Starts processes with `started`; `close` (the fixture's teardown) ends them all."""

    def __init__(self) -> None:
        self._stack = ExitStack()

    def __call__(self, argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
        return self._stack.enter_context(started(argv, **popen))

    def close(self) -> None:
        self._stack.close()


def run(
    argv: Sequence[str], *, input: Any = None, timeout: float, **popen: Any
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(argv, capture_output=True, timeout=timeout)`, in a group that a
    timeout kills whole; `subprocess.TimeoutExpired` carries what was read."""
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    with started(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen) as proc:
        out, err = proc.communicate(input, timeout=timeout)
        return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def first_line(proc: subprocess.Popen[Any], timeout: float = 60) -> Any:
    """The first line `proc` writes to its stdout pipe; fails after `timeout`
    seconds instead of waiting for ever on a process that never writes one."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise AssertionError(f"no output within {timeout} s from {proc.args}")
    return proc.stdout.readline()
