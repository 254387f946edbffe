"""The whole screen for a state and a size, as lines of (text, style) segments.

Pure, so a test can read the screen without a terminal. At 60x16 and more:
a header; on the left the rings picture over the ring activity panel; on the
right the list over the detail pane; then the prompt or status line and the
key help. Smaller, the list alone between header and footer. Every line is
exactly the width, and there are exactly `height` of them.
"""

from __future__ import annotations

import textwrap

from tree_ring.model.text import one_line
from tree_ring.tui import rings
from tree_ring.tui.actions import memory_lines
from tree_ring.tui.commands import COMMANDS
from tree_ring.tui.keys import KEY_HELP, footer
from tree_ring.tui.state import Item, State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.record import Memory

Segment = tuple[str, str]
Line = list[Segment]

MIN_FULL = (60, 16)
TRUST_SHORT = {"accepted": "acc ", "pending": "PEND", "disputed": "DISP", "rejected": "REJ "}
TITLES = {
    "memories": "Memories",
    "search": "Search",
    "review": "Review queue",
    "inbox": "Inbox",
    "stream": "Stream (audit log, live)",
    "evidence": "Evidence",
    "integrations": "Integrations",
}


def clean(text: str) -> str:
    """One line of text a terminal draws as it is: no control characters."""
    return "".join(c if c.isprintable() else " " for c in text)


def _cell(char: str) -> int:
    from unicodedata import category, east_asian_width

    if category(char) in ("Mn", "Me", "Cf"):
        return 0  # a combining mark or a joiner: drawn on the cell before it
    return 2 if east_asian_width(char) in ("W", "F") else 1


def cells(text: str) -> int:
    """How many terminal cells `text` takes: a wide character (CJK, most
    emoji) two, a combining mark none; ASCII is counted without a look-up."""
    if text.isascii():
        return len(text)
    return sum(_cell(char) for char in text)


def cut(text: str, width: int) -> str:
    """The longest start of `text` that takes at most `width` cells."""
    if text.isascii() or cells(text) <= width:
        return text[: max(width, 0)]
    used = 0
    for index, char in enumerate(text):
        used += _cell(char)
        if used > width:
            return text[:index]
    return text


def clip(text: str, width: int) -> str:
    """`text` in at most `width` cells, with an ellipsis where it was cut."""
    if cells(text) <= width:
        return text
    return cut(text, width - 1) + "…" if width > 0 else ""


def fit(line: Line, width: int) -> Line:
    """`line` cut or padded to exactly `width` cells."""
    out: Line = []
    used = 0
    for text, style in line:
        if used >= width:
            break
        piece = cut(clean(text), width - used)
        out.append((piece, style))
        used += cells(piece)
    if used < width:
        out.append((" " * (width - used), "plain"))
    return out


def header(state: State, width: int) -> Line:
    d = state.dashboard
    mode = "exploded" if state.exploded else "ambient"
    if state.view != "memories":
        mode = state.view
    line: Line = [(" TREE RING ", "brand"), (f" mode:{mode}", "accent")]
    line.append((f"  total:{d.total}", "title"))
    line.append((f"  private:{d.private}", "warn" if d.private else "dim"))
    line.append((f"  review:{d.review}", "warn" if d.review else "dim"))
    if d.inbox is not None:
        line.append((f"  inbox:{d.inbox}", "warn" if d.inbox else "dim"))
    if state.as_of:
        line.append((f"  as of {state.as_of}", "warn"))
    if state.valid_at:
        line.append((f"  valid at {state.valid_at}", "warn"))
    if state.watching:
        seen = f" ({state.changes} from elsewhere)" if state.changes else ""
        line.append((f"  watching{seen}", "live"))
    else:
        line.append(("  paused", "dim"))
    return fit(line, width)


