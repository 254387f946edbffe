"""The brief's byte cap holds in bytes, whatever the project id and lines hold.

6,000 bytes and eight lines are the product's numbers (SPEC 5), written here
as literals so a changed constant in brief.py shows up as a failing test.
Every field is clipped on its line (the project id to 128 characters), so a
real brief stays under 6,000 bytes; the cap is the last guard. Its mechanism
is held here under smaller caps, set through `brief.MAX_BYTES`.
"""

from __future__ import annotations

import pytest
from helpers import make_memory

from tree_ring.model.record import Memory
from tree_ring.read import brief

CAP = 6_000


def full_lines(project_id: str) -> list[Memory]:
    """Eight memories long enough that each fills its line (three bytes a character)."""
    return [make_memory(project_id, f"{n} " + "記憶" * 400) for n in range(8)]


def shown(text: str) -> list[str]:
    return text.split(brief.BEGIN)[1].split(brief.END)[0].strip("\n").splitlines()


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def test_the_cap_and_line_count_are_the_products() -> None:
    assert (brief.MAX_BYTES, brief.MAX_LINES) == (CAP, 8)


def test_eight_full_lines_and_the_longest_project_id_fit_under_the_cap() -> None:
    # Four-byte characters: the project id is clipped to 128 bytes.
    project_id = "𝄞" * 300
    result = brief.render(project_id, full_lines(project_id), "[history] " + "h" * 700)
    header = result.text.splitlines()[0]
    assert "𝄞" * 30 in header and "𝄞" * 33 not in header
    assert 5_000 < size(result.text) <= CAP
    assert len(shown(result.text)) == 8 and len(result.ids) == 7


def test_lines_are_dropped_by_bytes_not_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    project_id = "app-1"
    memories = full_lines(project_id)
    whole = brief.render(project_id, memories).text
    # A cap the text fits in characters and not in bytes.
    cap = (len(whole) + size(whole)) // 2
    assert len(whole) < cap < size(whole)
    monkeypatch.setattr(brief, "MAX_BYTES", cap)
    result = brief.render(project_id, memories)
    lines = shown(result.text)
    assert size(result.text) <= cap and 0 < len(lines) < 8
    assert result.ids == tuple(m.id for m in memories[: len(lines)])
    # No more lines were dropped than the cap needs: one more would not fit.
    monkeypatch.setattr(brief, "MAX_BYTES", CAP)
    one_more = brief.render(project_id, memories[: len(lines) + 1]).text
    assert size(one_more) > cap


def test_exactly_the_cap_keeps_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    memories = full_lines("app-1")
    exact = size(brief.render("app-1", memories).text)
    monkeypatch.setattr(brief, "MAX_BYTES", exact)
    result = brief.render("app-1", memories)
    assert size(result.text) == exact
    assert len(result.ids) == 8 and len(shown(result.text)) == 8


def test_one_byte_over_the_cap_drops_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    memories = full_lines("app-1")
    exact = size(brief.render("app-1", memories).text)
    monkeypatch.setattr(brief, "MAX_BYTES", exact - 1)
    result = brief.render("app-1", memories)
    assert size(result.text) <= exact - 1
    assert len(result.ids) == 7 and len(shown(result.text)) == 7


def test_the_history_line_goes_before_any_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    memories = full_lines("app-1")
    history = "[history] " + "h" * 700
    exact = size(brief.render("app-1", memories, history).text)
    monkeypatch.setattr(brief, "MAX_BYTES", exact - 1)
    result = brief.render("app-1", memories, history)
    lines = shown(result.text)
    assert size(result.text) <= exact - 1
    # History takes one of eight lines; over the cap, it is what goes.
    assert not any(line.startswith("[history]") for line in lines)
    assert len(lines) == 7 and len(result.ids) == 7
