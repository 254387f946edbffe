"""The rings picture: an inline SVG of the memories recall reads, drawn like a tree's cross-section.

Heartwood is the core, then inner, outer, and cambium outermost under the
bark; each band's width grows with the square root of its count, so a
ring of ten thousand does not crush a ring of ten. Every drawn memory is a
mark in its band, newest at the top and clockwise from there; scars are
radial notches cut in from the bark, seeds sit outside it. Pending and
disputed rows are hollow: they wait for review, and only the accepted ones
are live, as `status` and `list` count them (`counted`). Each mark carries a
native tooltip (`<title>`) and, in the viewer, a link to its memory.

Everything is computed from the marks' order and ids (a hash fixes how deep
in its band a mark sits), with coordinates to one decimal, so the same
store draws the same bytes.
"""

from __future__ import annotations

import hashlib
import math

from tree_ring.store.rings import UNREVIEWED, Mark, Rings
from tree_ring.web import markup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

SIZE = 560
CENTRE = SIZE / 2
BARK = 220.0  # the bark's radius; seeds sit beyond it
SCAR_DEPTH = 0.45  # a notch reaches this fraction of the way to the core
TOOLTIP = 140  # characters of a summary in a tooltip
# The bands from the core out; scars and seeds are drawn across and outside them.
BANDS = ("heartwood", "inner", "outer", "cambium")


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _depth(memory_id: str) -> float:
    """A stable fraction in [0, 1) from the id, for where in its band a mark sits."""
    return int(hashlib.sha256(memory_id.encode("utf-8")).hexdigest()[:8], 16) / 0x1_0000_0000


def band_radii(r: Rings) -> dict[str, tuple[float, float]]:
    """Inner and outer radius of each band, heartwood first."""
    weights = [1.0 + math.sqrt(r.counts[ring].total) for ring in BANDS]
    whole = sum(weights)
    radii: dict[str, tuple[float, float]] = {}
    inner = 0.0
    for ring, weight in zip(BANDS, weights, strict=True):
        outer = inner + BARK * weight / whole
        radii[ring] = (inner, outer)
        inner = outer
    return radii


def _point(angle: float, radius: float) -> tuple[str, str]:
    return _n(CENTRE + radius * math.cos(angle)), _n(CENTRE + radius * math.sin(angle))


# Each ring starts a golden angle further round than the one inside it, so
# rings of one or two marks do not line their marks up along one radius.
GOLDEN = math.pi * (3 - math.sqrt(5))
START = {ring: n * GOLDEN for n, ring in enumerate((*BANDS, "scar", "seed"))}
GROWTH_EVERY = 25  # one growth line per this many live memories of a band ...
GROWTH_MAX = 6  # ... up to this many


def _angle(ring: str, index: int, count: int) -> float:
    # The newest first, then clockwise.
    return -math.pi / 2 + START[ring] + 2 * math.pi * index / max(count, 1)


def tooltip(mark: Mark) -> str:
    return (
        f"{mark.ring} · {mark.trust} · {mark.created_at[:10]}\n"
        f"{markup.clip(mark.summary, TOOLTIP)}\n{mark.id}"
    )


def _linked(shape: str, mark: Mark, link: Callable[[str], str] | None) -> str:
    if link is None:
        return shape
    return f'<a href="{markup.attr(link(mark.id))}">{shape}</a>'


def _classes(base: str, mark: Mark) -> str:
    return f"{base} hollow" if mark.trust in UNREVIEWED else base


def svg(r: Rings, *, link: Callable[[str], str] | None = None, label: str = "") -> str:
    """The picture as SVG markup, each mark linked through `link(id)` when given."""
    radii = band_radii(r)
    out = [
        f'<svg class="rings" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}"'
        f' width="{SIZE}" height="{SIZE}" role="img" aria-label="{markup.attr(label or "rings")}">',
        f"<title>{markup.text(label or 'The rings of memory')}</title>",
    ]
    for ring in reversed(BANDS):  # widest first, so each smaller disc sits on top
        _, outer = radii[ring]
        said = f"{ring}: {markup.count(r.counts[ring].total, 'memory', 'memories')}"
        out.append(
            f'<circle class="band band-{ring}" cx="{_n(CENTRE)}" cy="{_n(CENTRE)}" r="{_n(outer)}">'
            f"<title>{markup.text(said)}</title></circle>"
        )
    for ring in BANDS:
        inner, outer = radii[ring]
        lines = min(GROWTH_MAX, r.counts[ring].total // GROWTH_EVERY)
        for k in range(1, lines + 1):
            radius = inner + (outer - inner) * k / (lines + 1)
            out.append(
                f'<circle class="growth" cx="{_n(CENTRE)}" cy="{_n(CENTRE)}" r="{_n(radius)}"/>'
            )
    out.append(f'<circle class="bark" cx="{_n(CENTRE)}" cy="{_n(CENTRE)}" r="{_n(BARK + 2)}"/>')
    for ring in BANDS:
        inner, outer = radii[ring]
        marks = r.marks[ring]
        # Keep marks off the band's edges (and off the very centre of the core).
        low = max(inner, outer * 0.2) if ring == "heartwood" else inner
        for index, mark in enumerate(marks):
            radius = low + (0.2 + 0.6 * _depth(mark.id)) * (outer - low)
            x, y = _point(_angle(ring, index, len(marks)), radius)
            shape = (
                f'<circle class="{_classes(f"mark m-{ring}", mark)}" cx="{x}" cy="{y}" r="3.2">'
                f"<title>{markup.text(tooltip(mark))}</title></circle>"
            )
            out.append(_linked(shape, mark, link))
    scars = r.marks["scar"]
    for index, mark in enumerate(scars):
        angle = _angle("scar", index, len(scars))
        x1, y1 = _point(angle, BARK + 6)
        x2, y2 = _point(angle, BARK * (1 - SCAR_DEPTH))
        shape = (
            f'<line class="{_classes("scar", mark)}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}">'
            f"<title>{markup.text(tooltip(mark))}</title></line>"
        )
        out.append(_linked(shape, mark, link))
    seeds = r.marks["seed"]
    for index, mark in enumerate(seeds):
        x, y = _point(_angle("seed", index, len(seeds)), BARK + 16)
        shape = (
            f'<circle class="{_classes("seed", mark)}" cx="{x}" cy="{y}" r="5">'
            f"<title>{markup.text(tooltip(mark))}</title></circle>"
        )
        out.append(_linked(shape, mark, link))
    out.append("</svg>")
    return "\n".join(out)


def counted(r: Rings) -> str:
    """What the picture draws, counted as `status` and `welcome` count a
    store: "4 memories (3 live, 1 waiting for review)"."""
    live = sum(c.by_trust.get("accepted", 0) for c in r.counts.values())
    waiting = r.total() - live
    drawn = markup.count(r.total(), "memory", "memories")
    return f"{drawn} ({live} live, {waiting} waiting for review)"


def caption(r: Rings) -> str:
    """What the picture leaves out: marks beyond the cap per ring, said per ring."""
    capped = [
        f"{ring}: the newest {len(r.marks[ring])} of {r.counts[ring].total}"
        for ring in (*BANDS, "scar", "seed")
        if r.counts[ring].total > len(r.marks[ring])
    ]
    if not capped:
        return "Every memory is drawn."
    return (
        f"At most {r.cap} marks per ring are drawn; "
        + "; ".join(capped)
        + ". The counts are whole."
    )
