"""The whole screen for a state and a size, as lines of (text, style) segments.

Pure, so a test can read the screen without a terminal. At 60x16 and more:
a header; on the left the rings picture over the ring activity panel; on the
right the list over the detail pane; then the prompt or status line and the
key help, on two lines when one does not hold it. Smaller, the list alone
between header and footer; under 20x6, "enlarge the terminal" alone, and
keys then only quit (`keys.handle_key`). Every line takes exactly the width in terminal
columns (`cells`: a wide character takes two, a combining mark none), and
there are exactly `height` of them.
"""

from __future__ import annotations

from tree_ring.model.text import one_line
from tree_ring.tui import cells, rings
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
MIN_DRAWN = (20, 6)  # smaller, the screen says only "enlarge the terminal"
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


def fit(line: Line, width: int) -> Line:
    """`line` cut or padded to exactly `width` terminal columns."""
    out: Line = []
    used = 0
    for text, style in line:
        if used >= width:
            break
        whole = clean(text)
        piece, columns = cells.cut(whole, width - used)
        out.append((piece, style))
        used += columns
        if len(piece) < len(whole):
            break  # cut: a wide character may have left a column, which stays blank
    if used < width:
        out.append((" " * (width - used), "plain"))
    return out


# What the header gives up first when the screen is too narrow for all of it:
# the rings' shape (the panel shows it), the retired and waiting rows, the
# person's own store, the inbox, whether it is watching, then the review
# queue; a view of another time is never dropped before the counts, so a past
# screen cannot pass for the present.
HEADER_KEEPS = (
    "brand", "as of", "valid at", "live", "private", "review", "watch", "inbox", "you",
    "waiting", "retired",
)  # fmt: skip


def figures(state: State) -> list[tuple[str, Segment]]:
    """`tree-ring status`'s figures as the header names them (`Counts`): the
    same numbers the CLI prints for the same store, of now whatever the
    screen's time; until they are counted (the first frame), a word saying so."""
    c = state.dashboard.counts
    if c is None:
        return [("live", ("  counting", "dim"))]
    # The sensitive live rows are in the list while `i` shows them; until
    # then they are `hidden:`, as the web view says of the rows it leaves out.
    private = "private" if state.include_sensitive else "hidden"
    parts: list[tuple[str, Segment]] = [
        ("live", (f"  live:{c.live}", "title")),
        ("private", (f"  {private}:{c.sensitive}", "warn" if c.sensitive else "dim")),
        ("review", (f"  review:{c.review}", "warn" if c.review else "dim")),
    ]
    if c.pending or c.disputed:
        parts.append(("waiting", (f"  pending:{c.pending} disputed:{c.disputed}", "dim")))
    if c.retired:
        parts.append(("retired", (f"  retired:{c.retired}", "dim")))
    if c.inbox is not None:
        parts.append(("inbox", (f"  inbox:{c.inbox}", "warn" if c.inbox else "dim")))
    # The person's own store, counted as the project is; none yet, nothing said.
    if c.user_error:
        parts.append(("you", ("  you:unreadable", "warn")))
    elif c.user is not None:
        parts.append(("you", (f"  you:{c.user}", "dim")))
    return parts


def header(state: State, width: int) -> Line:
    """The figures, whole: too narrow for them all, the least wanted go first."""
    # The rings pane's shape only: the view (memories, search, review...) is
    # the list's title, so neither passes for the other.
    shape = "exploded" if state.exploded else "ambient"
    parts: list[tuple[str, Segment]] = [
        ("brand", (" TREE RING ", "brand")),
        ("rings", (f" rings:{shape}", "accent")),
        *figures(state),
    ]
    if state.as_of:
        parts.append(("as of", (f"  as of {state.as_of}", "warn")))
    if state.valid_at:
        parts.append(("valid at", (f"  valid at {state.valid_at}", "warn")))
    if state.watching:
        seen = f" ({state.changes} from elsewhere)" if state.changes else ""
        parts.append(("watch", (f"  watching{seen}", "live")))
    else:
        parts.append(("watch", ("  paused", "dim")))
    rank = {name: i for i, name in enumerate(HEADER_KEEPS)}
    while len(parts) > 1 and sum(cells.width(text) for text, _ in _joined(parts)) > width:
        least = max(parts, key=lambda part: rank.get(part[0], len(rank)))
        parts.remove(least)
    return fit(_joined(parts), width)


def _joined(parts: list[tuple[str, Segment]]) -> Line:
    line = [segment for _, segment in parts]
    if len(parts) > 1 and parts[1][0] != "rings":  # the brand's own space closes the gap
        line[1] = (line[1][0][1:], line[1][1])
    return line


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
        pieces = cells.wrap(clean(text), width, "  ") or [""]
        out.extend([[(p, style)] for p in pieces])
    return out


def detail(state: State, width: int) -> list[Line]:
    item = state.selected()
    if item is None:
        if state.view == "search":
            return wrap(["No matching memory.", "s searches again; Esc returns."], width, "dim")
        if state.view == "inbox":
            # What you remember yourself is yours already: it never waits here.
            said = ["Nothing new from agents since you last looked."]
            return wrap(said, width, "dim")
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
    fields = [_field(line) for line in wrap([*memory_lines(item.memory), *item.anchors], width)]
    notes = [_field(line) for line in wrap([one_line(n) for n in item.notes], width)]
    # The id, where its ledger line came from, its trust, then who refuted it
    # and how often it was used: what a person deciding on it reads first.
    return [*out, *fields[:1], *provenance(item, width), *fields[1:2], *notes, *fields[2:]]


