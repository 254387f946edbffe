"""processes.py: a test that fails still ends every process it started,
children of its children included."""

from __future__ import annotations

import os
import selectors
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from processes import end, run, started

# A shell that starts a long sleep and waits for it: two processes, and the
# sleep is the one a kill of the shell alone would leave running.
SHELL_AND_CHILD = ["sh", "-c", "sleep 300 & wait"]


@contextmanager
def held_pipe() -> Iterator[tuple[int, int]]:
    """A pipe whose write end the processes inherit: its read end sees EOF
    only once every process holding the write end has ended."""
    read, write = os.pipe()
    try:
        yield read, write
    finally:
        os.close(read)


def all_ended(read: int, timeout: float = 10) -> bool:
    with selectors.DefaultSelector() as selector:
        selector.register(read, selectors.EVENT_READ)
        if not selector.select(timeout):
            return False
    return os.read(read, 1) == b""


def test_leaving_the_block_by_a_failure_ends_the_process_and_its_children() -> None:
    with held_pipe() as (read, write):
        with (
            pytest.raises(AssertionError, match="planted"),
            started(SHELL_AND_CHILD, pass_fds=(write,)) as proc,
        ):
            os.close(write)
            raise AssertionError("planted")
        assert proc.returncode is not None
        assert all_ended(read)


def test_a_process_that_exited_leaves_no_child_behind() -> None:
    with held_pipe() as (read, write):
        argv = ["sh", "-c", "sleep 300 & exit 0"]
        with started(argv, pass_fds=(write,)) as proc:
            os.close(write)
            assert proc.wait(timeout=30) == 0
        assert all_ended(read)
        end(proc)  # a second end is harmless


def test_a_run_that_times_out_ends_its_whole_group() -> None:
    with held_pipe() as (read, write):
        with pytest.raises(subprocess.TimeoutExpired):
            try:
                run(SHELL_AND_CHILD, timeout=0.5, pass_fds=(write,))
            finally:
                os.close(write)
        assert all_ended(read)


def test_a_run_returns_what_the_process_wrote() -> None:
    done = run(["sh", "-c", "cat; echo err >&2; exit 3"], input=b"in", timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"in", b"err\n")
