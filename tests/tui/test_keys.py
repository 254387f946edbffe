"""The screen's state and keys, without a terminal or a store."""

from __future__ import annotations

import copy

import pytest
from helpers import make_memory

from tree_ring.model.record import Memory
from tree_ring.tui.keys import FOOTER, MOVES, VIEW_KEYS, WRITE_KEYS, footer, handle_key
from tree_ring.tui.state import REPLACES, Action, Item, State


def memories(count: int, **fields: object) -> list[Item]:
    found: list[Memory] = [make_memory("p", f"memory {i}", **fields) for i in range(count)]
    return [Item(m.id, m) for m in found]


def typed(state: State, text: str) -> list[Action | None]:
    return [handle_key(state, ch) for ch in text]


def test_moving_clamps_to_the_list_and_scrolls_the_page() -> None:
    state = State(items=memories(30), page=10)
    for _ in range(12):
        handle_key(state, "j")
    assert (state.cursor, state.top) == (12, 3)
    handle_key(state, "G")
    assert (state.cursor, state.top) == (29, 20)
    handle_key(state, "DOWN")
    assert state.cursor == 29
    handle_key(state, "g")
    assert (state.cursor, state.top) == (0, 0)
    handle_key(state, "UP")
    assert state.cursor == 0
    handle_key(state, "PGDN")
    assert state.cursor == 9


def test_navigation_asks_for_no_write() -> None:
    state = State(items=memories(5, trust="pending"), page=3)
    asked = [
        handle_key(state, key) for key in ("j", "k", "PGDN", "PGUP", "G", "g", "r", "?", "ESC")
    ]
    asked += [handle_key(state, key) for key in ("l", "l", "i", "u", "m", "v", "w", "e")]
    assert all(a is None or not a.writes for a in asked)
    assert {a.name for a in asked if a} <= {"load", "audit"}


def test_approve_needs_the_key_and_then_y() -> None:
    state = State(items=memories(2, trust="pending"))
    target = state.items[0].key
    assert handle_key(state, "a") is None
    assert state.prompt is not None and state.prompt.kind == "confirm"
    assert target in state.prompt.label
    assert handle_key(state, "y") == Action("approve", target)
    assert state.prompt is None


def test_n_or_escape_cancels_a_confirmation() -> None:
    for key in ("n", "ESC"):
        state = State(items=memories(1, trust="pending"))
        handle_key(state, "a")
        assert handle_key(state, key) is None
        assert state.prompt is None and state.status == "cancelled"


def test_other_keys_at_a_confirmation_do_nothing() -> None:
    state = State(items=memories(1, trust="pending"))
    handle_key(state, "a")
    assert typed(state, "jk x") == [None] * 4
    assert state.prompt is not None and state.prompt.kind == "confirm"
    assert handle_key(state, "q") is None
    assert state.prompt is None  # q says no


def test_reject_asks_a_reason_then_confirms_with_it() -> None:
    state = State(items=memories(1, trust="pending"))
    target = state.items[0].key
    handle_key(state, "x")
    assert state.prompt is not None and state.prompt.kind == "reason"
    handle_key(state, "ENTER")  # an empty reason is not taken
    assert "reason is required" in state.status
    handle_key(state, "x")
    typed(state, "wrong fact")
    handle_key(state, "BACKSPACE")
    typed(state, "t")
    handle_key(state, "ENTER")
    assert state.prompt is not None and "wrong fact" in state.prompt.label
    assert handle_key(state, "y") == Action("reject", target, (), "wrong fact")


# Every key the screen acts on, the answers to its prompts, and a few it ignores.
EVERY_KEY = (
    *MOVES, "PGDN", "PGUP", "HOME", "END", "g", "G", "/", "s", "t", "r", "?", "i", "u", "l", "R",
    *VIEW_KEYS, *WRITE_KEYS, "y", "Y", "n", "N", "ENTER", "BACKSPACE", "TAB", "z", " ",
)  # fmt: skip