def item_line(item: Item, width: int, selected: bool) -> Line:
    marker = ">" if selected else " "
    body = "selected" if selected else "plain"
    m = item.memory
    if m is None:
        return fit([(marker + " ", "accent"), (item.text, body)], width)
    ring = m.ring if width >= 70 else rings.RING_SHORT[m.ring]
    origin = m.origin if width >= 70 else m.origin[:6]
    trust = m.trust if width >= 70 else TRUST_SHORT.get(m.trust, m.trust[:4])
    line: Line = [
        (marker + " ", "accent"),
        (f"{ring:<{10 if width >= 70 else 5}}", m.ring),
        (f"{trust:<{9 if width >= 70 else 5}}", "plain" if m.trust == "accepted" else "warn"),
        (f"{origin:<{12 if width >= 70 else 7}}", "dim"),
    ]
    if m.sensitivity != "normal":
        line.append((f"[{m.sensitivity}] ", "warn"))
    line.append((m.summary, body))
    if item.note:
        line.append((f"  {item.note}", "dim"))
    return fit(line, width)


def wrap(lines: list[str], width: int, style: str = "plain") -> list[Line]:
    out: list[Line] = []
    for text in lines:
        pieces = textwrap.wrap(clean(text), width, subsequent_indent="  ") or [""]
        out.extend([[(p, style)] for p in pieces])
    return out


def detail(state: State, width: int) -> list[Line]:
    item = state.selected()
    if item is None:
        if state.view == "search":
            return wrap(["No matching memory.", "s searches again; Esc returns."], width, "dim")
        return wrap(["Nothing here yet.", "/remember SUMMARY stores a memory."], width, "dim")
    out: list[Line] = []
    if item.memory is None:
        lines = wrap(list(item.detail), width)
        return [*lines[:1], *provenance(item, width), *lines[1:]]
    if state.show_audit:
        out.append([("audit log of this memory (l hides it)", "title")])
        entries = state.audit or []
        out += wrap(
            [f"{e['at'][:19]} {e['action']} by {e['actor']} ({e['origin']})" for e in entries]
            or ["no entries"],
            width,
            "dim",
        )
        out.append([("", "plain")])
    if item.pair:
        out += contradiction(item.memory, item.pair, width)
    fields = [_field(line) for line in wrap(memory_lines(item.memory), width)]
    return [*out, *fields[:1], *provenance(item, width), *fields[1:]]


def provenance(item: Item, width: int) -> list[Line]:
    """Who put the item there, when a team ledger line did: one line under its
    id, cut to the pane. The author is whatever a commit says, so it is put
    on one line (`one_line`: no control or bidi character) before it is cut."""
    if not item.provenance:
        return []
    said = clip(one_line(f"team ledger: {item.provenance}"), width)
    name, sep, value = said.partition(": ")
    return [[(name + sep, "dim"), (value, "plain")]]


def _field(line: Line) -> Line:
    text = line[0][0]
    name, sep, value = text.partition(": ")
    if sep and " " not in name.strip():
        return [(name + sep, "dim"), (value, "plain")]
    return line


def contradiction(memory: Memory, others: tuple[Memory, ...], width: int) -> list[Line]:
    """The pending memory and what it contradicts, side by side when they fit."""
    out: list[Line] = [[("contradicts (a approves, x rejects, d disputes)", "warn")]]
    for other in others:
        left = [f"this ({memory.trust})", memory.summary]
        right = [f"{other.id} ({other.trust})", other.summary]
        if width >= 50:
            half = (width - 3) // 2
            a = textwrap.wrap(" ".join(left[1:]), half) or [""]
            b = textwrap.wrap(" ".join(right[1:]), half) or [""]
            heads = fit([(left[0], "accent")], half), fit([(right[0], "accent")], half)
            out.append([*heads[0], (" | ", "dim"), *heads[1]])
            for i in range(max(len(a), len(b))):
                la = a[i] if i < len(a) else ""
                lb = b[i] if i < len(b) else ""
                out.append(
                    [*fit([(la, "plain")], half), (" | ", "dim"), *fit([(lb, "plain")], half)]
                )
        else:
            out += wrap([*left, "versus", *right], width)
    out.append([("", "plain")])
    return out


def help_lines(width: int) -> list[Line]:
    """The keys, then the commands; side by side when the screen is wide."""
    keys: list[Line] = [[("keys (j k scroll, Esc closes)", "title")]]
    for names, what in KEY_HELP:
        keys.append([(f"{names:<22}", "accent"), (what, "plain")])
    named: list[Line] = [[("commands (after /)", "title")]]
    for name, what in COMMANDS.items():
        named.append([(f"/{name:<13}", "accent"), (what, "plain")])
    if width < 100:
        return [fit(line, width) for line in [*keys, [], *named]]
    half = (width - 1) // 2
    blank: Line = []
    rows = max(len(keys), len(named))
    return [
        [
            *fit(keys[i] if i < len(keys) else blank, half),
            (" ", "plain"),
            *fit(named[i] if i < len(named) else blank, width - half - 1),
        ]
        for i in range(rows)
    ]


