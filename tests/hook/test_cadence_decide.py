"""The stop hook's decision, mode by mode, at the interval's edge."""

from __future__ import annotations

from typing import Any

import pytest

from tree_ring.harness.checkpoint import Cadence
from tree_ring.hook import cadence

NOW = 10_000.0
ASKED = {"turn": "t2", "at": NOW, "pending": False}


@pytest.mark.parametrize(
    ("mode", "minutes", "state", "work", "decision"),
    [
        ("off", 30, {}, True, (False, None)),
        # The same turn already had its checkpoint.
        ("every-stop", 30, {"turn": "t2"}, True, (False, None)),
        ("every-stop", 30, {"turn": "t1"}, False, (True, ASKED)),
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


def test_subagent_work_is_noted_once() -> None:
    assert cadence.note_work({"at": 1.0}) == {"at": 1.0, "pending": True}
    assert cadence.note_work({"at": 1.0, "pending": True}) is None
