"""A bounded read asks for what the file holds, not for its bound.

`os.read(fd, n)` allocates n bytes before it reads: the index reader asked
for 64 MiB + 1 to read a git index of a few kilobytes, and every store's
open (a hook's too) held a 64 MiB buffer for a moment. `project.read_upto`
asks for the file's size and reads on only if the file grew.
"""

from __future__ import annotations

import os
import threading
import tracemalloc
from pathlib import Path

from tree_ring.model import gitdir, project


def _peak(read: object) -> int:
    tracemalloc.start()
    try:
        assert callable(read)
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_small_file_under_a_large_bound_costs_its_size(tmp_path: Path) -> None:
    small = tmp_path / "index"
    small.write_bytes(b"DIRC" + b"x" * 4000)
    fd = os.open(small, os.O_RDONLY)
    try:
        assert _peak(lambda: project.read_upto(fd, gitdir.MAX_INDEX)) < 1 << 20
    finally:
        os.close(fd)
    assert _peak(lambda: gitdir.read_bytes(str(small), gitdir.MAX_INDEX)) < 1 << 20
    assert _peak(lambda: project.read_bytes(small, gitdir.MAX_INDEX)) < 1 << 20


def test_the_bound_and_the_bytes_are_as_before(tmp_path: Path) -> None:
    data = bytes(range(256)) * 1000
    path = tmp_path / "f"
    path.write_bytes(data)
    for limit in (0, 1, 255, len(data) - 1, len(data), len(data) + 1, 1 << 26):
        assert project.read_bytes(path, limit) == data[: limit + 1]
        fd = os.open(path, os.O_RDONLY)
        try:
            # A size that says less than the file holds (it grew since): read on.
            assert project.read_upto(fd, limit, size=3) == data[: limit + 1]
        finally:
            os.close(fd)
    assert gitdir.read_bytes(str(path), len(data)) == data
    assert gitdir.read_bytes(str(path), len(data) - 1) is None


def test_a_pipe_without_a_size_is_read_to_its_end_or_the_bound() -> None:
    payload = b"y" * 300_000
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert project.read_upto(read_end, 1 << 20) == payload
    finally:
        writer.join()
        os.close(read_end)
