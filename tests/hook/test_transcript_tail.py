"""The transcript's tail: the last whole lines within the byte limit."""

from __future__ import annotations

from pathlib import Path

from tree_ring.hook import transcript


def test_tail_drops_the_cut_first_line_and_keeps_the_last_ones(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first line\nsecond\nthird\n")
    assert transcript.tail_lines(str(path), limit=100) == [b"first line", b"second", b"third", b""]
    # 13 bytes from the end start inside "second": that piece is dropped.
    assert transcript.tail_lines(str(path), limit=13) == [b"third", b""]
    # Exactly the last two lines: the cut lands on a line's first byte, still dropped
    # as a part line, since the reader cannot tell.
    assert transcript.tail_lines(str(path), limit=len(b"second\nthird\n")) == [b"third", b""]
    assert transcript.tail_lines(str(path), limit=len(b"first line\nsecond\nthird\n")) == [
        b"first line",
        b"second",
        b"third",
        b"",
    ]


def test_an_unreadable_transcript_has_no_tail(tmp_path: Path) -> None:
    assert transcript.tail_lines(str(tmp_path / "missing.jsonl")) is None
    assert transcript.did_work(str(tmp_path / "missing.jsonl")) is False
    assert transcript.did_work(None) is False
    assert transcript.did_work("") is False