def provenance(item: Item, width: int) -> list[Line]:
    """Who put the item there, when a team ledger line did: one line under its
    id, cut to the pane. The author is whatever a commit says, so it is put
    on one line (`one_line`: no control or bidi character) before it is cut."""
    if not item.provenance:
        return []
    said = cells.clip(one_line(f"team ledger: {item.provenance}"), width)
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
            a = cells.wrap(clean(" ".join(left[1:])), half) or [""]
            b = cells.wrap(clean(" ".join(right[1:])), half) or [""]
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
    """The keys, then the commands; side by side when the screen is wide.
    An entry too long for its column goes on under itself, never cut."""
    side = width >= 100
    left = (width - 1) // 2 if side else width
    right = width - left - 1 if side else width
    keys = _help_column(
        "keys (j k scroll, Esc closes)", [(f"{n:<22}", w) for n, w in KEY_HELP], left
    )
    named = _help_column(
        "commands (after /)", [(f"/{n:<13}", w) for n, w in COMMANDS.items()], right
    )
    if not side:
        return [*keys, [], *named]
    blank: Line = []
    return [
        [
            *fit(keys[i] if i < len(keys) else blank, left),
            (" ", "plain"),
            *fit(named[i] if i < len(named) else blank, right),
        ]
        for i in range(max(len(keys), len(named)))
    ]


def _help_column(title: str, entries: list[tuple[str, str]], width: int) -> list[Line]:
    """A titled column of (name, what) entries `width` cells wide: each name,
    then what it does wrapped beside it, its later lines under the first."""
    out: list[Line] = [fit([(title, "title")], width)]
    for name, what in entries:
        room = width - cells.width(name)
        if room < 12:  # too narrow to wrap beside the name: cut, as before
            out.append(fit([(name, "accent"), (what, "plain")], width))
            continue
        lines = cells.wrap(clean(what), room) or [""]
        out.append([(name, "accent"), (lines[0], "plain")])
        out += [[(" " * cells.width(name), "plain"), (rest, "plain")] for rest in lines[1:]]
    return out


def list_title(state: State, shown: int, total: int | None, width: int | None = None) -> str:
    """The view and its count; a search's query is clipped to keep the count in `width`."""
    count = f"{shown}" if total is None or total == shown else f"showing {shown} of {total}"
    flags: list[str] = []
    if state.include_sensitive:
        flags.append("sensitive shown")
    if state.include_superseded:
        flags.append("superseded shown")
    tail = f" ({count})" + (f" [{', '.join(flags)}]" if flags else "")
    if state.view != "search":
        return TITLES.get(state.view, state.view) + tail
    query = clean(state.query)
    if width is not None:
        query = cells.clip(query, max(width - cells.width(f"Results: {tail}"), 1))
    return f"Results: {query}{tail}"


def bottom(state: State, width: int, rows: int = 1) -> tuple[Line, list[Line]]:
    """The prompt or status line, and the key help on at most `rows` lines."""
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
    return fit(prompt, width), [fit([(keys, "accent")], width) for keys in footer(width, rows)]


def render(
    state: State, width: int, height: int, total: int | None = None, *, unicode: bool = True
) -> list[Line]:
    """The screen, `height` lines of exactly `width` characters; sets
    `state.page`, and `state.too_small` when there is no room to draw it."""
    state.too_small = width < MIN_DRAWN[0] or height < MIN_DRAWN[1]
    if state.too_small:
        return [fit([("enlarge the terminal", "warn")], width)] + [fit([], width)] * (height - 1)
    top = header(state, width)
    # The key help takes a second line where the screen has room for the panes.
    prompt, keys = bottom(state, width, 2 if height >= MIN_FULL[1] else 1)
    body_h = height - 2 - len(keys)
    if state.help:
        lines = help_lines(width)
        state.help_top = min(state.help_top, max(len(lines) - body_h, 0))
        shown = lines[state.help_top : state.help_top + body_h]
        return [top, *shown, *[fit([], width)] * (body_h - len(shown)), prompt, *keys]
    if width < MIN_FULL[0] or height < MIN_FULL[1]:
        state.page = body_h - 1
        state.scroll()
        title = list_title(state, len(state.items), total, width)
        body = [fit([(title, "title")], width)]
        body += _list(state, width, body_h - 1)
        return [top, *body, prompt, *keys]
    left_w = max(24, width * 38 // 100)
    right_w = width - left_w - 1
    left = _left(state, left_w, body_h, unicode)
    list_h = max(3, (body_h - 2) * 55 // 100)
    detail_h = body_h - 2 - list_h
    state.page = list_h
    state.scroll()
    title = list_title(state, len(state.items), total, right_w)
    right = [fit([(title, "title")], right_w)]
    right += _list(state, right_w, list_h)
    right.append(fit([("Detail", "title")], right_w))
    right += [fit(line, right_w) for line in detail(state, right_w)[:detail_h]]
    right += [fit([], right_w)] * (detail_h - (len(right) - list_h - 2))
    body = [left[i] + [("│" if unicode else "|", "dim")] + right[i] for i in range(body_h)]
    return [top, *body, prompt, *keys]


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
        lines = [[("Exploded rings", "title")], *rings.exploded(d, width, unicode=unicode)]
    else:
        activity = rings.activity(d, width, unicode=unicode)
        picture_h = max(height - len(activity) - 2, 0)
        lines = [[("Ambient rings", "title")]]
        lines += rings.picture(d, width, picture_h) if picture_h >= 3 else []
        lines += [rings.activity_header(width), *activity]
    lines = lines[:height]
    return [fit(line, width) for line in lines] + [fit([], width)] * (height - len(lines))
