"""A ledger's lines read a block at a time: the lines `bytes.split(b"\\n")`
gives, a line past the bound cut to its first bound + 1 bytes, wherever the
blocks and the range read begin and end."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model import line_bound

LIMIT = 10


def expected(data: bytes) -> list[bytes]:
    return [line[: LIMIT + 1] for line in data.split(b"\n")]


@settings(max_examples=300, deadline=None, database=None)
@given(
    data=st.binary(max_size=60).map(lambda b: b.replace(b"\x00", b"\n")),
    block=st.integers(min_value=1, max_value=16),
    start=st.integers(min_value=0, max_value=60),
    size=st.integers(min_value=-1, max_value=60),
)
def test_the_lines_are_splits_lines_cut_at_the_bound(
    data: bytes, block: int, start: int, size: int
) -> None:
    start = min(start, len(data))
    handle = io.BytesIO(data)
    handle.seek(start)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(line_bound, "BLOCK", block)
        got = list(line_bound.lines(handle, size, limit=LIMIT))
    part = data[start:] if size < 0 else data[start : start + size]
    assert got == expected(part)


def test_a_ledger_without_a_long_line_reads_as_its_bytes() -> None:
    data = b"".join(b'{"id":"%d"}\n' % n for n in range(50_000)) + b"{}"
    assert line_bound.bounded(io.BytesIO(data)) == data


def test_a_long_line_is_read_past_in_blocks() -> None:
    """Every read asks for at most a block, whatever the line's length."""
    reads: list[int] = []

    class Counted(io.BytesIO):
        def read(self, size: int | None = -1, /) -> bytes:
            reads.append(-1 if size is None else size)
            return super().read(size)

    data = b"a\n" + b"A" * (3 * line_bound.MAX_LINE_BYTES) + b"\nb"
    lines = list(line_bound.lines(Counted(data)))
    assert lines == [b"a", b"A" * (line_bound.MAX_LINE_BYTES + 1), b"b"]
    assert 0 < max(reads) <= line_bound.BLOCK
