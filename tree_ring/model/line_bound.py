"""A ledger's lines read a block at a time, no line held past a bound.

The team ledger is a file anyone who can push can change, and one line of it
can be gigabytes long (a line of one character compresses in git to a few
megabytes). Every reader of it (a sync, the SessionStart hook, `init` of a
clone, `doctor`, the merge driver, the upstream's copy read from git) reads
its lines through `lines`, which holds no more than MAX_LINE_BYTES + 1 bytes
of any one line, whatever its length: a longer line comes cut short, long
enough for a check to see that it is too long and skip it, and the rest of it
is read past a block at a time and dropped, never joined, as an import reads
a line past its cap (`transfer/lines.py`). A ledger without such a line reads
as its bytes.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import IO

BLOCK = 1 << 16  # read at a time: a cut line costs about this beyond its bytes kept
MAX_LINE_BYTES = 1_000_000  # a longer line is skipped, never checked nor carried


def lines(handle: IO[bytes], size: int = -1, limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of `handle` from where it stands (`size` bytes of it, or all
    when negative), as `bytes.split(b"\\n")` of them would give them, the piece
    after the last newline too; except that a line longer than `limit` bytes
    comes cut short, as its first `limit` + 1 bytes, and the rest of it is
    read a block at a time and dropped. Joined by newlines, the lines are the
    bytes themselves when no line is that long."""
    left = size
    carry = b""  # the first bytes (at most limit + 1) of a line no newline has ended yet
    while left:
        block = handle.read(BLOCK if left < 0 else min(BLOCK, left))
        if not block:
            break
        left -= len(block) if left > 0 else 0
        parts = block.split(b"\n")
        tail = parts.pop()
        if parts:
            # Past the bound, only as many bytes are taken as the cut keeps.
            parts[0] = carry + parts[0][: limit + 1 - len(carry)] if len(carry) <= limit else carry
            for part in parts:
                yield part if len(part) <= limit else part[: limit + 1]
            carry = b""
        if len(carry) <= limit:
            carry += tail[: limit + 1 - len(carry)]
    yield carry


def bounded(handle: IO[bytes], size: int = -1) -> bytes:
    """`size` bytes of `handle` (all when negative), every line longer than
    MAX_LINE_BYTES cut short (`lines`): the bytes themselves when none is."""
    return b"\n".join(lines(handle, size))
