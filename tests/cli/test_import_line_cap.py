"""A line past import's cap is never read whole: a file or stream with no line
break in it costs bounded memory, and the import is refused in one line
(or, under --skip-invalid, that line is left out and the rest imported)."""

from __future__ import annotations

import io
import json
import resource
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import LAUNCHER, CliRunner, json_lines, run_process
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model.errors import UsageError
from tree_ring.transfer import lines
from tree_ring.transfer.lines import MAX_LINE_BYTES, FileLines

TOO_LONG = f"longer than {MAX_LINE_BYTES:,} bytes"


class Endless(io.RawIOBase):
    """`byte` for ever, but never more than `budget` bytes handed out: a
    reader that asks for more has read past any cap."""

    def __init__(self, byte: bytes = b"a", budget: int = 8 * MAX_LINE_BYTES) -> None:
        self.byte = byte
        self.left = budget

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return 0  # the same bytes wherever it stands

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        if size > self.left:
            raise AssertionError("read past the line cap")
        self.left -= size
        buffer[:size] = self.byte * size
        return size


def endless() -> io.BufferedReader:
    return io.BufferedReader(Endless())


def one_line_error(err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_a_line_with_no_end_is_cut_at_the_cap_and_reading_stops() -> None:
    got = list(FileLines(endless(), "stdin"))
    assert len(got) == 1 and len(got[0]) > MAX_LINE_BYTES
    assert len(got[0]) <= 2 * MAX_LINE_BYTES + 1


def test_under_skip_long_the_rest_of_the_long_line_is_dropped() -> None:
    stream = io.BytesIO(b"x" * (3 * MAX_LINE_BYTES) + b"\r\nnext\nlast")
    got = list(FileLines(stream, "f", skip_long=True))
    assert len(got) == 3 and got[1:] == ["next", "last"]
    assert set(got[0]) == {"x"} and len(got[0]) > MAX_LINE_BYTES


separators = st.text(alphabet="ab é\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", max_size=60)


@settings(max_examples=300, deadline=None)
@given(text=separators, limit=st.integers(1, 12), skip=st.booleans())
def test_lines_past_a_small_cap_are_cut_and_the_rest_are_whole(
    text: str, limit: int, skip: bool
) -> None:
    got = list(FileLines(io.BytesIO(text.encode()), "f", skip_long=skip, limit=limit))
    wanted: list[str] = []
    for line in json_lines(text):
        wanted.append(line)
        if len(line.encode()) > limit and not skip:
            break  # reading stops at the first line past the cap
    assert len(got) == len(wanted), (got, wanted)
    for line, whole in zip(got, wanted, strict=True):
        if len(whole.encode()) <= limit:
            assert line == whole
        else:
            assert whole.startswith(line) and len(line.encode()) > limit


def test_import_of_endless_stdin_is_refused_in_one_line(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = io.TextIOWrapper(endless(), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    result = run_cli("import", "-")
    assert (result.code, result.out) == (2, "")
    one_line_error(result.err, "line 1", TOO_LONG, "nothing imported")


def test_a_long_blank_line_is_too_long_not_blank(run_cli: CliRunner, tmp_path: Path) -> None:
    good = json.dumps({"summary": "After a long blank line", "event_type": "note"})
    batch = tmp_path / "batch.jsonl"
    batch.write_text(" " * (MAX_LINE_BYTES + 5) + "\n" + good + "\n", encoding="utf-8")
    result = run_cli("import", str(batch))
    assert result.code == 2
    one_line_error(result.err, "line 1", TOO_LONG)
    skipped = run_cli("--json", "import", "--skip-invalid", str(batch)).json()
    assert (skipped["imported"], skipped["skipped"]) == (1, 1)


def test_a_pipe_named_as_the_file_is_read_once_and_imported(
    project_root: Path, tmp_path: Path
) -> None:
    import os
    import threading

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    line = json.dumps({"summary": "Sent through a pipe", "event_type": "note"}) + "\n"

    def feed() -> None:
        with fifo.open("w", encoding="utf-8") as handle:
            handle.write(line)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = run_process("--root", str(project_root), "--json", "import", str(fifo), timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["imported"] == 1


def test_an_unreadable_path_says_what_to_do(run_cli: CliRunner, tmp_path: Path) -> None:
    for path in (tmp_path / "absent.jsonl", tmp_path):
        result = run_cli("import", str(path))
        assert result.code == 2
        one_line_error(result.err, f"cannot read {path}", "name a JSONL file")
    with pytest.raises(UsageError, match="cannot read"):
        list(FileLines(tmp_path / "absent.jsonl", "absent.jsonl"))


@pytest.mark.skipif(sys.platform != "linux", reason="/dev/zero and RLIMIT_AS as on Linux")
def test_import_of_dev_zero_stays_within_a_memory_limit(project_root: Path) -> None:
    import subprocess

    limit = 512 * 1024 * 1024

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "--root", str(project_root), "import", "/dev/zero"],
        capture_output=True,
        preexec_fn=bounded,
        timeout=60,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    one_line_error(err, "line 1", TOO_LONG)


def test_under_skip_long_a_line_that_never_ends_is_refused_past_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rest of a line left out is read for its end only so far: past
    that, the file is refused in one line naming it, not read for ever."""
    monkeypatch.setattr(lines, "SKIP_BYTES", 4 * MAX_LINE_BYTES)
    stream = io.BufferedReader(Endless(b"\0", budget=8 * MAX_LINE_BYTES))
    with pytest.raises(UsageError) as raised:
        list(FileLines(stream, "f", skip_long=True))
    assert str(raised.value) == (
        f"f: line 1 has no line break within {4 * MAX_LINE_BYTES:,} bytes past the "
        f"{MAX_LINE_BYTES:,}-byte line cap, too far to read on to leave it out; end that "
        "line with a line break or remove it, then import again; nothing imported"
    )
    # Within the bound, the line is left out and the lines after it are read.
    within = io.BytesIO(b"first\n" + b"x" * (4 * MAX_LINE_BYTES) + b"\nlast\n")
    kept = list(FileLines(within, "f", skip_long=True))
    assert len(kept) == 3 and (kept[0], kept[2]) == ("first", "last")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_import_of_dev_zero_under_skip_invalid_ends_in_one_line(
    project_root: Path, tmp_path: Path
) -> None:
    root = ("--root", str(project_root))
    done = run_process(*root, "import", "--skip-invalid", "/dev/zero", timeout=60)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    bound = f"no line break within {lines.SKIP_BYTES:,} bytes past the"
    one_line_error(done.stderr.decode(), f"/dev/zero: line 1 has {bound}", "nothing imported")


def test_a_file_whose_line_runs_past_the_bound_imports_nothing(
    project_root: Path, tmp_path: Path
) -> None:
    """The rows before the endless line are not imported either."""
    batch = tmp_path / "batch.jsonl"
    first = json.dumps({"summary": "Before the endless line", "event_type": "note"})
    with batch.open("wb") as handle:
        handle.write(first.encode() + b"\n")
        handle.truncate(handle.tell() + 2 * MAX_LINE_BYTES + lines.SKIP_BYTES)  # zeros
    root = ("--root", str(project_root))
    done = run_process(*root, "import", "--skip-invalid", str(batch), timeout=60)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    one_line_error(done.stderr.decode(), f"{batch}: line 2 has no line break", "nothing imported")
    listed = run_process(*root, "list", timeout=60)
    assert listed.returncode == 0 and b"Before the endless line" not in listed.stdout
