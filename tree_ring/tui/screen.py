"""curses: the palette, painting a layout, reading keys, and the loop.

The loop waits for a key at most `POLL_MS`; when none comes it asks the store
for its data version (`store/watch.py`), which changes only when another
connection has committed, and reloads then. So a write from a hook in another
terminal shows within a second, and an idle screen costs one cheap query four
times a second, never a busy loop.
"""

from __future__ import annotations

import contextlib
import curses

from tree_ring.model.errors import TreeRingError
from tree_ring.tui import cells, layout
from tree_ring.tui.actions import Session
from tree_ring.tui.keys import handle_key
from tree_ring.tui.state import Action, State

POLL_MS = 250

# The original's palette: the four growth rings, scars, seeds, the navy ground.
PALETTE = {
    "cambium": (0x16, 0x9C, 0xA6),
    "outer": (0xEF, 0x41, 0x67),
    "inner": (0xFF, 0x7D, 0x22),
    "heartwood": (0xFF, 0xC2, 0x45),
    "scar": (0xFF, 0x65, 0x53),
    "seed": (82, 210, 202),
    "brand": (0x16, 0x9C, 0xA6),
    "accent": (82, 210, 202),
    "warn": (0xFF, 0x7D, 0x22),
    "live": (82, 210, 202),
}
NAVY = (0x00, 0x1F, 0x34)
# Where a terminal has only the eight basic colours.
BASIC = {
    "cambium": curses.COLOR_CYAN,
    "outer": curses.COLOR_MAGENTA,
    "inner": curses.COLOR_RED,
    "heartwood": curses.COLOR_YELLOW,
    "scar": curses.COLOR_RED,
    "seed": curses.COLOR_GREEN,
    "brand": curses.COLOR_CYAN,
    "accent": curses.COLOR_CYAN,
    "warn": curses.COLOR_YELLOW,
    "live": curses.COLOR_GREEN,
}
BOLD = frozenset({"brand", "title", "heartwood", "scar", "warn"})

KEYS = {
    curses.KEY_UP: "UP",
    curses.KEY_DOWN: "DOWN",
    curses.KEY_NPAGE: "PGDN",
    curses.KEY_PPAGE: "PGUP",
    curses.KEY_HOME: "HOME",
    curses.KEY_END: "END",
    curses.KEY_ENTER: "ENTER",
    curses.KEY_BACKSPACE: "BACKSPACE",
    curses.KEY_RESIZE: "RESIZE",
}
CHARS = {"\n": "ENTER", "\r": "ENTER", "\x1b": "ESC", "\x7f": "BACKSPACE", "\b": "BACKSPACE"}


def xterm256(rgb: tuple[int, int, int]) -> int:
    """The nearest colour of xterm's 6x6x6 cube (indexes 16 to 231)."""
    steps = (0, 95, 135, 175, 215, 255)

    def level(value: int) -> int:
        return min(range(6), key=lambda i: abs(steps[i] - value))

    r, g, b = (level(v) for v in rgb)
    return 16 + 36 * r + 6 * g + b


class Painter:
    """Styles to curses attributes, once the terminal says what it can do."""

    def __init__(self, color: bool) -> None:
        self.attrs: dict[str, int] = {}
        plain = {
            "dim": curses.A_DIM,
            "selected": curses.A_REVERSE,
            "status": curses.A_BOLD,
            "live": curses.A_BOLD,
        }
        for style in ("plain", "title", *PALETTE):
            plain.setdefault(style, curses.A_BOLD if style in BOLD else curses.A_NORMAL)
        self.attrs.update(plain)
        if not color:
            return
        curses.start_color()
        deep = curses.COLORS >= 256
        try:
            curses.use_default_colors()
            background = xterm256(NAVY) if deep else -1
        except curses.error:
            background = curses.COLOR_BLACK
        for number, (style, rgb) in enumerate(PALETTE.items(), start=1):
            foreground = xterm256(rgb) if deep else BASIC[style]
            curses.init_pair(number, foreground, background)
            self.attrs[style] = curses.color_pair(number) | plain[style]
        ground = len(PALETTE) + 1
        curses.init_pair(ground, -1 if not deep else 255, background)
        for style in ("plain", "title", "dim", "status", "selected"):
            self.attrs[style] = curses.color_pair(ground) | plain[style]
        self.ground = curses.color_pair(ground)

    def paint(self, window: curses.window, lines: list[layout.Line], ascii_only: bool) -> None:
        window.erase()
        for y, line in enumerate(lines):
            x = 0
            for text, style in line:
                if ascii_only:
                    text = cells.ascii_only(text)
                # The bottom-right cell raises: curses cannot move the cursor past it.
                with contextlib.suppress(curses.error):
                    window.addstr(y, x, text, self.attrs.get(style, curses.A_NORMAL))
                x += cells.width(text)
        window.noutrefresh()
        curses.doupdate()


def key_name(key: int | str) -> str:
    if isinstance(key, int):
        return KEYS.get(key, "")
    return CHARS.get(key, key)


def run(window: curses.window, session: Session, state: State, color: bool, unicode: bool) -> None:
    """The screen until the person quits."""
    with contextlib.suppress(curses.error):  # a terminal that cannot hide its cursor
        curses.curs_set(0)
    curses.set_escdelay(25)
    window.keypad(True)
    window.timeout(POLL_MS)
    painter = Painter(color and curses.has_colors())
    if color and hasattr(painter, "ground"):
        window.bkgd(" ", painter.ground)
    seen = session.data_version()
    # The first frame without `status`'s figures (a census of the store and
    # the inbox, passes of their own); they follow in the second, right after.
    session.load(state, counted=False)
    first = True
    while True:
        height, width = window.getmaxyx()
        total = session.totals.get(state.view)
        painter.paint(
            window, layout.render(state, width, height, total, unicode=unicode), not unicode
        )
        if first:
            first = False
            _do(session, state, Action("load"))
            continue
        try:
            key = window.get_wch()
        except curses.error:  # no key within POLL_MS: has another process written?
            if state.watching:
                now = session.data_version()
                if now != seen:
                    seen = now
                    state.changes += 1
                    _do(session, state, Action("load"))
            continue
        name = key_name(key)
        if name == "RESIZE":
            curses.update_lines_cols()
            continue
        if not name:
            continue
        action = handle_key(state, name)
        if action is None:
            continue
        if action.name == "quit":
            return
        _do(session, state, action)
        seen = session.data_version()


def _do(session: Session, state: State, action: Action) -> None:
    """Run `action`; a library error is a status line, the screen stays."""
    try:
        if action.name == "audit":
            session.audit(state)
            return
        if action.name == "place":
            session.ask_export(state, action.args[0])
            return
        if action.writes:
            state.status = session.run(action)
        session.load(state)
    except TreeRingError as exc:
        from tree_ring.guard import withhold

        state.status = f"error: {withhold(str(exc))}"
