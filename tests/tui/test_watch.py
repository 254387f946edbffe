"""The screen's loop in-process: a write from another connection is seen, counted and shown.

A stand-in for the curses window paints into a list of lines and answers
`get_wch` from a script: each step either presses a key or lets the poll
time out (curses raises `curses.error` then), after running what another
process would do meanwhile. The loop itself (`screen.run`) is the real one.
"""

from __future__ import annotations

import curses
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import PERSON, make_memory

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.tui import screen
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State
from tree_ring.write import pipeline

Step = tuple[Callable[[], object] | None, str | None]  # what happens first; the key, or a timeout


class Window:
    def __init__(self, steps: list[Step], size: tuple[int, int] = (24, 100)) -> None:
        self.steps = steps
        self.size = size
        self.frames: list[list[str]] = []
        self.lines: dict[int, str] = {}
        self.ended = 0
        self.reads: list[int] = []  # how many frames were painted when each key was read

    def getmaxyx(self) -> tuple[int, int]:
        return self.size

    def keypad(self, flag: bool) -> None:
        pass

    def timeout(self, ms: int) -> None:
        pass

    def bkgd(self, *args: object) -> None:
        pass

    def erase(self) -> None:
        self.lines = {}

    def addstr(self, y: int, x: int, text: str, attr: int = 0) -> None:
        line = self.lines.get(y, "")
        self.lines[y] = line[:x].ljust(x) + text

    def noutrefresh(self) -> None:
        self.frames.append([self.lines.get(y, "") for y in range(self.size[0])])
        if len(self.frames) > 200:  # a loop that never reads a key would paint for ever
            raise AssertionError("the loop paints without reading keys")

    def get_wch(self) -> str:
        self.reads.append(len(self.frames))
        if not self.steps:
            self.ended += 1
            if self.ended > 3:  # a loop that ignores q would spin for ever
                raise AssertionError("the loop did not end on q")
            return "q"  # a script that ran out ends the loop
        before, key = self.steps.pop(0)
        if before is not None:
            before()
        if key is None:
            raise curses.error("no input")
        return key


@pytest.fixture(autouse=True)
def no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """curses' module-level calls need a real terminal; the window is a stand-in."""
    for name in ("curs_set", "set_escdelay", "doupdate"):
        monkeypatch.setattr(curses, name, lambda *args: None)


def _remember(root: Path, summary: str) -> str:
    """A write from another process: its own connection."""
    with Store.open(root) as store:
        pid = project.load_project_id(root)
        return pipeline.store_memory(store, make_memory(pid, summary), PERSON).id


def _run(root: Path, steps: list[Step]) -> tuple[Window, State]:
    window = Window(steps)
    session = Session(str(root), {})
    state = State()
    try:
        screen.run(window, session, state, False, True)  # type: ignore[arg-type] - a stand-in
    finally:
        session.close()
    return window, state


def test_a_write_elsewhere_is_counted_and_shown_at_the_next_poll(project_root: Path) -> None:
    _remember(project_root, "the build uses make")
    written: list[str] = []
    steps: list[Step] = [
        (None, None),  # an idle poll: nothing changed
        (lambda: written.append(_remember(project_root, "deploys go out on tuesdays")), None),
        (None, None),
        (lambda: written.append(_remember(project_root, "tests run with pytest")), None),
    ]
    window, state = _run(project_root, steps)
    assert state.changes == 2
    assert {item.key for item in state.items} >= set(written)
    header = window.frames[-1][0]
    assert "live:3" in header and "watching (2 from elsewhere)" in header
    # The first frame comes before the inbox is counted; the second, with the
    # count, right after it, before the loop waits for a key at all.
    assert window.reads[0] == 2
    assert "inbox:" not in window.frames[0][0] and "inbox:0" in window.frames[1][0]
    # Before any write elsewhere, the header says it watches and counts nothing.
    assert "watching" in window.frames[1][0] and "from elsewhere" not in window.frames[1][0]
    # Drawn with the box characters of a terminal that takes unicode.
    assert any("│" in line for line in window.frames[-1])


def test_a_paused_screen_does_not_reload(project_root: Path) -> None:
    _remember(project_root, "the build uses make")
    steps: list[Step] = [
        (None, "/"),
        *((None, ch) for ch in "watch"),
        (None, "\n"),
        (lambda: _remember(project_root, "deploys go out on tuesdays"), None),
        (None, None),
    ]
    window, state = _run(project_root, steps)
    assert state.watching is False and state.changes == 0
    assert [i.memory.summary for i in state.items if i.memory] == ["the build uses make"]
    assert "paused" in window.frames[-1][0] and "live:1" in window.frames[-1][0]


def test_a_write_of_its_own_is_not_counted_as_from_elsewhere(project_root: Path) -> None:
    _remember(project_root, "the build uses make")
    steps: list[Step] = [
        (None, "/"),
        *((None, ch) for ch in "remember the cache is warmed at noon"),
        (None, "\n"),
        (None, "y"),  # confirmed: the loop writes through its own connection
        (None, None),
        (None, None),
    ]
    window, state = _run(project_root, steps)
    assert state.changes == 0
    summaries = {i.memory.summary for i in state.items if i.memory}
    assert summaries == {"the build uses make", "the cache is warmed at noon"}
    assert "from elsewhere" not in window.frames[-1][0] and "live:2" in window.frames[-1][0]
