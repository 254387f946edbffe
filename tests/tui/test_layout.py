"""The screen as text: sizes, rows, the rings picture, contradictions side by side."""

from __future__ import annotations

import pytest
from helpers import make_memory

from tree_ring.model.record import RINGS
from tree_ring.tui import layout, rings
from tree_ring.tui.commands import COMMANDS
from tree_ring.tui.state import Counts, Dashboard, Item, RingStat, State


def text(lines: list[layout.Line]) -> list[str]:
    return ["".join(t for t, _ in line) for line in lines]


def dashboard(**counts: int) -> Dashboard:
    stats = tuple(RingStat(r, counts.get(r, 0)) for r in RINGS)
    total = sum(counts.values())
    return Dashboard(rings=stats, listed=total, counts=Counts(live=total))


def busy_state(count: int = 40) -> State:
    items = [
        Item(m.id, m)
        for m in (
            make_memory(
                "p",
                f"memory number {i}",
                trust="pending" if i % 3 else "accepted",
                origin="claude-code" if i % 2 else "person",
            )
            for i in range(count)
        )
    ]
    return State(items=items, dashboard=dashboard(cambium=20, outer=10, heartwood=5, scar=3))


@pytest.mark.parametrize(
    ("width", "height"), [(80, 24), (120, 40), (200, 60), (59, 24), (80, 15), (20, 6), (19, 5)]
)
def test_every_size_gives_exactly_its_lines_and_columns(width: int, height: int) -> None:
    screen = text(layout.render(busy_state(), width, height))
    assert len(screen) == height
    assert {len(line) for line in screen} == {width}


@pytest.mark.parametrize(
    ("width", "height", "small"),
    [(19, 24, True), (80, 5, True), (20, 5, True), (1, 1, True), (20, 6, False), (80, 24, False)],
)
def test_a_screen_too_small_to_draw_says_so_and_marks_the_state(
    width: int, height: int, small: bool
) -> None:
    state = busy_state()
    state.too_small = not small
    screen = text(layout.render(state, width, height))
    assert state.too_small is small
    assert (screen[0].rstrip() == "enlarge the terminal"[:width]) is small


def test_the_main_screen_at_80x24() -> None:
    state = busy_state()
    screen = text(layout.render(state, 80, 24, total=400))
    assert screen[0].startswith(" TREE RING  rings:ambient  live:38")
    assert "review:0" in screen[0]
    assert "Memories (showing 40 of 400)" in screen[1]
    assert "Ambient rings" in screen[1]
    rows = [line for line in screen if line[31:].startswith(("> ", "  ")) and "number" in line]
    assert len(rows) == state.page
    # Trust and origin on every row.
    assert all(("PEND" in r or "acc" in r) and ("claude" in r or "person" in r) for r in rows)
    assert screen[2].split("│")[1].startswith("> ")
    assert screen[-2].startswith("q quit") and screen[-1].startswith("a approve")
    assert any(line.startswith("x scar 3") for line in screen)


def test_every_key_is_on_the_screen_or_in_the_help_at_80x24() -> None:
    from tree_ring.tui.keys import FOOTER, KEY_HELP

    screen = text(layout.render(busy_state(), 80, 24))
    footer = {part.strip() for line in screen[-2:] for part in line.split("  ") if part.strip()}
    assert {"? help", "l log", "t time", "w stream", "a approve", "f forget"} <= footer
    assert footer <= set(FOOTER)  # whole entries only: none cut at the edge
    # `?` lists every key on its first page, without scrolling.
    shown = "\n".join(text(layout.render(State(help=True), 80, 24)))
    assert [names for names, _ in KEY_HELP if f"{names} " not in shown] == []
    assert [what for _, what in KEY_HELP if what not in shown] == []  # none cut at the edge
    assert "? help" in "".join(text(layout.render(busy_state(), 80, 15)))  # one line there


def test_the_list_scrolls_with_the_cursor() -> None:
    state = busy_state()
    layout.render(state, 80, 24)
    state.move(30)
    screen = text(layout.render(state, 80, 24))
    assert any("> " in line and "memory number 30" in line for line in screen)
    assert not any("memory number 0 " in line for line in screen)


