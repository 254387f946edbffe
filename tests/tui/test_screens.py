"""Whole screens, text and colours, against recorded screens.

A change to the layout shows here as a diff of the recorded screens; when the
change is meant, rewrite them with `PYTHONPATH=.:tests python tests/tui/test_screens.py`
and read the diff before committing it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import make_memory

from tree_ring.tui import layout
from tree_ring.tui.state import Counts, Dashboard, Item, Prompt, RingStat, State

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "tui" / "screens.json"
WHEN = "2026-03-01T09:30:00Z"


def _items() -> list[Item]:
    rings = ["cambium", "outer", "inner", "heartwood", "scar"]
    out: list[Item] = []
    for n in range(14):
        memory = make_memory(
            "p",
            f"memory number {n} about the release train",
            id=f"mem_{n:026d}",
            created_at=WHEN,
            ring=rings[n % 5],
            trust="pending" if n % 3 else "accepted",
            origin="claude-code" if n % 2 else "person",
            sensitivity="health" if n == 4 else "normal",
        )
        out.append(Item(memory.id, memory, note="0.82" if n == 1 else ""))
    return out


def _dashboard() -> Dashboard:
    stats = (
        RingStat("cambium", 20, 0.7, 0.4, 1, "decision"),
        RingStat("outer", 10, 0.6, 0.3, 0, "convention"),
        RingStat("inner", 6, 0.8, 0.5, 0, ""),
        RingStat("heartwood", 5, 0.9, 0.9, 0, "fact"),
        RingStat("scar", 3, 0.5, 0.2, 2, "incident"),
    )
    by_ring = (("cambium", 15), ("heartwood", 5), ("inner", 4), ("outer", 8), ("scar", 2))
    counts = Counts(
        live=34, pending=7, disputed=2, retired=11, sensitive=3, review=9, inbox=2,
        by_ring=by_ring, user=12,
    )  # fmt: skip
    return Dashboard(rings=stats, listed=44, counts=counts)


def screens() -> dict[str, list[list[list[str]]]]:
    """Each recorded screen by name: lines of [text, style] segments."""
    old = make_memory("p", "the cache lives in redis", id=f"mem_{90:026d}", created_at=WHEN)
    new = make_memory(
        "p",
        "the cache lives in memcached since the spring migration of the session store",
        id=f"mem_{91:026d}",
        created_at=WHEN,
        trust="pending",
    )
    cases: dict[str, tuple[State, int, int, int | None, bool]] = {}
    base = State(items=_items(), dashboard=_dashboard(), status="ready")
    cases["main-80x24"] = (base, 80, 24, 400, True)
    cases["main-120x40"] = (
        State(items=_items(), dashboard=_dashboard(), cursor=9, watching=True, changes=2),
        120,
        40,
        None,
        True,
    )
    cases["main-ascii-100x30"] = (
        State(items=_items(), dashboard=_dashboard(), exploded=True, as_of=WHEN),
        100,
        30,
        14,
        False,
    )
    cases["narrow-59x20"] = (
        State(items=_items(), dashboard=_dashboard(), valid_at=WHEN, include_sensitive=True),
        59,
        20,
        None,
        True,
    )
    cases["tiny-19x5"] = (State(), 19, 5, None, True)
    cases["empty-search-80x24"] = (State(view="search", query="redis"), 80, 24, None, True)
    cases["empty-60x20"] = (State(dashboard=Dashboard()), 60, 20, None, True)
    cases["review-120x30"] = (
        State(view="review", items=[Item(new.id, new, pair=(old,))], include_superseded=True),
        120,
        30,
        None,
        True,
    )
    cases["review-narrow-70x30"] = (
        State(view="review", items=[Item(new.id, new, pair=(old,))]),
        70,
        30,
        None,
        True,
    )
    cases["audit-detail-90x30"] = (
        State(
            items=_items()[:2],
            show_audit=True,
            audit=[{"at": WHEN, "action": "remember", "actor": "ana", "origin": "person"}],
        ),
        90,
        30,
        None,
        True,
    )
    cases["other-item-80x24"] = (
        State(view="audit", items=[Item("a1", text="an entry", detail=("line one", "two"))]),
        80,
        24,
        None,
        True,
    )
    cases["help-80x24"] = (State(help=True), 80, 24, None, True)
    cases["help-130x40"] = (State(help=True), 130, 40, None, True)
    cases["prompt-command-80x24"] = (
        State(prompt=Prompt("command", "", "rings")),
        80,
        24,
        None,
        True,
    )
    cases["prompt-confirm-80x24"] = (
        State(prompt=Prompt("confirm", "forget mem_1? y/n")),
        80,
        24,
        None,
        True,
    )
    cases["prompt-search-80x24"] = (
        State(prompt=Prompt("search", "search", "cache")),
        80,
        24,
        None,
        True,
    )
    # Widths on each side of the layout's thresholds: the rings panel's 36 and
    # 40 columns, the list's 70, the side-by-side contradiction's 50, the help's 100.
    for width in (93, 95, 103, 106, 112, 114):
        cases[f"edge-main-{width}x24"] = (
            State(items=_items(), dashboard=_dashboard()),
            width,
            24,
            None,
            True,
        )
    for width in (93, 95, 103, 106):
        cases[f"edge-exploded-{width}x24"] = (
            State(items=_items(), dashboard=_dashboard(), exploded=True),
            width,
            24,
            None,
            True,
        )
    for width in (80, 81):
        cases[f"edge-review-{width}x30"] = (
            State(view="review", items=[Item(new.id, new, pair=(old,))]),
            width,
            30,
            None,
            True,
        )
    for width in (99, 100):
        cases[f"edge-help-{width}x40"] = (State(help=True), width, 40, None, True)
    out: dict[str, list[list[list[str]]]] = {}
    for name, (state, width, height, total, unicode) in cases.items():
        lines = layout.render(state, width, height, total, unicode=unicode)
        out[name] = [[[text, style] for text, style in line] for line in lines]
    return out


RECORDED_SCREENS: dict[str, list[list[list[str]]]] = (
    json.loads(RECORDED.read_text(encoding="utf-8")) if RECORDED.exists() else {}
)


@pytest.mark.parametrize("name", sorted(RECORDED_SCREENS))
def test_screen_matches_the_recorded_one(name: str) -> None:
    assert screens()[name] == RECORDED_SCREENS[name]


def test_every_screen_is_recorded() -> None:
    assert set(screens()) == set(RECORDED_SCREENS)
    assert len(RECORDED_SCREENS) == 30


if __name__ == "__main__":
    RECORDED.write_text(json.dumps(screens(), ensure_ascii=False, indent=0) + "\n")
