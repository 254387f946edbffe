"""What the CLI prints never drives the terminal: stored text holding an
escape sequence, a bell or a bidi override (a row edited in the database, a
file's project name) is printed with those characters written out as codes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import CliRunner

from tree_ring.model.text import terminal_safe

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
