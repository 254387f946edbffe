"""The list's cursor and window at their edges: first row, last row, one page."""

from __future__ import annotations

from tree_ring.tui.state import Item, State


def _state(count: int, page: int = 3) -> State:
    return State(items=[Item(f"k{i}", text=f"row {i}") for i in range(count)], page=page)


def test_selected_only_inside_the_list() -> None:
    state = _state(3)
    assert state.selected() is state.items[0]
    state.cursor = 2
    assert state.selected() is state.items[2]
    state.cursor = 3
    assert state.selected() is None
    state.cursor = -1
    assert state.selected() is None
    assert _state(0).selected() is None


def test_move_stops_at_both_ends_and_the_window_follows() -> None:
    state = _state(10)
    state.move(-1)
    assert (state.cursor, state.top) == (0, 0)
    state.move(2)
    assert (state.cursor, state.top) == (2, 0)  # the page's last row: no scroll yet
    state.move(1)
    assert (state.cursor, state.top) == (3, 1)
    state.move(100)
    assert (state.cursor, state.top) == (9, 7)
    state.move(-7)
    assert (state.cursor, state.top) == (2, 2)
    state.move(-1)
    assert (state.cursor, state.top) == (1, 1)


def test_scroll_never_leaves_a_part_page_at_the_end() -> None:
    state = _state(5)
    state.top = 4
    state.cursor = 4
    state.scroll()
    assert state.top == 2
    state = _state(2)
    state.top = 1
    state.scroll()
    assert state.top == 0


def test_new_rows_keep_the_cursor_on_its_key_or_clamp_it() -> None:
    state = _state(10)
    state.move(5)
    state.set_items([Item(f"k{i}", text="") for i in range(4, 8)])
    chosen = state.selected()
    assert chosen is not None and chosen.key == "k5"
    assert state.cursor == 1
    state.set_items([Item(f"x{i}", text="") for i in range(3)])
    assert state.cursor == 1  # gone: the same place, inside the list
    state.move(1)
    state.set_items([Item("y", text="")])
    assert state.cursor == 0
    state.set_items([])
    assert (state.cursor, state.top) == (0, 0)