def test_a_small_terminal_shows_the_list_alone() -> None:
    screen = text(layout.render(busy_state(), 50, 12))
    assert "Ambient" not in "".join(screen)
    assert "memory number 0" in screen[2]


def test_control_characters_never_reach_the_terminal() -> None:
    m = make_memory("p", "line one")
    m = m.replace(summary="evil \x1b[2J title\x07")
    screen = text(layout.render(State(items=[Item(m.id, m)]), 80, 24))
    assert not any(c in "".join(screen) for c in "\x1b\x07")


def test_contradictions_side_by_side() -> None:
    old = make_memory("p", "the cache lives in redis")
    new = make_memory("p", "the cache lives in memcached", trust="pending")
    state = State(view="review", items=[Item(new.id, new, pair=(old,))])
    screen = text(layout.render(state, 120, 40))
    both = [line for line in screen if "redis" in line and "memcached" in line]
    assert len(both) == 1
    assert both[0].index("memcached") < both[0].index("redis")


# Tall enough for the whole help: its long entries wrap, and it scrolls on a
# shorter screen (test_help_scrolls_at_80x24).
@pytest.mark.parametrize(("width", "height"), [(120, 50), (80, 60)])
def test_help_lists_every_command(width: int, height: int) -> None:
    state = State(help=True)
    screen = "\n".join(text(layout.render(state, width, height)))
    missing = {name for name in COMMANDS if f"/{name} " not in screen}
    assert missing == set()


@pytest.mark.parametrize("width", [80, 100, 120, 160])
def test_help_cuts_no_description_at_any_width(width: int) -> None:
    """Each key's and command's description is there whole, wrapped under
    itself in its column where it is too long for it."""
    from tree_ring.tui.keys import KEY_HELP

    screen = text(layout.render(State(help=True), width, 200))
    left = (width - 1) // 2 if width >= 100 else width
    columns = [[line[:left] for line in screen]]
    if width >= 100:
        columns.append([line[left + 1 :] for line in screen])
    # A line may end at a hyphen: the next goes on from it.
    said = [" ".join(" ".join(column).split()).replace("- ", "-") for column in columns]
    wanted = [what for _, what in KEY_HELP] + list(COMMANDS.values())
    assert [w for w in wanted if not any(" ".join(w.split()) in c for c in said)] == []


def test_help_scrolls_at_80x24() -> None:
    from tree_ring.tui.keys import handle_key

    state = State()
    handle_key(state, "?")
    first = text(layout.render(state, 80, 24))
    assert "/quit" not in "".join(first)
    for _ in range(30):
        handle_key(state, "j")
    assert "/quit" in "".join(text(layout.render(state, 80, 24)))
    handle_key(state, "ESC")
    assert not state.help


def test_prompts_take_the_status_line() -> None:
    state = State(status="stored mem_x")
    assert text(layout.render(state, 80, 24))[-3].startswith("stored mem_x")
    from tree_ring.tui.keys import handle_key

    handle_key(state, "/")
    for ch in "rings":
        handle_key(state, ch)
    assert text(layout.render(state, 80, 24))[-3].startswith("/rings_")


# ------------------------------------------------------------------ rings


def test_bands_are_laid_core_out_by_area() -> None:
    laid = rings.bands(dashboard(cambium=75, heartwood=25))
    assert [r for r, _ in laid] == ["heartwood", "cambium"]
    assert laid[0][1] == pytest.approx(0.5)  # a quarter of the area: half the radius
    assert laid[-1][1] == 1.0


def test_a_lone_memory_still_shows_as_a_band() -> None:
    laid = dict(rings.bands(dashboard(cambium=100_000, inner=1)))
    assert laid["inner"] >= 0.1
    assert laid["cambium"] - laid["inner"] >= 0.1


