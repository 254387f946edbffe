"""Files a person names for Tree Ring to write (`export --output`, `report
--html`, `integrations certify --out-dir`, `recall-quality --out-dir`) go
through one check: never into a `.tree-ring/` folder or the user store's
folder, however the path gets there, and a path that cannot be written is
one usage line naming it, with nothing written and the store untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CliRunner, Run

from tree_ring.model import outputs
from tree_ring.model.errors import UsageError
from tree_ring.web.app import main as web_main

USAGE = 2


def refused(result: Run, *fragments: str) -> str:
    assert result.code == USAGE, (result.code, result.err)
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.err
    assert "unexpected" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def store_is_whole(run_cli: CliRunner) -> None:
    listed = run_cli("--json", "list")
    assert listed.code == 0, listed.err
    assert [m["summary"] for m in listed.json()["items"]] == ["Keep me"]


@pytest.fixture
def kept(run_cli: CliRunner) -> CliRunner:
    assert run_cli("remember", "Keep me").code == 0
    return run_cli


def inside_store(root: Path) -> list[str]:
    """Ways to name a file inside `.tree-ring/`: as it is, through `..`,
    relative to the working directory, and through a link."""
    folder = root / ".tree-ring"
    link = root / "innocent.jsonl"
    link.symlink_to(folder / "memory.sqlite")
    linked_dir = root / "elsewhere"
    linked_dir.symlink_to(folder)
    # And a link inside `.tree-ring/` that leads out of it: never followed.
    outside = root.parent / "outside-exports"
    outside.mkdir(exist_ok=True)
    (folder / "exports").symlink_to(outside)
    return [
        str(folder / "exports" / "x.jsonl"),
        str(folder / "memory.sqlite"),
        str(root / "sub" / ".." / ".tree-ring" / "memory.sqlite"),
        os.path.relpath(folder / "memory.sqlite"),
        str(link),
        str(linked_dir / "out.jsonl"),
    ]


def test_export_never_writes_into_the_store_folder(kept: CliRunner, project_root: Path) -> None:
    for path in inside_store(project_root):
        refused(kept("export", "--output", path), path, ".tree-ring/ folder")
        store_is_whole(kept)
    assert not (project_root / ".tree-ring" / "out.jsonl").exists()


def test_export_never_writes_over_the_user_store(kept: CliRunner, tmp_path: Path) -> None:
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    target = user_home / "user.sqlite"
    environ = {"TREE_RING_USER_HOME": str(user_home)}
    refused(kept("export", "--output", str(target), environ=environ), "your user store")
    assert not target.exists()


def test_export_to_a_path_that_cannot_be_written(kept: CliRunner, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "x.jsonl"
    refused(kept("export", "--output", str(missing)), str(missing), "create it")
    refused(kept("export", "--output", str(tmp_path)), str(tmp_path), "is a folder")
    assert not missing.parent.exists()
    store_is_whole(kept)


def test_export_still_writes_a_file_whole(kept: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    result = kept("export", "--output", str(target))
    assert result.code == 0, result.err
    assert "Keep me" in target.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_report_never_writes_into_the_store_folder(
    kept: CliRunner, project_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in inside_store(project_root):
        code = web_main(["report", "--root", str(project_root), "--html", path], {})
        err = capsys.readouterr().err
        assert code == USAGE and err.count("\n") == 1 and ".tree-ring/ folder" in err, err
        store_is_whole(kept)


@pytest.mark.parametrize("verb", [("integrations", "certify"), ("recall-quality",)])
def test_report_folders_are_checked_before_any_work(
    kept: CliRunner, project_root: Path, tmp_path: Path, verb: tuple[str, ...]
) -> None:
    inside = project_root / ".tree-ring"
    refused(kept(*verb, "--out-dir", str(inside)), ".tree-ring/ folder")
    assert not any(p.is_dir() for p in inside.iterdir() if p.name != "receipts")
    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    refused(kept(*verb, "--out-dir", str(a_file)), "cannot create the folder", str(a_file))
    store_is_whole(kept)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_a_folder_that_cannot_be_made_is_a_usage_error(kept: CliRunner) -> None:
    refused(kept("integrations", "certify", "--out-dir", "/proc/x"), "/proc/x", "choose another")


def test_the_check_resolves_links_and_dots(tmp_path: Path) -> None:
    (tmp_path / ".tree-ring").mkdir()
    with pytest.raises(UsageError, match=r"leads into a \.tree-ring/ folder"):
        outputs.check(tmp_path / "a" / ".." / ".tree-ring" / "x", {})
    # A name that only starts like the folder is not it.
    assert outputs.check(tmp_path / ".tree-ring-backup" / "x", {}).endswith("x")


def report(root: Path, path: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = web_main(["report", "--root", str(root), "--html", path], {})
    return code, capsys.readouterr().err


def test_a_pipe_no_one_reads_is_refused_at_once_and_one_that_is_read_is_written(
    kept: CliRunner, project_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # No reader: opening it to write would wait for good; it is refused at once.
    said = f"error: {fifo} is a pipe no one is reading; start its reader first, or name a file\n"
    assert refused(kept("export", "--output", str(fifo))) + "\n" == said
    assert report(project_root, str(fifo), capsys) == (USAGE, said)
    # With a reader (`--output /dev/stdout` into a pipe, `>(...)`): written as it is.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        done = kept("export", "--output", str(fifo))
        assert done.code == 0, done.err
        got = b""
        while chunk := os.read(reader, 65536):
            got += chunk
        assert b"Keep me" in got
    finally:
        os.close(reader)
    store_is_whole(kept)


def test_dev_stdout_into_a_pipe_is_written(
    kept: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    # `/dev/stdout` on a pipe opens, though its target resolves to no path.
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(repo / "bin" / "tree-ring"), "--root", str(project_root),
         "export", "--output", "/dev/stdout"],
        capture_output=True, env={"HOME": str(tmp_path)}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Only the rows on stdout, so the pipe's reader can import them; the status on stderr.
    rows = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [row["summary"] for row in rows] == ["Keep me"]
    assert done.stderr == b"wrote 1 line to /dev/stdout\n"


def test_an_empty_report_path_says_it_is_empty(
    kept: CliRunner, project_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "error: the path is empty; name a file to write\n"
    assert report(project_root, "", capsys) == (USAGE, said)
