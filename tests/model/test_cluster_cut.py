"""A cut text never splits a character as a reader sees it (`text.cluster_end`):
not a letter from its accent, an emoji from its skin tone or from the parts
a zero-width joiner binds to it, nor a flag's two letters. The brief's
lines, the listings' previews and the web view's cells cut through it.
"""

from __future__ import annotations

import random

import pytest

from tree_ring.model import text
from tree_ring.read import brief
from tree_ring.web import markup

# Each one character as a reader sees it.
CLUSTERS = [
    "a",
    "Z",
    " ",
    "é",
    "e\u0301",  # e and a combining acute
    "a\u0301\u0323",  # two marks
    "\u0915\u094d\u0937",  # Devanagari: a virama joins two letters
    "\u0915\u093f",  # a spacing vowel sign
    "👍",
    "👍🏽",  # a skin tone
    "👩\u200d💻",  # joined by ZWJ
    "👨\u200d👩\u200d👧\u200d👦",
    "❤\ufe0f",  # a variation selector
    "🇫🇷",
    "🇩🇪",
    "中",
    "ß",
]


def boundaries(clusters: list[str]) -> list[int]:
    out, at = [0], 0
    for cluster in clusters:
        at += len(cluster)
        out.append(at)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_every_cut_is_the_last_boundary_at_or_before_it(seed: int) -> None:
    rng = random.Random(seed)
    clusters = [rng.choice(CLUSTERS) for _ in range(rng.randint(1, 12))]
    whole = "".join(clusters)
    allowed = boundaries(clusters)
    for end in range(len(whole) + 1):
        assert text.cluster_end(whole, end) == max(b for b in allowed if b <= end), (
            whole,
            end,
        )


def test_ascii_is_cut_where_asked_and_bounds_are_clamped() -> None:
    assert text.cluster_end("abcdef", 3) == 3
    assert text.cluster_end("abc", 10) == 3
    assert text.cluster_end("abc", -1) == 0


def flags(n: int) -> str:
    return "🇫🇷" * n


@pytest.mark.parametrize("count", range(1, 5))
def test_a_run_of_flags_is_cut_between_flags(count: int) -> None:
    run = "x" + flags(count)
    for end in range(len(run) + 1):
        assert (text.cluster_end(run, end) - 1) % 2 == 0 or text.cluster_end(run, end) == 0


def ends_whole(shown: str, source: str) -> bool:
    """Whether `shown` is `source` cut at one of its character boundaries."""
    return any(
        shown == source[:b] for b in range(len(source) + 1) if text.cluster_end(source, b) == b
    )


@pytest.mark.parametrize("cluster", ["👩\u200d💻", "e\u0301", "👍🏽", "🇫🇷", "\u0915\u093f"])
def test_the_brief_cuts_a_summary_between_characters(cluster: str) -> None:
    summary = "x" * 3 + cluster * 400
    for limit in range(20, 80):
        shown = brief.quoted(summary, limit)
        assert shown.startswith('"') and shown.endswith('..."')
        assert len(shown.encode("utf-8")) <= limit
        assert ends_whole(shown[1:-4], summary), (limit, shown)


@pytest.mark.parametrize("cluster", ["👩\u200d💻", "e\u0301", "🇫🇷"])
def test_previews_and_web_cells_cut_between_characters(cluster: str) -> None:
    summary = "y" + cluster * 100
    for limit in range(5, 40):
        shown = text.preview(summary, limit)
        assert shown.endswith("...") and ends_whole(shown[:-3], summary)
        cell = markup.clip(summary, limit)
        assert cell.endswith("…") and ends_whole(cell[:-1], summary)