@pytest.mark.parametrize("trust", ["pending", "accepted"])
def test_too_small_to_draw_every_key_but_quit_does_nothing(trust: str) -> None:
    # Only "enlarge the terminal" is on the screen: no key moves, opens a
    # prompt, toggles, switches the view or asks for a write or a load.
    state = State(items=memories(3, trust=trust), page=3, too_small=True)
    before = copy.deepcopy(state)
    assert [handle_key(state, key) for key in EVERY_KEY] == [None] * len(EVERY_KEY)
    assert state == before
    for key in ("q", "ESC"):
        assert handle_key(state, key) == Action("quit")
    # The same keys at a size that draws do act: a prompt, a view, a load.
    state.too_small = False
    assert handle_key(state, "f") is None and state.prompt is not None
    state = State(items=memories(3, trust=trust), page=3)
    assert handle_key(state, "v") == Action("load") and state.view == "review"


def test_a_prompt_left_open_when_the_screen_shrank_waits_to_be_shown_again() -> None:
    state = State(items=memories(1, trust="pending"))
    target = state.items[0].key
    handle_key(state, "x")
    typed(state, "wrong")
    handle_key(state, "ENTER")
    assert state.prompt is not None and state.prompt.kind == "confirm"
    asked = copy.deepcopy(state.prompt)
    state.too_small = True
    assert [handle_key(state, key) for key in ("y", "Y", "ENTER", "n", "N")] == [None] * 5
    assert state.prompt == asked
    state.too_small = False
    assert handle_key(state, "y") == Action("reject", target, (), "wrong")
    # A reason being typed takes no letter it cannot show either.
    state = State(items=memories(1))
    handle_key(state, "f")
    typed(state, "old")
    state.too_small = True
    assert typed(state, "er") == [None, None] and handle_key(state, "ENTER") is None
    state.too_small = False
    assert state.prompt is not None and state.prompt.buffer == "old"


def test_approve_applies_only_to_rows_waiting_for_review() -> None:
    state = State(items=memories(1))
    assert handle_key(state, "a") is None
    assert state.prompt is None
    assert "accepted" in state.status


def test_forget_works_on_any_memory_with_a_reason() -> None:
    state = State(items=memories(1))
    handle_key(state, "f")
    typed(state, "stale")
    handle_key(state, "ENTER")
    assert handle_key(state, "y") == Action("forget", state.items[0].key, (), "stale")


def test_nothing_selected_nothing_asked() -> None:
    state = State()
    for key in ("a", "x", "d", "f"):
        assert handle_key(state, key) is None
        assert state.prompt is None


def test_search_prompt_runs_recall_and_empty_returns_to_memories() -> None:
    state = State()
    handle_key(state, "s")
    typed(state, "build cache")
    assert handle_key(state, "ENTER") == Action("search", None, ("build cache",))
    assert (state.view, state.query) == ("search", "build cache")
    handle_key(state, "s")
    for _ in range(len("build cache")):
        handle_key(state, "BACKSPACE")
    assert handle_key(state, "ENTER") == Action("load")
    assert state.view == "memories"


def test_toggles_reload_and_say_so() -> None:
    state = State()
    assert handle_key(state, "i") == Action("load")
    assert state.include_sensitive and "shown" in state.status
    assert handle_key(state, "u") == Action("load")
    assert state.include_superseded
    handle_key(state, "i")
    assert not state.include_sensitive


def test_time_prompt_sets_and_clears_as_of() -> None:
    state = State()
    handle_key(state, "t")
    typed(state, "2026-01-01")
    assert handle_key(state, "ENTER") == Action("load")
    assert state.as_of == "2026-01-01"
    handle_key(state, "t")
    for _ in range(10):
        handle_key(state, "BACKSPACE")
    handle_key(state, "ENTER")
    assert state.as_of is None


def test_the_cursor_stays_on_its_memory_when_rows_change() -> None:
    state = State(items=memories(5), page=10)
    state.move(3)
    kept = state.items[3]
    state.set_items([*memories(2), *state.items])
    assert state.selected() == kept
    state.set_items(memories(2))
    assert state.cursor == 1


