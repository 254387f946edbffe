"""The stop hook's decision, mode by mode, at the interval's edge."""

from __future__ import annotations

from typing import Any

import pytest

from tree_ring.harness.checkpoint import Cadence
from tree_ring.hook import cadence

NOW = 10_000.0
ASKED = {"at": NOW, "pending": False, "turns": ["t2"]}


@pytest.mark.parametrize(
    ("mode", "minutes", "state", "work", "decision"),
    [
        ("off", 30, {}, True, (False, None)),
        # The same turn already had its checkpoint.
        ("every-stop", 30, {"turn": "t2"}, True, (False, None)),
        ("every-stop", 30, {"turn": "t1"}, False, (True, {**ASKED, "turns": ["t1", "t2"]})),
        ("after-work", 30, {}, False, (False, None)),
        ("after-work", 30, {}, True, (True, ASKED)),
        ("after-work", 30, {"pending": True}, False, (True, ASKED)),  # a subagent's work
        ("session-end", 0, {}, True, (True, ASKED)),
        ("session-end", 0, {"at": 5.0}, True, (False, None)),
        # Thirty minutes: asked again once they have passed, exactly.
        (
            "after-work",
            30,
            {"at": NOW - 1_799},
            True,
            (False, {"at": NOW - 1_799, "pending": True}),
        ),
        ("after-work", 30, {"at": NOW - 1_800}, True, (True, ASKED)),
        ("after-work", 0, {"at": NOW - 1}, True, (True, ASKED)),  # no interval: every time
    ],
)
def test_decide(
    mode: str,
    minutes: int,
    state: dict[str, Any],
    work: bool,
    decision: tuple[bool, dict[str, Any] | None],
) -> None:
    assert cadence.decide(Cadence(mode, minutes), state, "t2", work, NOW) == decision


def test_a_turn_asked_before_a_newer_one_is_not_asked_again() -> None:
    """A stop of an older turn that arrives after a newer turn's (a background
    subagent of the first returning during the second) passes."""
    every = Cadence("every-stop", 0)
    state: dict[str, Any] = {}
    blocked: list[bool] = []
    for turn in ("t1", "t1", "t2", "t1", "t3", "t2"):
        block, changed = cadence.decide(every, state, turn, True, NOW)
        blocked.append(block)
        state = changed if changed is not None else state
    assert blocked == [True, False, True, False, True, False]
    assert state["turns"] == ["t1", "t2", "t3"]
    # A state saved before the list holds the one turn it names.
    assert cadence.decide(every, {"turn": "t9"}, "t9", True, NOW) == (False, None)
    # Only the newest turns are kept.
    for n in range(20):
        state = cadence.decide(every, state, f"n{n}", True, NOW)[1] or state
    assert len(state["turns"]) == cadence.RECENT_TURNS


def test_subagent_work_is_noted_once() -> None:
    assert cadence.note_work({"at": 1.0}) == {"at": 1.0, "pending": True}
    assert cadence.note_work({"at": 1.0, "pending": True}) is None
