"""The brief's byte cap holds in bytes, whatever the project id and lines hold.

6,000 bytes and eight lines are the product's numbers (SPEC 5), written here
as literals so a changed constant in brief.py shows up as a failing test.
"""

from __future__ import annotations

from helpers import make_memory

from tree_ring.model.record import Memory
from tree_ring.read import brief

CAP = 6_000


def full_lines(project_id: str) -> list[Memory]:
    """Eight memories long enough that each fills its line (three bytes a character)."""
    return [make_memory(project_id, f"{n} " + "記憶" * 400) for n in range(8)]


def shown(text: str) -> list[str]:
    return text.split(brief.BEGIN)[1].split(brief.END)[0].strip("\n").splitlines()


def padded_id(target: int) -> str:
    """A multi-byte project id that makes eight full lines exactly `target` bytes."""
    base = "é" * 10
    size = len(brief.render(base, full_lines(base)).text.encode("utf-8"))
    missing = target - size
    assert missing > 0
    return base + "é" * (missing // 2) + "a" * (missing % 2)


def test_eight_full_lines_fill_most_of_the_budget() -> None:
    project_id = "app-1234"
    result = brief.render(project_id, full_lines(project_id))
    size = len(result.text.encode("utf-8"))
    assert len(result.ids) == 8 and len(shown(result.text)) == 8
    # Each line is cut to its share, not to nothing: the lines are full.
    assert 5_000 < size <= CAP


def test_a_long_multi_byte_project_id_drops_lines_by_bytes_not_characters() -> None:
    # 400 two-byte characters: counted in characters the brief would fit.
    project_id = "é" * 400
    memories = full_lines(project_id)
    result = brief.render(project_id, memories)
    # In characters all eight lines and the header would fit; in bytes they do not.
    frame = len(brief.HEADER) + len(brief.BEGIN) + len(brief.END)
    chars = frame + len(project_id) + sum(len(brief.line(m)) + 1 for m in memories)
    size = frame + len(project_id.encode()) + sum(len(brief.line(m).encode()) + 1 for m in memories)
    assert chars < CAP < size
    assert len(result.text.encode("utf-8")) <= CAP
    lines = shown(result.text)
    assert 0 < len(lines) < 8
    assert result.ids == tuple(m.id for m in memories[: len(lines)])
    assert project_id in result.text.splitlines()[0]
    # No more lines were dropped than the cap needs: one more would not fit.
    longer = brief.render(project_id, memories[: len(lines) + 1])
    assert len(longer.ids) == len(lines)


def test_exactly_the_cap_keeps_every_line() -> None:
    project_id = padded_id(CAP)
    result = brief.render(project_id, full_lines(project_id))
    assert len(result.text.encode("utf-8")) == CAP
    assert len(result.ids) == 8 and len(shown(result.text)) == 8


def test_one_byte_over_the_cap_drops_one_line() -> None:
    project_id = padded_id(CAP + 1)
    result = brief.render(project_id, full_lines(project_id))
    assert len(result.text.encode("utf-8")) <= CAP
    assert len(result.ids) == 7 and len(shown(result.text)) == 7


def test_the_history_line_goes_before_any_memory() -> None:
    project_id = padded_id(CAP + 1)
    # A line longer than a memory's: with it, seven memories would not fit.
    history = "[history] " + "h" * 700
    result = brief.render(project_id, full_lines(project_id), history)
    lines = shown(result.text)
    assert len(result.text.encode("utf-8")) <= CAP
    # History takes one of eight lines; over the cap, it is what goes.
    assert history not in lines and len(lines) == 7 and len(result.ids) == 7