def test_audit_follows_the_cursor_while_open() -> None:
    state = State(items=memories(3))
    assert handle_key(state, "l") == Action("audit", state.items[0].key)
    assert handle_key(state, "j") == Action("audit", state.items[1].key)
    assert handle_key(state, "l") is None
    assert handle_key(state, "j") is None


def test_keep_is_for_the_inbox_and_promote_asks_a_reason() -> None:
    state = State(items=memories(1))
    assert handle_key(state, "K") is None
    assert state.prompt is None and "inbox" in state.status
    assert handle_key(state, "n") == Action("load")
    assert state.view == "inbox"
    handle_key(state, "K")
    assert handle_key(state, "y") == Action("keep", state.items[0].key)
    handle_key(state, "p")
    assert state.prompt is not None and state.prompt.kind == "reason"
    typed(state, "useful to all")
    handle_key(state, "ENTER")
    assert handle_key(state, "y") == Action("promote", state.items[0].key, (), "useful to all")


def test_quit_and_help() -> None:
    state = State()
    assert handle_key(state, "?") is None and state.help
    assert handle_key(state, "q") is None and not state.help  # q closes help first
    assert handle_key(state, "q") == Action("quit")
    assert handle_key(state, "ESC") == Action("quit")


def test_footer_fits_its_width() -> None:
    for width in (20, 40, 80, 200):
        for rows in (1, 2):
            lines = footer(width, rows)
            assert 1 <= len(lines) <= rows
            assert all(len(line) <= width for line in lines)
            assert lines[0].startswith("q quit")
    assert "? help" in footer(200)[0]


def entries(lines: list[str]) -> set[str]:
    return {part for line in lines for part in line.split("  ")}


def test_at_80_columns_two_lines_hold_every_key_a_wide_line_shows() -> None:
    two = footer(80, 2)
    assert len(two) == 2 and all(len(line) <= 80 for line in two)
    assert entries(footer(140)) <= entries(two)
    assert {"l log", "t time", "w stream", "? help", "a approve"} <= entries(two)
    assert entries(two) == set(FOOTER[: len(entries(two))])  # whole entries, in order


def test_a_footer_wide_enough_for_all_is_one_line() -> None:
    assert footer(300, 2) == ["  ".join(FOOTER)]
    assert entries(footer(120, 2)) == set(FOOTER)


# ---------------------------------------------------------------- commands


def run(state: State, line: str) -> Action | None:
    handle_key(state, "/")
    typed(state, line)
    return handle_key(state, "ENTER")


def test_slash_search_and_remember() -> None:
    state = State()
    assert run(state, "search stale cache") == Action("search", None, ("stale cache",))
    assert state.view == "search"
    assert run(state, "remember use uv for envs") is None
    assert state.prompt is not None and state.prompt.kind == "confirm"
    assert handle_key(state, "y") == Action("remember", None, ("use uv for envs",))


def test_slash_forget_takes_its_reason_inline() -> None:
    state = State(items=memories(1))
    run(state, "forget it was wrong")
    assert state.prompt is not None and state.prompt.kind == "confirm"
    assert handle_key(state, "y") == Action("forget", state.items[0].key, (), "it was wrong")
    run(state, "redact")
    assert state.prompt is not None and state.prompt.kind == "reason"


@pytest.mark.parametrize(("name", "ring"), [("scar", "scar"), ("seed", "seed")])
def test_ring_commands_move_the_selected_memory(name: str, ring: str) -> None:
    state = State(items=memories(1))
    run(state, name)
    assert handle_key(state, "y") == Action("ring", state.items[0].key, (ring,))


def test_promote_by_command_takes_global_and_a_reason() -> None:
    state = State(items=memories(1))
    target = state.items[0].key
    run(state, "promote global mine everywhere")
    assert handle_key(state, "y") == Action("promote", target, ("global",), "mine everywhere")
    run(state, "promote the team needs it")
    assert handle_key(state, "y") == Action("promote", target, (), "the team needs it")
    run(state, "promote")
    assert state.prompt is not None and state.prompt.kind == "reason"


