"""The transcript's tail: the last whole lines within the byte limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def _claude_turn(tmp_path: Path, result_bytes: int) -> str:
    import json

    lines = [
        {"type": "user", "message": {"role": "user", "content": "fix the bug in big.py"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "name": "Edit",
                        "id": "toolu_1",
                        "input": {"file_path": "/x/big.py", "old_string": "a", "new_string": "b"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]},
            "toolUseResult": {"filePath": "/x/big.py", "originalFile": "x" * result_bytes},
        },
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text"}]}},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_a_long_line_after_the_call_does_not_hide_it(tmp_path: Path) -> None:
    # An Edit's record holds the whole file it edited: larger than the tail.
    path = _claude_turn(tmp_path, transcript.TAIL_BYTES * 3)
    assert transcript.did_work(path) is True
    assert transcript.changed_files(path) == ["/x/big.py"]
    lines = transcript.tail_lines(path)
    assert lines is not None and max(map(len, lines)) <= transcript.LONG_LINE
    # The prompt, the call, the long record's head, the closing text, the last "".
    assert len(lines) == 5 and len(lines[2]) == transcript.HEAD


def test_the_lines_before_a_long_one_within_the_cap_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _claude_turn(tmp_path, transcript.TAIL_BYTES * 3)
    monkeypatch.setattr(transcript, "READ_CAP", transcript.TAIL_BYTES * 2)
    assert transcript.did_work(path) is False  # the call lies past the cap


def test_a_file_of_one_long_line_is_its_head(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"y" * (transcript.TAIL_BYTES * 2))
    assert transcript.tail_lines(str(path)) == [b"y" * transcript.HEAD]
    path.write_bytes(b"y" * (transcript.TAIL_BYTES * 2) + b"\nlast\n")
    assert transcript.tail_lines(str(path)) == [b"y" * transcript.HEAD, b"last", b""]


def _lines(path: Path, lines: list[dict[str, object]]) -> str:
    import json

    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _call(name: str, **given: object) -> dict[str, object]:
    content = [{"type": "tool_use", "id": "toolu_1", "name": name, "input": given}]
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


PROMPT = {"type": "user", "message": {"role": "user", "content": "go"}}
DONE = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text"}]}}


def test_a_call_too_long_to_read_whole_is_judged_by_its_head(tmp_path: Path) -> None:
    # A Write's call holds the file it writes: past the tail's window.
    body = "x" * (transcript.TAIL_BYTES * 2)
    wrote = _lines(tmp_path / "w.jsonl", [PROMPT, _call("Write", file_path="/x/a", content=body)])
    assert transcript.did_work(wrote) is True
    read = _lines(tmp_path / "r.jsonl", [PROMPT, _call("Read", file_path="/x/a", note=body)])
    assert transcript.did_work(read) is False


def test_many_long_results_after_the_call_do_not_hide_it(tmp_path: Path) -> None:
    # Each read's record is under the window but together they fill it.
    result = {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]},
        "toolUseResult": {"file": {"content": "r" * 63_000}},
    }
    lines = [PROMPT, _call("Edit", file_path="/x/a", old_string="a", new_string="b")]
    lines += [_call("Read", file_path="/x/b"), result] * 5 + [DONE]
    assert transcript.did_work(_lines(tmp_path / "t.jsonl", lines)) is True
