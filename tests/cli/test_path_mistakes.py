"""Ordinary path mistakes are usage errors: a project root that is a file, a
folder `init` cannot create, a scenario file that is endless or nested too
deep. Each is one line naming the path, exit 2, never exit 70's
"unexpected ..." (that is for faults no check foresaw). And a value given
where an id goes that is no id is not echoed back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import CliRunner, Run

from tree_ring.cli import app

USAGE = 2


def run(*argv: str, environ: dict[str, str] | None = None) -> Run:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = app.main(list(argv), environ or {})
    return Run(code, out.getvalue(), err.getvalue())


def usage_line(result: Run, *fragments: str) -> None:
    assert result.code == USAGE, (result.code, result.err)
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.err
    assert "unexpected" not in lines[0], lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("not a project\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("verb", [("list",), ("init",), ("recall", "x"), ("status",)])
def test_a_root_that_is_a_file(a_file: Path, verb: tuple[str, ...]) -> None:
    usage_line(run("--root", str(a_file), *verb), str(a_file), "not a folder", "--root")
    usage_line(run(*verb, environ={"TREE_RING_ROOT": str(a_file)}), str(a_file), "not a folder")
    assert a_file.read_text(encoding="utf-8") == "not a project\n"


@pytest.mark.parametrize("verb", [("list",), ("init",), ("recall", "x"), ("status",)])
def test_a_root_no_folder_can_have(tmp_path: Path, verb: tuple[str, ...]) -> None:
    """A name longer than the file system's limit, or a loop of links: one
    line, exit 2, and the path (which may be any size) is not echoed."""
    long = str(tmp_path / ("a" * 300))
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for root in (long, str(loop / "inside"), long * 40):
        result = run("--root", root, *verb)
        usage_line(result, "cannot look inside the project folder (", "--root")
        assert "a" * 300 not in result.err and str(loop) not in result.err


def test_init_where_no_folder_can_be_made(a_file: Path) -> None:
    inside_a_file = a_file / "project"
    usage_line(run("init", "--root", str(inside_a_file)), "not a folder")
    if os.path.isdir("/proc/self"):
        usage_line(run("init", "--root", "/proc"), "cannot create /proc/.tree-ring", "--root")


def test_a_scenario_that_is_no_scenario_fails_as_a_scenario(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = run_cli("quality", str(deep))
    assert result.code == 1 and "not valid JSON" in result.out, (result.code, result.err)
    if os.path.exists("/dev/zero"):
        result = run_cli("quality", "/dev/zero")
        assert result.code == 1 and "longer than" in result.out, (result.code, result.err)


@pytest.mark.parametrize(
    "verb",
    [
        ("show", "{}"),
        ("forget", "{}", "--mode", "delete", "--reason", "r"),
        ("review", "approve", "{}"),
    ],
)
def test_an_id_that_is_no_id_is_not_echoed(run_cli: CliRunner, verb: tuple[str, ...]) -> None:
    """Whatever was given in an id's place (a sentence, a key pasted by
    mistake) is not echoed; an id-shaped value that names nothing is."""
    sentence = "The vault unseal phrase is crimson otter ninety"
    said = run_cli(*(word.format(sentence) for word in verb))
    assert said.code == 1 and sentence not in said.err and "otter" not in said.err
    assert "it is no id: ids read mem_ then" in said.err
    missing = "mem_20260101_000000_0123456789ab"
    assert f"no memory {missing!r}" in run_cli(*(word.format(missing) for word in verb)).err


def test_importing_the_team_ledger_says_sync_reads_it(
    run_cli: CliRunner, project_root: Path
) -> None:
    # The ledger sits beside the export a person means to import: its first
    # line is its header, and every line names its record.
    done = run_cli("remember", "The release train leaves on Tuesdays")
    assert done.code == 0, done.err
    assert run_cli("sync").code == 0
    ledger = project_root / ".tree-ring" / "ledger.jsonl"
    _header, *lines = ledger.read_text().splitlines()
    for text in (ledger.read_text(), "\n".join(lines) + "\n"):
        path = project_root / "wrong.jsonl"
        path.write_text(text)
        done = run_cli("import", str(path))
        assert done.code == USAGE and len(done.err.splitlines()) == 1, done.err
        assert "a team ledger's line" in done.err and "`tree-ring sync` reads" in done.err
    assert int(run_cli("--json", "list").json()["total"]) == 1