def test_supersede_names_the_old_memory() -> None:
    state = State(items=memories(1))
    run(state, "supersede mem_old replaced by a better note")
    assert handle_key(state, "y") == Action(
        "supersede", state.items[0].key, ("mem_old",), "replaced by a better note"
    )
    run(state, "supersede")
    assert state.prompt is None and "needs the id" in state.status


def test_commands_on_the_selection_need_one() -> None:
    state = State()
    for name in ("forget", "redact", "scar", "supersede x"):
        assert run(state, name) is None
        assert state.prompt is None and "select one" in state.status


def test_unknown_command_suggests_the_near_one() -> None:
    state = State()
    assert run(state, "serch x") is None
    assert "/search" in state.status


def test_consolidate_takes_a_period() -> None:
    state = State()
    run(state, "consolidate fortnight")
    assert state.prompt is None and "daily, weekly, monthly" in state.status
    run(state, "consolidate daily")
    assert handle_key(state, "y") == Action("consolidate", None, ("daily",))
    run(state, "consolidate")
    assert handle_key(state, "y") == Action("consolidate", None, ("weekly",))


def test_export_asks_where_the_file_goes_before_it_asks_to_write() -> None:
    state = State()
    assert run(state, "export") is None
    assert state.prompt is None and state.status == (
        "/export needs a file name, e.g. /export memories.jsonl"
    )
    # The session checks the path (`Session.ask_export`), then the confirmation is asked.
    placed = run(state, "export ../out/memories.jsonl")
    assert placed is not None and placed == Action("place", None, ("../out/memories.jsonl",))
    assert state.prompt is None and not placed.writes


def test_the_export_confirmation_names_the_file_and_a_file_it_replaces() -> None:
    state = State()
    state.ask(Action("export", None, ("/work/out.jsonl",)))
    assert state.prompt is not None and state.prompt.label == "export to /work/out.jsonl? y/n"
    assert handle_key(state, "y") == Action("export", None, ("/work/out.jsonl",))
    state.ask(Action("export", None, ("/work/out.jsonl", REPLACES)))
    assert state.prompt is not None
    assert state.prompt.label == "export to /work/out.jsonl (replaces the file there)? y/n"
    assert handle_key(state, "n") is None and state.prompt is None


def test_views_and_watch_by_command() -> None:
    state = State()
    assert run(state, "review") == Action("load")
    assert state.view == "review"
    assert run(state, "stream") == Action("load")
    assert state.view == "stream"
    run(state, "watch")
    assert not state.watching
    assert run(state, "asof 2026-01-01") == Action("load")
    assert state.as_of == "2026-01-01"
    assert run(state, "quit") == Action("quit")


def test_escape_or_backspace_on_empty_leaves_the_command_line() -> None:
    state = State()
    handle_key(state, "/")
    handle_key(state, "BACKSPACE")
    assert state.prompt is None
    handle_key(state, "/")
    typed(state, "rin")
    handle_key(state, "ESC")
    assert state.prompt is None and not state.exploded


def test_a_time_that_does_not_parse_leaves_the_view_as_it_was() -> None:
    state = State(items=memories(1))
    handle_key(state, "t")
    typed(state, "2026-02-30")
    assert handle_key(state, "ENTER") is None
    assert state.as_of is None and state.status.startswith("error: ")
    assert "\n" not in state.status and "2026-02-30" in state.status
    handle_key(state, "/")
    typed(state, "validat 2026-13-01")
    assert handle_key(state, "ENTER") is None and state.valid_at is None
    handle_key(state, "t")
    typed(state, "2026-02-28")
    assert handle_key(state, "ENTER") == Action("load") and state.as_of == "2026-02-28"
    handle_key(state, "t")
    typed(state, "x")
    handle_key(state, "ENTER")
    assert state.as_of == "2026-02-28"  # the time in force stays, and the header with it
