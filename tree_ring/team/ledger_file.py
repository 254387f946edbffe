"""The team ledger's file read a block at a time, and where two versions of it differ.

The SessionStart hook's pass over a changed ledger (`ledger_delta.py`) compares
the ledger with the bytes the last sync kept beside the store. Both can be
tens of megabytes, and reading them whole costs the hook more than comparing
them, so a file is read by offset into one reused buffer, and only the lines
between the longest common head and tail of whole lines are split.

Every reader of the ledger, of the bytes kept beside the store and of the
upstream's copy git gives reads its lines through `line_bound.lines`, which
holds no more than MAX_LINE_BYTES + 1 bytes of any one line, whatever its
length.
"""

from __future__ import annotations

import os
import stat

from tree_ring.model import line_bound

CHUNK = 1 << 16
# The ledger and the kept bytes are compared a block at a time, each read into a
# buffer small enough to stay in cache (a 1 MiB block cost twice the CPU). Not
# `mmap`: a file cut short while mapped kills the process (SIGBUS), and the hook
# must fail open.
BLOCK = 1 << 16
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class FullPass(Exception):
    """The change cannot be read apart from the rest: sync the whole ledger."""


class Opened:
    """A regular file open for reading, following no link: its status and any
    range of its bytes, read by offset; the whole is read only when asked
    (reading two ledgers whole costs the hook more than comparing them)."""

    def __init__(self, fd: int, info: os.stat_result) -> None:
        self.fd, self.info, self.size = fd, info, info.st_size
        self._data: bytes | None = None
        self._buffer = bytearray()  # one block, read into again and again

    def block(self, start: int, length: int) -> bytes | bytearray:
        """`length` bytes from `start`, in a buffer this file reuses (valid
        until its next call): no fresh memory for each block of a large file."""
        if self._data is not None or length > BLOCK:
            return self.read(start, start + length)
        if len(self._buffer) != BLOCK:
            self._buffer = bytearray(BLOCK)
        view = memoryview(self._buffer)[:length]
        done = 0
        try:
            while done < length:
                got = os.preadv(self.fd, [view[done:]], start + done)
                if not got:
                    raise FullPass("the file changed while read")
                done += got
        except OSError as error:
            raise FullPass("the file cannot be read") from error
        finally:
            view.release()
        return self._buffer if length == BLOCK else self._buffer[:length]

    @classmethod
    def open(cls, path: str) -> Opened | None:
        """The file at `path`; None when absent, a link or not a regular file.
        Opened without blocking: a FIFO there is refused by `fstat`, not waited on."""
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
        except OSError:
            os.close(fd)
            return None
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            return None
        return cls(fd, info)

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the file as its status measured it; FullPass
        when it shrank or cannot be read meanwhile."""
        if self._data is not None:
            return self._data[start:end]
        chunks: list[bytes] = []
        try:
            while start < end:
                chunk = os.pread(self.fd, end - start, start)
                if not chunk:
                    raise FullPass("the file changed while read")
                chunks.append(chunk)
                start += len(chunk)
        except OSError as error:
            raise FullPass("the file cannot be read") from error
        return b"".join(chunks)

    @property
    def data(self) -> bytes:
        """The whole file, a line longer than MAX_LINE_BYTES cut short (`line_bound`)."""
        if self._data is not None:
            return self._data
        data = b"\n".join(self.lines(0, self.size))
        if len(data) == self.size:  # no line cut: offsets into it are the file's
            self._data = data
        return data

    def lines(self, start: int, end: int) -> list[bytes]:
        """The lines of bytes [start, end), as `line_bound.lines` gives them; FullPass
        when the file shrank or cannot be read meanwhile."""
        if self._data is not None:
            return self._data[start:end].split(b"\n")
        try:
            with open(self.fd, "rb", closefd=False) as handle:
                handle.seek(start)
                found = list(line_bound.lines(handle, end - start))
                if handle.tell() != end:
                    raise FullPass("the file changed while read")
        except OSError as error:
            raise FullPass("the file cannot be read") from error
        return found

    def close(self) -> None:
        os.close(self.fd)


def _common_prefix(a: bytes, b: bytes, limit: int) -> int:
    start = 0
    while start < limit:
        end = min(start + CHUNK, limit)
        if a[start:end] != b[start:end]:
            low, high = start, end  # a[:low] == b[:low]; they differ before high
            while high - low > 1:
                middle = (low + high) // 2
                if a[low:middle] == b[low:middle]:
                    low = middle
                else:
                    high = middle
            return low
        start = end
    return limit


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    done = 0
    while done < limit:
        step = min(CHUNK, limit - done)
        if a[len(a) - done - step : len(a) - done] != b[len(b) - done - step : len(b) - done]:
            low, high = done, done + step  # the last `low` bytes agree; not the last `high`
            while high - low > 1:
                middle = (low + high) // 2
                if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
                    low = middle
                else:
                    high = middle
            return low
        done += step
    return limit


def common_head(now: Opened, seen: Opened, limit: int) -> int:
    """The length of the longest common prefix, read a block at a time."""
    start = 0
    while start < limit:
        end = min(start + BLOCK, limit)
        if now.block(start, end - start) != seen.block(start, end - start):
            a, b = now.read(start, end), seen.read(start, end)
            return start + _common_prefix(a, b, end - start)
        start = end
    return limit


def _tail(now: Opened, seen: Opened, limit: int) -> int:
    """The length of the longest common suffix, up to `limit`, a block at a time."""
    done = 0
    while done < limit:
        step = min(BLOCK, limit - done)
        if now.block(now.size - done - step, step) != seen.block(seen.size - done - step, step):
            a = now.read(now.size - done - step, now.size - done)
            b = seen.read(seen.size - done - step, seen.size - done)
            return done + _common_suffix(a, b, step)
        done += step
    return limit


def line_start(found: Opened, at: int) -> int:
    """The start of the line holding offset `at` (just after a newline before it)."""
    while at > 0:
        low = max(0, at - CHUNK)
        newline = found.read(low, at).rfind(b"\n")
        if newline >= 0:
            return low + newline + 1
        at = low
    return 0


def next_line(found: Opened, at: int) -> int:
    """Just after the first newline at or after `at`; 0 when there is none."""
    while at < found.size:
        high = min(found.size, at + CHUNK)
        newline = found.read(at, high).find(b"\n")
        if newline >= 0:
            return at + newline + 1
        at = high
    return 0


def changed_lines(
    now: Opened, seen: Opened, same: int | None = None
) -> tuple[set[bytes], set[bytes]]:
    """(lines of `now` not among `seen`'s, lines of `seen` not among `now`'s),
    read only between the longest common head and tail of whole lines (`same`:
    the common head's length, when known)."""
    shorter = min(now.size, seen.size)
    same = common_head(now, seen, shorter) if same is None else same
    head = line_start(now, same)  # a line start, in the common head
    tail = _tail(now, seen, shorter - head)
    cut = next_line(now, now.size - tail) if tail else 0  # a line start, in the tail
    tail = now.size - cut if cut and tail else 0
    added = set(now.lines(head, now.size - tail))
    removed = set(seen.lines(head, seen.size - tail))
    return {r for r in added - removed if r.strip()}, {r for r in removed - added if r.strip()}
