"""Keys, commands and the activity bars where the other tests only reach an edge."""

from __future__ import annotations

import pytest
from helpers import make_memory

from tree_ring.model.record import RINGS
from tree_ring.tui import commands, rings
from tree_ring.tui.keys import handle_key
from tree_ring.tui.state import Action, Dashboard, Item, RingStat, State


def _state(count: int, cursor: int = 0) -> State:
    items = [Item(f"k{i}", make_memory("p", f"memory {i}")) for i in range(count)]
    state = State(items=items, page=10)
    state.cursor = cursor
    return state


@pytest.mark.parametrize(("key", "moved"), [("UP", -1), ("k", -1), ("DOWN", 1), ("j", 1)])
def test_each_move_key_moves_one_row_from_the_middle(key: str, moved: int) -> None:
    state = _state(20, cursor=5)
    assert handle_key(state, key) is None
    assert state.cursor == 5 + moved


@pytest.mark.parametrize(
    ("key", "verb"), [("a", "approve"), ("x", "reject"), ("d", "dispute"), ("f", "forget (delete)")]
)
def test_a_write_key_with_nothing_selected_says_so(key: str, verb: str) -> None:
    state = State()
    assert handle_key(state, key) is None
    assert state.status == f"nothing selected to {verb}"
    assert state.prompt is None


def test_the_audit_command_opens_the_selected_memorys_log() -> None:
    state = _state(3, cursor=1)
    chosen = state.items[1].memory
    assert chosen is not None
    assert commands.run(state, "/audit") == Action("audit", chosen.id)
    assert state.show_audit is True


def _bars(counts: dict[str, int]) -> dict[str, str]:
    stats = tuple(RingStat(r, counts.get(r, 0)) for r in RINGS)
    drawn = rings.activity(Dashboard(rings=stats, listed=sum(counts.values())), 40)
    return {ring: line[2][0] for ring, line in zip(RINGS, drawn, strict=True)}


def test_the_activity_bars_scale_to_the_busiest_ring_and_never_hide_a_lone_row() -> None:
    bars = _bars({"cambium": 300, "outer": 150, "scar": 1})
    assert bars == {
        "cambium": "██████",
        "outer": "███   ",
        "inner": "      ",  # no rows: no ink
        "heartwood": "      ",
        "scar": "█     ",  # one row in 300 rounds to nothing, but shows
        "seed": "      ",
    }
    assert set(_bars({}).values()) == {"      "}