def list_title(state: State, shown: int, total: int | None) -> str:
    title = TITLES.get(state.view, state.view)
    if state.view == "search":
        title = f"Results: {state.query}"
    count = f"{shown}" if total is None or total == shown else f"showing {shown} of {total}"
    flags: list[str] = []
    if state.include_sensitive:
        flags.append("sensitive shown")
    if state.include_superseded:
        flags.append("superseded shown")
    return f"{title} ({count})" + (f" [{', '.join(flags)}]" if flags else "")


def bottom(state: State, width: int) -> tuple[Line, Line]:
    p = state.prompt
    if p is not None:
        if p.kind == "command":
            prompt: Line = [("/", "brand"), (p.buffer, "plain"), ("_", "accent")]
        elif p.kind == "confirm":
            prompt = [(p.label, "warn")]
        else:
            prompt = [(f"{p.label}: ", "brand"), (p.buffer, "plain"), ("_", "accent")]
    else:
        prompt = [(state.status, "status")]
    return fit(prompt, width), fit([(footer(width), "accent")], width)


def render(
    state: State, width: int, height: int, total: int | None = None, *, unicode: bool = True
) -> list[Line]:
    """The screen, `height` lines of exactly `width` characters; sets `state.page`."""
    if width < 20 or height < 6:
        return [fit([("enlarge the terminal", "warn")], width)] + [fit([], width)] * (height - 1)
    top = header(state, width)
    prompt, keys = bottom(state, width)
    body_h = height - 3
    if state.help:
        lines = help_lines(width)
        state.help_top = min(state.help_top, max(len(lines) - body_h, 0))
        shown = lines[state.help_top : state.help_top + body_h]
        return [top, *shown, *[fit([], width)] * (body_h - len(shown)), prompt, keys]
    if width < MIN_FULL[0] or height < MIN_FULL[1]:
        state.page = body_h - 1
        state.scroll()
        body = [fit([(list_title(state, len(state.items), total), "title")], width)]
        body += _list(state, width, body_h - 1)
        return [top, *body, prompt, keys]
    left_w = max(24, width * 38 // 100)
    right_w = width - left_w - 1
    left = _left(state, left_w, body_h, unicode)
    list_h = max(3, (body_h - 2) * 55 // 100)
    detail_h = body_h - 2 - list_h
    state.page = list_h
    state.scroll()
    right = [fit([(list_title(state, len(state.items), total), "title")], right_w)]
    right += _list(state, right_w, list_h)
    right.append(fit([("Detail", "title")], right_w))
    right += [fit(line, right_w) for line in detail(state, right_w)[:detail_h]]
    right += [fit([], right_w)] * (detail_h - (len(right) - list_h - 2))
    body = [left[i] + [("│" if unicode else "|", "dim")] + right[i] for i in range(body_h)]
    return [top, *body, prompt, keys]


def _list(state: State, width: int, rows: int) -> list[Line]:
    shown = state.items[state.top : state.top + rows]
    out = [item_line(it, width, state.top + i == state.cursor) for i, it in enumerate(shown)]
    if not state.items:
        empty = "No matching memory." if state.view == "search" else "(empty)"
        out = [fit([(empty, "dim")], width)]
    return out + [fit([], width)] * (rows - len(out))


def _left(state: State, width: int, height: int, unicode: bool) -> list[Line]:
    d = state.dashboard
    if state.exploded:
        lines = [[("/rings", "title")], *rings.exploded(d, width, unicode=unicode)]
    else:
        activity = rings.activity(d, width, unicode=unicode)
        picture_h = max(height - len(activity) - 2, 0)
        lines = [[("Ambient rings", "title")]]
        lines += rings.picture(d, width, picture_h) if picture_h >= 3 else []
        lines += [rings.activity_header(width), *activity]
    lines = lines[:height]
    return [fit(line, width) for line in lines] + [fit([], width)] * (height - len(lines))
