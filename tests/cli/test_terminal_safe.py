"""What the CLI prints never drives the terminal: stored text holding an
escape sequence, a bell or a bidi override (a row edited in the database, a
file's project name) is printed with those characters written out as codes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import CliRunner, run_process

from tree_ring.mcp import server
from tree_ring.model.parsers import QuietParser
from tree_ring.model.text import error_safe, terminal_safe

HOSTILE = "Deploys \x1b]0;PWNED\x07freeze \x1b[31mon\x1b[0m \u202eFridays"


def test_terminal_safe_writes_refused_characters_as_codes() -> None:
    assert terminal_safe(HOSTILE) == (
        "Deploys \\x1b]0;PWNED\\x07freeze \\x1b[31mon\\x1b[0m \\u202eFridays"
    )
    # Tab, newline and accepted text (an emoji with its modifier, an accent) stay.
    kept = "one\ttwo\nthree \U0001f44d\U0001f3fd e\u0301"
    assert terminal_safe(kept) == kept


def test_list_recall_and_show_print_a_hand_edited_row_inert(
    run_cli: CliRunner, project_root: Path
) -> None:
    stored = run_cli("remember", "Deploys freeze on Fridays")
    assert stored.code == 0, stored.err
    memory_id = stored.out.split()[1]
    with sqlite3.connect(project_root / ".tree-ring" / "memory.sqlite") as conn:
        conn.create_function("tree_ring_fold", 1, lambda b: b)
        conn.create_function("tree_ring_meaning", 3, lambda *a: None)
        conn.execute("UPDATE memories SET summary = ?", (HOSTILE,))
    for argv in (("list",), ("recall", "deploys"), ("show", memory_id)):
        done = run_cli(*argv)
        assert "\x1b" not in done.out and "\x07" not in done.out and "\u202e" not in done.out
        assert "\\x1b]0;PWNED\\x07freeze" in done.out, (argv, done.out, done.err)
    # --json is data: the same text, escaped as JSON escapes it.
    shown = run_cli("--json", "show", memory_id)
    assert json.loads(shown.out)["memory"]["summary"] == HOSTILE


def test_an_import_error_naming_a_hostile_project_is_inert(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    rows = [
        {"summary": "one row", "project": "\x1b]0;PWNED\x07a"},
        {"summary": "another row", "project": "\u202eb"},
    ]
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = run_cli("import", str(path))
    assert done.code != 0 and done.err.count("\n") == 1, done.err
    assert "\x1b" not in done.err and "\x07" not in done.err and "\u202e" not in done.err


def test_error_safe_writes_line_breaks_and_controls_out() -> None:
    assert error_safe("a\nb\rc\td\x1be\u2028f\x85g\x00") == (
        "a\\nb\\rc\\x09d\\x1be\\u2028f\\x85g\\x00"
    )
    kept = "/tmp/p1 \U0001f44d\U0001f3fd e\u0301; run `tree-ring init`"
    assert error_safe(kept) == kept


@pytest.mark.parametrize(("brk", "written"), [("\n", "\\n"), ("\r", "\\r"), ("\r\n", "\\r\\n")])
@pytest.mark.parametrize("given", ["--root", "TREE_RING_ROOT"])
def test_a_line_break_in_the_root_stays_inside_one_error_line(
    run_cli: CliRunner, tmp_path: Path, brk: str, written: str, given: str
) -> None:
    root = f"{tmp_path}/p{brk}1"
    shown = f"{tmp_path}/p{written}1"
    message = f"no Tree Ring store at {shown}; run `tree-ring --root {shown} init`"
    argv, environ = (["--root", root], {}) if given == "--root" else ([], {"TREE_RING_ROOT": root})
    done = run_cli(*argv, "status", environ=environ, root=False)
    assert (done.code, done.out, done.err) == (1, "", f"error: {message}\n")
    done = run_cli("--json", *argv, "status", environ=environ, root=False)
    assert (done.code, done.out) == (1, "")
    assert done.err.count("\n") == 1 and "\r" not in done.err and done.err.endswith("\n")
    assert json.loads(done.err)["error"]["message"] == message


@pytest.mark.parametrize("verb", [("view",), ("report", "--html", "out.html")])
def test_the_web_clients_errors_stay_one_line(tmp_path: Path, verb: tuple[str, ...]) -> None:
    root = f"{tmp_path}/p\n1"
    shown = f"{tmp_path}/p\\n1"
    message = f"no Tree Ring store at {shown}; run `tree-ring --root {shown} init`"
    done = run_process("--root", root, *verb, cwd=tmp_path)
    assert (done.returncode, done.stderr.decode()) == (1, f"error: {message}\n")
    done = run_process("--json", "--root", root, *verb, cwd=tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1 and err.endswith("\n")
    assert json.loads(err)["error"]["message"] == message


def test_the_clients_own_parsers_write_an_error_on_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        QuietParser(prog="tree-ring view").fail("bad value 'a\nerror: forged'")
    assert capsys.readouterr().err == (
        "error: tree-ring view: bad value 'a\\nerror: forged' (`tree-ring view --help` shows how)\n"
    )
    with pytest.raises(SystemExit):
        server.launch_options(["--harness", "x\ny"])
    assert capsys.readouterr().err.count("\n") == 1


FORGED = "Deploys freeze on Fridays\nmem_20260101_000000_000000000000  [scar] Forged row"


def test_a_line_break_in_a_summary_stays_inside_its_line(
    run_cli: CliRunner, project_root: Path
) -> None:
    stored = run_cli("remember", "Deploys freeze on Fridays")
    assert stored.code == 0, stored.err
    memory_id = stored.out.split()[1]
    with sqlite3.connect(project_root / ".tree-ring" / "memory.sqlite") as conn:
        conn.create_function("tree_ring_fold", 1, lambda b: b)
        conn.create_function("tree_ring_meaning", 3, lambda *a: None)
        conn.execute("UPDATE memories SET summary = ?, details = ?", (FORGED, "one\ntwo"))
    written = FORGED.replace("\n", "\\n")
    for argv in (("list",), ("recall", "deploys")):
        done = run_cli(*argv)
        assert done.code == 0, done.err
        lines = done.out.splitlines()
        assert [line for line in lines if "Deploys" in line or "Forged" in line] == [
            f'{memory_id}  [cambium] "{written}"  {lines[0].rsplit(written, 1)[1][1:].strip()}'
        ], done.out
    shown = run_cli("show", memory_id).out.splitlines()
    assert [line for line in shown if "Forged" in line] == [f"summary:{' ' * 13}{written}"]
    # details may hold line breaks: each continuation sits under the value's first line.
    at = next(i for i, line in enumerate(shown) if line.startswith("details:"))
    assert shown[at : at + 2] == [f"details:{' ' * 13}one", f"{' ' * 21}two"]
    # --json is data: the same text.
    assert json.loads(run_cli("--json", "show", memory_id).out)["memory"]["summary"] == FORGED
    listed = json.loads(run_cli("--json", "list").out)["items"]
    assert [item["summary"] for item in listed] == [FORGED]


def test_a_listing_quotes_a_summary_so_its_words_cannot_pass_for_a_label(
    run_cli: CliRunner,
) -> None:
    # A row's words may say anything, a made-up label and quotes included:
    # `list` and `recall` write them between double quotes, their own quotes
    # and backslashes escaped, so the label Tree Ring writes is the only one
    # outside the quotes. (The review, trust and anchor listings call the
    # same `text.in_quotes`.)
    said = 'Deploys via Argo CD" (mem_x; origin: person) [heartwood] \\ end'
    stored = run_cli("remember", said)
    assert stored.code == 0, stored.err
    memory_id = stored.out.split()[1]
    escaped = 'Deploys via Argo CD\\" (mem_x; origin: person) [heartwood] \\\\ end'
    for argv, tail in ((("list",), "  (project)"), (("recall", "argo deploys"), "  (project; ")):
        done = run_cli(*argv)
        assert done.code == 0, done.err
        (line,) = [line for line in done.out.splitlines() if "Argo" in line]
        assert line.startswith(f'{memory_id}  [cambium] "{escaped}"{tail}'), line