def test_the_picture_has_heartwood_at_the_core_and_cambium_outside() -> None:
    picture = rings.picture(dashboard(cambium=10, outer=10, inner=10, heartwood=10), 31, 15)
    screen = text(picture)
    assert len(screen) == 15
    centre = screen[7][15]
    edge = screen[7][0]
    assert (centre, edge) == (rings.INK["heartwood"], rings.INK["cambium"])
    ink = "".join(screen[:-1])
    assert all(ink.count(rings.INK[r]) > 10 for r in rings.GROWTH)


def test_more_rows_more_ink() -> None:
    screen = "".join(text(rings.picture(dashboard(cambium=10, heartwood=30), 40, 20)))
    assert screen.count(rings.INK["heartwood"]) > screen.count(rings.INK["cambium"])
    screen = "".join(text(rings.picture(dashboard(cambium=30, heartwood=10), 40, 20)))
    assert screen.count(rings.INK["heartwood"]) < screen.count(rings.INK["cambium"])


def test_an_empty_store_says_so() -> None:
    screen = text(rings.picture(dashboard(), 30, 10))
    assert any("no memories yet" in line for line in screen)


def test_activity_names_each_ring_with_its_count() -> None:
    lines = text(rings.activity(dashboard(cambium=12, scar=2), 40))
    assert [line.split()[0] for line in lines] == list(RINGS)
    assert lines[0].split()[1] == "12" and lines[4].split()[1] == "2"
    assert all(len(line) <= 40 for line in lines)


def test_the_detail_names_every_field_flat_trust_and_origin_first() -> None:
    from tree_ring.tui.actions import memory_lines

    m = make_memory(
        "p", "waits", trust="pending", review_reason="needs a person", origin="codex",
        source_type="agent", source_ref="run-7",
    )  # fmt: skip
    lines = memory_lines(m)
    names = [line.partition(": ")[0] for line in lines]
    assert names[:4] == ["id", "trust", "review.review_reason", "origin"]
    assert {"source.type", "source.ref", "created_at", "content_hash"} <= set(names)
    assert not any("{" in line for line in lines)


def test_the_header_shows_the_rings_and_the_view_apart() -> None:
    state = busy_state()
    screen = text(layout.render(state, 100, 24))
    assert screen[0].startswith(" TREE RING  rings:ambient  live:")
    assert "│Memories (" in screen[1]
    state.exploded = True
    state.view = "search"
    state.query = "deploy"
    screen = text(layout.render(state, 100, 24))
    assert screen[0].startswith(" TREE RING  rings:exploded  live:")
    assert "search" not in screen[0] and "│Results: deploy (" in screen[1]


def test_the_exploded_ring_pane_is_titled_for_what_it_shows() -> None:
    state = busy_state()
    state.exploded = True
    screen = text(layout.render(state, 80, 24))
    assert screen[1].startswith("Exploded rings")
    assert not any(line.startswith("/rings") for line in screen[1:-2])


def test_a_narrow_header_drops_whole_figures_never_a_view_of_the_past() -> None:
    d = Dashboard(counts=Counts(live=1234, sensitive=12, review=3, inbox=7, user=5))
    state = State(dashboard=d, as_of="2026-01-01T00:00:00Z", changes=2)
    whole = text([layout.header(state, 400)])[0].split("  ")
    for width in range(20, 131):
        shown = text([layout.header(state, width)])[0]
        assert len(shown) == width
        figures = [f for f in shown.split("  ") if f.strip()]
        assert {f.strip() for f in figures} <= {f.strip() for f in whole}, width
        if width >= 38:
            assert "as of 2026-01-01T00:00:00Z" in shown
    assert "live:1234  hidden:12  review:3  as of" in text([layout.header(state, 80)])[0]


def test_an_empty_inbox_says_what_it_is_not_how_to_remember() -> None:
    # What a person remembers is theirs already: it never waits in the inbox.
    inbox = " ".join(text for line in layout.detail(State(view="inbox"), 60) for text, _ in line)
    assert "Nothing new from agents" in inbox and "/remember" not in inbox
    memories = " ".join(text for line in layout.detail(State(), 60) for text, _ in line)
    assert "/remember SUMMARY stores a memory." in memories
