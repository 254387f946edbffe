"""The transcript's tail: the last whole lines within the byte limit."""

from __future__ import annotations

import os
import subprocess
import sys
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


def test_a_fifo_or_a_device_is_no_transcript_and_never_waited_on(tmp_path: Path) -> None:
    # Opening a FIFO that no one writes blocks a plain open() for good: the
    # Stop hook would hang until the harness killed it. Run in a child so a
    # regression fails here instead of hanging the suite.
    fifo = tmp_path / "t.fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.jsonl"
    link.symlink_to(fifo)
    probe = (
        "import sys\n"
        "from tree_ring.hook import transcript\n"
        "print([transcript.tail_lines(p) is None and transcript.did_work(p) is False"
        " for p in sys.argv[1:]])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(fifo), str(link), "/dev/null", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    assert done.stdout.strip() == "[True, True, True, True]"
