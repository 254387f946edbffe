"""`tree-ring tui` for real: a pseudo-terminal, keys sent, the screen read back."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import LAUNCHER, run_process
from terminal import Terminal

pytestmark = pytest.mark.slow

AGENT_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sess-tui"}


@pytest.fixture(autouse=True)
def no_terminal_left() -> Iterator[None]:
    """A test that fails with a `tree-ring tui` running leaves none behind."""
    yield
    Terminal.close_all()


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = run_process("--root", str(root), *args, env=env)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


@pytest.fixture
def root(project_root: Path) -> Path:
    for summary in ("the build uses make", "deploys go out on tuesdays", "tests run with pytest"):
        cli(project_root, "remember", summary)
    cli(project_root, "remember", "the dentist appointment is about a root canal")
    return project_root


@pytest.fixture
def term(root: Path) -> Iterator[Terminal]:
    opened = Terminal(root)
    opened.wait_for("TREE RING")
    yield opened


def selected(term: Terminal) -> str:
    return next(line for line in term.lines() if "│> " in line)


def test_opens_on_the_rings_and_the_newest_memories(term: Terminal) -> None:
    term.wait_for("tests run with pytest")
    term.wait_for("live:")  # the second frame: the first comes before the counts
    lines = term.lines()
    # The header counts as `tree-ring status` does: the private row is live,
    # and hidden from the list until asked.
    assert lines[0].startswith(" TREE RING  rings:ambient  live:4  hidden:1  review:0")
    assert "Ambient rings" in lines[1] and "Memories (3)" in lines[1]
    assert "tests run with pytest" in selected(term)
    assert "dentist" not in term.text  # sensitive: hidden until asked
    # The key help on two lines: every key of a wide screen's footer at 80 columns.
    assert lines[-2].startswith("q quit  ? help") and lines[-2].rstrip().endswith("v review")
    assert lines[-1].startswith("a approve") and "l log  t time  w stream" in lines[-1]
    assert "trust: accepted" in term.text and "origin: person" in term.text


def test_moves_down_and_up(term: Terminal) -> None:
    term.wait_for("tests run with pytest")
    term.keys("j")
    assert "deploys go out on tuesdays" in selected(term)
    term.keys("j", "j", "j")
    assert "the build uses make" in selected(term)
    term.keys("k", "g")
    assert "tests run with pytest" in selected(term)


def test_search_shows_recall_hits(term: Terminal) -> None:
    term.keys("s")
    term.type("deploys")
    term.keys("\r")
    term.wait_for("Results: deploys (1)")
    assert "deploys go out on tuesdays" in selected(term)
    assert "the build uses make" not in term.text


def test_toggle_sensitive(term: Terminal) -> None:
    term.keys("i")
    term.wait_for("dentist")
    assert "[health]" in term.row_with("dentist")
    # Shown, the private row is live and listed: the header counts it.
    assert "live:4  private:1" in term.lines()[0] and "Memories (4)" in term.text
    term.keys("i")
    term.wait_for(lambda text: "dentist" not in text)


def test_approve_a_pending_memory(root: Path) -> None:
    cli(
        root,
        *("remember", "always run the linter first", "--ring", "heartwood", "--scope", "project"),
        env=AGENT_ENV,
    )
    term = Terminal(root)
    term.wait_for("review:1")
    # The pending memory is listed (labelled); the header counts it as waiting, not live.
    term.wait_for("Memories (4)")
    assert "live:4  hidden:1" in term.lines()[0]
    term.keys("v")
    term.wait_for("Review queue (1)")
    assert "always run the linter" in selected(term)
    term.keys("a")
    term.wait_for("? y/n")
    term.keys("y")
    term.wait_for("approved mem_")
    term.wait_for("review:0")
    term.keys("q")
    assert term.finish() == 0
    assert "review queue: empty" in cli(root, "review", "list")
    assert "always run the linter first" in cli(root, "recall", "linter")


def test_forget_with_a_reason_and_recall_no_longer_finds_it(term: Terminal, root: Path) -> None:
    assert "deploys go out" in cli(root, "recall", "deploys tuesdays")
    term.keys("j")
    assert "deploys go out on tuesdays" in selected(term)
    term.keys("f")
    term.wait_for("reason")
    term.type("we deploy daily now")
    term.keys("\r")
    term.wait_for("? y/n (reason: we deploy daily")
    term.keys("y")
    term.wait_for("deleted mem_")
    assert "deploys go out" not in term.text
    term.keys("q")
    assert term.finish() == 0
    # Recall may still find a memory related in meaning ("the build uses
    # make"), never the forgotten one, by its words or its own text.
    for question in ("deploys tuesdays", "deploys go out on tuesdays"):
        assert "tuesdays" not in cli(root, "recall", question)
    assert "we deploy daily now" in cli(root, "audit", "log")


def test_a_write_from_another_process_shows_within_a_second(term: Terminal, root: Path) -> None:
    term.wait_for("tests run with pytest")
    cli(root, "remember", "written from another terminal")
    # The loop polls every quarter second; a loaded machine gets some slack.
    took = term.wait_for("written from another terminal", timeout=5)
    assert took < 1.5
    assert "live:5" in term.lines()[0]  # the private row too, as `status` counts


def test_resize_redraws_at_the_new_size(term: Terminal) -> None:
    term.wait_for("tests run with pytest")
    term.resize(120, 40)

    def redrawn(text: str) -> bool:
        # The emulator has 40 lines at once; the program's redraw comes after.
        last = text.splitlines()[-1]
        return "accepted person" in text and last.rstrip().endswith("R reload")

    term.wait_for(redrawn)
    lines = term.lines()
    assert len(lines) == 40
    assert lines[-2].startswith("q quit  ? help") and lines[-1].rstrip().endswith("R reload")
    assert "accepted person" in term.row_with("tests run with pytest")
    term.resize(80, 24)
    term.wait_for(lambda text: text.splitlines()[-2].startswith("q quit") and "acc  person" in text)
    assert "acc  person" in term.row_with("tests run with pytest")
    term.resize(40, 12)  # the list alone
    term.wait_for(lambda text: "Ambient" not in text)
    assert "tests run with pytest" in term.text


def test_colours_by_default_and_none_under_no_color(root: Path) -> None:
    def colours(env: dict[str, str]) -> set[str]:
        term = Terminal(root, env=env)
        term.wait_for("tests run with pytest")
        found = {cell.fg for row in term.screen.buffer.values() for cell in row.values()} | {
            cell.bg for row in term.screen.buffer.values() for cell in row.values()
        }
        term.keys("q")
        assert term.finish() == 0
        return found - {"default"}

    assert colours({}) != set()
    assert colours({"NO_COLOR": "1"}) == set()


def test_q_restores_the_terminal(term: Terminal) -> None:
    term.keys("q")
    assert term.finish() == 0
    assert term.left_alternate_screen()
    assert term.modes_restored()


def test_ctrl_c_restores_the_terminal(term: Terminal) -> None:
    term.keys("/")
    term.type("remem")
    term.child.sendintr()
    assert term.finish() == 130
    assert term.left_alternate_screen()
    assert term.modes_restored()


def _store_digest(root: Path) -> tuple[str, int]:
    db = sqlite3.connect(root / ".tree-ring" / "memory.sqlite")
    memories = db.execute("SELECT * FROM memories ORDER BY id").fetchall()
    entries = db.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    db.close()
    return hashlib.sha256(repr(memories).encode()).hexdigest(), entries


def test_navigation_alone_never_writes(root: Path) -> None:
    cli(root, "remember", "a pending one", "--ring", "heartwood", env=AGENT_ENV)
    before = _store_digest(root)
    watcher = sqlite3.connect(root / ".tree-ring" / "memory.sqlite")
    version = watcher.execute("PRAGMA data_version").fetchone()[0]
    term = Terminal(root)
    term.wait_for("review:1")
    term.keys(
        "j", "j", "k", "G", "g", "i", "u", "r", "r", "l", "l", "v", "w", "e", "m", "?", "\x1b"
    )
    term.keys("s")
    term.type("build")
    term.keys("\r", "t")
    term.type("2020-01-01")
    term.keys("\r", "/")
    term.type("integrations")
    term.keys("\r", "a", "n", "f", "\x1b", "q")
    assert term.finish() == 0
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == version
    watcher.close()
    assert _store_digest(root) == before


def test_refuses_without_a_terminal(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "tui", "--root", str(root)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode().count("\n") == 1
    assert done.stderr.startswith(b"error: tree-ring tui needs a terminal")


def test_promote_an_agents_capture_from_the_inbox(root: Path) -> None:
    cli(root, "remember", "the flaky upload test needs a retry", env=AGENT_ENV)
    term = Terminal(root)
    term.wait_for("inbox:1")
    term.keys("n")
    term.wait_for("Inbox (1)")
    assert "the flaky upload test" in selected(term)
    term.keys("p")
    term.wait_for("promote mem_")
    term.type("every session should know")
    term.keys("\r")
    term.wait_for("? y/n (reason: every session")
    term.keys("y")
    term.wait_for("promoted mem_")
    term.keys("q")
    assert term.finish() == 0
    shown = json.loads(cli(root, "list", "--json"))
    (promoted,) = [m for m in shown["items"] if "flaky upload" in m["summary"]]
    assert promoted["scope"] == "project"


TREE, CJK, COMBINED = "\U0001f332", "年輪", "cafe\u0301"
WIDE = f"the {TREE} tree: {CJK} rings, a {COMBINED} note, and words to the pane's edge"


def divider_columns(term: Terminal) -> set[int]:
    """The columns the panes' divider is drawn in, over the body's rows."""
    body = range(1, term.screen.lines - 3)
    return {x for y in body for x, cell in term.screen.buffer[y].items() if cell.data == "│"}


def test_wide_characters_keep_the_title_and_the_panes_in_place(project_root: Path) -> None:
    cli(project_root, "remember", WIDE)
    term = Terminal(project_root)
    term.wait_for("Memories (1)")
    term.keys("s")
    term.type(f"{TREE} {CJK} {COMBINED}")
    term.keys("\r")
    term.wait_for("Results:")
    title = term.row_with("Results:")
    # The title ends with its count: the wide characters took their two columns
    # each, so nothing was pushed off the screen's edge.
    # (pyte composes a letter and its combining mark into one character.)
    composed = unicodedata.normalize("NFC", COMBINED)
    assert title.rstrip().endswith(f"Results: {TREE} {CJK} {composed} (1)")
    assert f"the {TREE} tree: {CJK} rings, a caf" in selected(term)  # cut at the edge
    # The detail wraps the summary by columns: no word is lost past the edge.
    detail = " ".join(line.split("│")[-1].strip() for line in term.lines()[13:22])
    assert f"summary: {unicodedata.normalize('NFC', WIDE)}" in detail
    assert divider_columns(term) == {30}
    # A query too wide for the title is clipped; the count stays on the screen.
    term.keys("s", *["\x7f"] * 20)
    term.type(f"{TREE} {CJK * 12}")
    term.keys("\r")
    term.wait_for(lambda text: f"Results: {TREE} 年" in text and "…" in text)
    assert term.row_with("Results:").rstrip().endswith("… (0)")
    assert divider_columns(term) == {30}
    term.keys("\x1b", "q")
    assert term.finish() == 0
