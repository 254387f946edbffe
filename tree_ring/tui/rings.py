"""The rings as text: the activity bars, the concentric picture, the exploded view.

A line is a list of (text, style) segments; the style names a ring or a role
(`dim`, `title`, ...) that `screen` turns into a colour where the terminal has
one. The picture draws the four growth rings as concentric bands, cambium
outermost and heartwood at the core, each as wide as its share of the
memories (by area, so a ring with twice the rows has twice the ink); scars
and seeds are not growth, so they are marks on the wood and a legend.
"""

from __future__ import annotations

import math

from tree_ring.tui import cells
from tree_ring.tui.state import Dashboard, RingStat

Segment = tuple[str, str]
Line = list[Segment]

# Core first: the order the bands are laid from the centre out.
GROWTH = ("heartwood", "inner", "outer", "cambium")
MARKS = ("scar", "seed")
# A ring's ink in the picture, and where a terminal cannot draw Unicode.
INK = {"heartwood": "@", "inner": "#", "outer": "+", "cambium": "~", "scar": "x", "seed": "*"}
BAR = ("█", "#")
RING_SHORT = {
    "cambium": "camb",
    "outer": "outr",
    "inner": "innr",
    "heartwood": "hart",
    "scar": "scar",
    "seed": "seed",
}


def bands(dashboard: Dashboard) -> list[tuple[str, float]]:
    """(ring, outer radius from 0 to 1) for each growth ring that has rows, core first.

    Radii follow area: the band of a ring with a share s of the rows covers s
    of the disc. A ring with rows is never thinner than a tenth of the radius,
    so one memory among thousands still shows.
    """
    present = [(ring, dashboard.count(ring)) for ring in GROWTH if dashboard.count(ring)]
    total = sum(count for _, count in present)
    out: list[tuple[str, float]] = []
    inner = 0.0
    cumulative = 0
    for index, (ring, count) in enumerate(present):
        cumulative += count
        after = len(present) - index - 1  # rings still to lay outside this one
        radius = min(max(math.sqrt(cumulative / total), inner + 0.1), 1.0 - 0.1 * after)
        out.append((ring, radius))
        inner = radius
    return out


def picture(dashboard: Dashboard, width: int, height: int) -> list[Line]:
    """The ambient rings in a `width` x `height` box, with a legend on the last line."""
    if width < 4 or height < 3:
        return []
    rows = height - 1
    laid = bands(dashboard)
    marks = _mark_cells(dashboard, width, rows)
    cx, cy = (width - 1) / 2, (rows - 1) / 2
    rx, ry = max(width / 2, 1.0), max(rows / 2, 1.0)
    lines: list[Line] = []
    for y in range(rows):
        line: Line = []
        for x in range(width):
            r = math.hypot((x - cx) / rx, (y - cy) / ry)
            cell = _cell(laid, r, marks.get((x, y)))
            if line and line[-1][1] == cell[1]:
                line[-1] = (line[-1][0] + cell[0], cell[1])
            else:
                line.append(cell)
        lines.append(line)
    if not laid:
        lines[rows // 2] = [(_centred("no memories yet", width), "dim")]
    lines.append(_legend(dashboard, width))
    return lines


def _cell(laid: list[tuple[str, float]], r: float, mark: str | None) -> Segment:
    if r > 1.0:
        return (" ", "plain")
    if mark is not None:
        return (INK[mark], mark)
    for ring, radius in laid:
        if r <= radius:
            return (INK[ring], ring)
    return (".", "dim")


def _mark_cells(dashboard: Dashboard, width: int, rows: int) -> dict[tuple[int, int], str]:
    """Scars and seeds as marks on the outer wood, at fixed angles (at most 8 each)."""
    placed: dict[tuple[int, int], str] = {}
    cx, cy = (width - 1) / 2, (rows - 1) / 2
    for ring, offset, reach in (("scar", 0.3, 0.8), ("seed", 1.9, 0.6)):
        count = min(dashboard.count(ring), 8)
        for i in range(count):
            angle = offset + i * (2 * math.pi / 8)
            x = round(cx + math.cos(angle) * reach * width / 2)
            y = round(cy + math.sin(angle) * reach * rows / 2)
            if 0 <= x < width and 0 <= y < rows:
                placed[(x, y)] = ring
    return placed


def _legend(dashboard: Dashboard, width: int) -> Line:
    line: Line = []
    used = 0
    for ring in MARKS:
        text = f"{INK[ring]} {ring} {dashboard.count(ring)}  "
        if used + len(text) > width:
            break
        line.append((text, ring))
        used += len(text)
    return line


def _centred(text: str, width: int) -> str:
    text, used = cells.cut(text, width)
    pad = (width - used) // 2
    return " " * pad + text + " " * (width - used - pad)


def activity(dashboard: Dashboard, width: int, *, unicode: bool = True) -> list[Line]:
    """One line per ring: name, count, a bar, avg confidence/salience, private, top event."""
    most = max((s.total for s in dashboard.rings), default=0)
    bar_width = 6 if width >= 40 else 4
    lines: list[Line] = []
    for s in dashboard.rings:
        name = s.ring if width >= 36 else RING_SHORT[s.ring]
        filled = 0 if not most else max(1 if s.total else 0, round(bar_width * s.total / most))
        bar = (BAR[0] if unicode else BAR[1]) * filled + " " * (bar_width - filled)
        tail = f" {s.confidence:.2f}/{s.salience:.2f} p{s.private} {s.top_event}"
        head = f"{name:<10}" if width >= 36 else f"{name:<5}"
        line: Line = [(head, s.ring), (f"{s.total:>6} ", "title"), (bar, s.ring)]
        line.append((cells.clip(tail, max(width - len(head) - 7 - bar_width, 0)), "dim"))
        lines.append(line)
    return lines


def activity_header(width: int) -> Line:
    """The column names over `activity`, at the same widths."""
    head = f"{'ring':<10}" if width >= 36 else f"{'ring':<5}"
    bar = " " * (6 if width >= 40 else 4)
    return [(f"{head}{'n':>6} {bar} conf/sal private top", "title")]


def exploded(dashboard: Dashboard, width: int, *, unicode: bool = True) -> list[Line]:
    """Each ring on its own, with its bar across the panel and what it holds:
    the rows the list shows and, once counted, its live rows as `status` has them."""
    most = max((s.total for s in dashboard.rings), default=0)
    counts = dashboard.counts
    lines: list[Line] = []
    for s in dashboard.rings:
        bar_width = max(width - 8, 1)
        filled = 0 if not most else max(1 if s.total else 0, round(bar_width * s.total / most))
        glyph = BAR[0] if unicode else BAR[1]
        # Beside the rows listed, the ring's live rows as `status` counts them.
        held = f"{s.total} memories" + (f" ({counts.ring(s.ring)} live)" if counts else "")
        lines.append([(f"{s.ring:<10}", s.ring), (cells.clip(held, width - 10), "title")])
        lines.append([(glyph * filled, s.ring), (" " * (bar_width - filled), "plain")])
        lines.append([(cells.clip(_about(s), width), "dim")])
    return lines


def _about(s: RingStat) -> str:
    top = f", mostly {s.top_event}" if s.top_event else ""
    return f"  conf {s.confidence:.2f} sal {s.salience:.2f} private {s.private}{top}"
