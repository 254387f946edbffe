"""Text measured in terminal columns: wide characters, combining marks, zero width.

The screen is held to what a terminal draws, so the expected widths come from
`wcwidth` (what pyte, the terminal the pseudo-terminal tests read, uses), not
from the module under test.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import REPO, make_memory
from wcwidth import wcswidth

from tree_ring.tui import cells, layout, screen
from tree_ring.tui.state import Item, Prompt, State

TREE = "\U0001f332"  # 🌲, East Asian wide
CJK = "年輪"  # two wide characters
COMBINED = "cafe\u0301"  # "café" with a combining acute: four columns
SAMPLES = [TREE, CJK, COMBINED, "a\u200bb", "plain", f"{TREE} {CJK} {COMBINED} │█…"]


@pytest.mark.parametrize("text", SAMPLES)
def test_width_is_what_a_terminal_draws(text: str) -> None:
    assert cells.width(text) == wcswidth(text)


def test_wide_and_zero_width_characters() -> None:
    assert (cells.width(TREE), cells.width(CJK), cells.width(COMBINED)) == (2, 4, 4)
    assert cells.width("\u200b") == 0


def test_a_cut_never_splits_a_wide_character_or_drops_a_mark() -> None:
    assert cells.cut(CJK, 3) == ("年", 2)
    assert cells.cut(COMBINED, 4) == (COMBINED, 4)  # the mark follows its letter
    assert cells.cut(f"ab{TREE}", 3) == ("ab", 2)
    assert cells.clip(f"{CJK}{CJK}", 5) == "年輪…"


def test_wrapped_lines_fit_their_columns() -> None:
    text = f"{CJK * 6} {TREE} the {COMBINED} {TREE * 9}"
    lines = cells.wrap(text, 10, "  ")
    assert all(wcswidth(line) <= 10 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(line.startswith("  ") for line in lines[1:])


def test_ascii_only_keeps_every_column() -> None:
    drawn = cells.ascii_only(f"a{TREE}{COMBINED}")
    assert drawn.isascii() and len(drawn) == 1 + 2 + 4


def columns(line: layout.Line) -> int:
    return sum(wcswidth(text) for text, _ in line)


def wide_state(query: str = f"{TREE} {CJK} {COMBINED}", cursor: int = 0) -> State:
    summaries = [
        f"the {TREE} tree emoji in a summary that runs past the pane",
        f"{CJK}のメモ: tree rings in CJK, wide all along the row and past it",
        f"a {COMBINED} with a combining mark, then more text to the edge",
    ]
    items = [Item(m.id, m) for m in (make_memory("p", s) for s in summaries)]
    return State(view="search", query=query, items=items, cursor=cursor)


@pytest.mark.parametrize(("width", "height"), [(80, 24), (120, 40), (59, 20), (61, 16)])
def test_a_wide_search_and_summaries_keep_every_line_to_the_width(width: int, height: int) -> None:
    for cursor in range(3):
        state = wide_state(cursor=cursor)
        screen = layout.render(state, width, height)
        assert len(screen) == height
        assert [columns(line) for line in screen] == [width] * height
        text = ["".join(t for t, _ in line) for line in screen]
        title = next(line for line in text if "Results:" in line)
        assert title.rstrip().endswith("(3)")
        assert f"Results: {TREE} {CJK} {COMBINED} (3)" in title


def test_a_long_wide_query_is_clipped_and_the_count_kept() -> None:
    state = wide_state(query=CJK * 40)
    screen = layout.render(state, 80, 24)
    title = "".join(t for t, _ in screen[1])
    assert "…" in title and title.rstrip().endswith("(3)")
    assert columns(screen[1]) == 80


def test_a_wide_prompt_keeps_to_the_width() -> None:
    state = State(prompt=Prompt("search", "search", TREE * 60))
    assert columns(layout.render(state, 80, 24)[-2]) == 80


def test_ascii_text_does_not_import_unicodedata() -> None:
    code = (
        "import sys; from tree_ring.tui import layout\n"
        "from tree_ring.tui.state import State\n"
        "layout.render(State(query='cache', view='search'), 80, 24)\n"
        "print('unicodedata' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.strip() == "False"


class Window:
    """Where `Painter.paint` puts each piece of text: (row, column, text)."""

    def __init__(self) -> None:
        self.drawn: list[tuple[int, int, str]] = []

    def erase(self) -> None:
        self.drawn = []

    def addstr(self, y: int, x: int, text: str, attr: int = 0) -> None:
        self.drawn.append((y, x, text))

    def noutrefresh(self) -> None:
        pass


@pytest.mark.parametrize("ascii_only", [False, True])
def test_each_piece_is_painted_at_the_column_the_last_one_ended(
    ascii_only: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import curses

    monkeypatch.setattr(curses, "doupdate", lambda: None)
    window = Window()
    line = layout.fit([(f"{TREE}{CJK}", "plain"), (COMBINED, "dim"), ("|end", "accent")], 20)
    screen.Painter(False).paint(window, [line], ascii_only)  # type: ignore[arg-type] - a stand-in
    starts = [x for _, x, _ in window.drawn]
    assert starts[:3] == [0, 6, 10]
    if ascii_only:
        # A wide character is a ? per column; a mark, which takes none, is left out.
        assert [text for _, _, text in window.drawn[:2]] == ["??????", "cafe"]
