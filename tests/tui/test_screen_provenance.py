"""The screen says who put a memory there when a team ledger line did.

The store is built through real git (tests/provenance_support.py): an
upstream line names its commit and author, a working-tree line is a claim,
and both show under the id of the selected memory or request. The author is
whatever a commit says: it is shown on one line, its escapes and bidi
controls inert, cut to the pane by the cells it takes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from provenance_support import CLAIM, DECISION, Scene, cli, set_author, team
from terminal import Terminal

from tree_ring.tui import cells, layout
from tree_ring.tui.state import Item, State

pytestmark = pytest.mark.slow

OWN = "Bob keeps the changelog in docs/CHANGES.md"
WIDE = "漢字" * 40
HOSTILE = "<script>alert(1)</script>\n\x1b[31mforged: line\x1b[0m\u202e " + WIDE


@pytest.fixture
def opened() -> Iterator[list[Terminal]]:
    terms: list[Terminal] = []
    yield terms
    for term in terms:
        if term.child.isalive():
            term.child.terminate(force=True)


def screen(scene: Scene, terms: list[Terminal]) -> Terminal:
    term = Terminal(scene.root, columns=140, lines=40)
    terms.append(term)
    term.wait_for("TREE RING")
    return term


def search(term: Terminal, words: str) -> None:
    term.keys("s")
    term.type("\x7f" * 40 + words)  # the prompt holds the last query: erased first
    term.keys("\r")
    term.wait_for(f"Results: {words} (1)")


def detail(term: Terminal) -> list[str]:
    """The detail pane's lines, right of the separator, below its title."""
    lines = term.lines()
    start = next(i for i, line in enumerate(lines) if "│Detail" in line)
    # The pane ends where the separator does: the key help below spans the screen.
    return [line.split("│", 1)[1].rstrip() for line in lines[start + 1 :] if "│" in line]


def test_an_upstream_line_names_its_commit_and_author(
    tmp_path: Path, opened: list[Terminal]
) -> None:
    scene = team(tmp_path)
    cli(scene.root, "remember", OWN)
    term = screen(scene, opened)
    search(term, "changelog")  # a memory this store wrote itself shows nothing more
    assert detail(term)[1].startswith("trust: accepted")
    assert not any("team ledger" in line for line in detail(term))
    search(term, "Deploys freeze")
    said = (
        f"team ledger: commit {scene.commit[:7]} by Alice <alice@example.com>"
        " (upstream origin/main)"
    )
    term.wait_for(said)
    shown = detail(term)
    assert shown[0] == f"id: {scene.upstream_id}" and shown[1] == said
    assert DECISION in term.text


def test_a_claim_and_a_request_say_they_came_from_the_working_tree(
    tmp_path: Path, opened: list[Terminal]
) -> None:
    scene = team(tmp_path)
    term = screen(scene, opened)
    term.keys("v")
    term.wait_for("Review queue (2)")
    said = "team ledger: a claim from the working tree"
    term.wait_for(lambda _: detail(term)[:2] == [f"id: {scene.claim_id}", said])
    assert CLAIM in term.text
    term.keys("j")
    term.wait_for(lambda _: detail(term)[:2] == [f"id: {scene.request_id}", said])


def test_a_hostile_author_is_shown_inert_on_one_cut_line(
    tmp_path: Path, opened: list[Terminal]
) -> None:
    # Git keeps escapes and a right-to-left override in a name; the rest only
    # a store written by hand can hold (git drops `<`, `>` and newlines).
    scene = team(tmp_path, author="Eve \x1b[31mred\x1b[0m \u202eexe.txt")
    set_author(scene.root, scene.upstream_id, HOSTILE)
    term = screen(scene, opened)
    search(term, "Deploys freeze")
    term.wait_for("team ledger: commit")
    row = detail(term)[1]
    wanted = (
        f"team ledger: commit {scene.commit[:7]} by <script>alert(1)</script>"
        " [31mforged: line[0m 漢字"
    )
    assert row.startswith(wanted), row
    assert row.endswith("…") and len(term.row_with("team ledger:").rstrip()) <= 140
    assert not any(line.lstrip().startswith(("forged", "[31m")) for line in detail(term))
    raw = bytes(term.raw)
    assert b"\x1b[31mforged" not in raw and "\u202e".encode() not in raw


@pytest.mark.parametrize("width", [60, 80, 119, 140])
def test_the_line_takes_exactly_the_panes_cells_with_wide_characters(width: int) -> None:
    from helpers import make_memory

    summary = "決定 " * 60  # wide in the list row and the detail pane too
    memory = make_memory("p", summary, id="mem_20261201_000000_000000000001")
    item = Item(memory.id, memory, provenance=f"commit 1a2b3c4 by {HOSTILE} (upstream)")
    state = State(items=[item])
    for line in layout.render(state, width, 30):
        assert sum(cells.width(text) for text, _ in line) == width
        assert all(text.isprintable() and "\u202e" not in text for text, _ in line)
    pane = width - max(24, width * 38 // 100) - 1
    [said] = [line for line in layout.detail(state, pane) if line[0][0] == "team ledger: "]
    shown = "".join(text for text, _ in said)
    assert cells.width(shown) in (pane, pane - 1) and shown.endswith("…")
    whole = f"team ledger: commit 1a2b3c4 by <script>alert(1)</script> [31mforged: line[0m {WIDE}"
    assert whole.startswith(shown[:-1])


def test_a_segment_after_wide_characters_is_drawn_where_they_end(
    project_root: Path, opened: list[Terminal]
) -> None:
    cli(project_root, "remember", "Deploys 漢字漢字 freeze on Fridays")
    term = Terminal(project_root, columns=120, lines=30)
    opened.append(term)
    term.wait_for("TREE RING")
    search(term, "Deploys")
    # The score follows the summary: painted past the cells the summary took.
    row = term.row_with("│> ")
    assert re.search(r"Deploys 漢字漢字 freeze on Fridays  \d\.\d{3}", row), row
