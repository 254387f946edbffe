"""The contradiction threshold: two claims about the same thing share at least
three quarters of their content words (0.75, inclusive), and no fewer."""

from __future__ import annotations

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, live_ids, remember, show, write

from tree_ring.govern import claims

# Content words no stemmer changes and no other rule treats specially.
W = [
    "kestrel",
    "harbor",
    "lantern",
    "meadow",
    "quartz",
    "saddle",
    "timber",
    "violet",
    "walnut",
    "yonder",
    "zephyr",
    "copper",
    "falcon",
    "glacier",
    "hollow",
    "juniper",
    "marble",
    "nectar",
    "orchid",
    "pepper",
]


def words(*picked: int) -> str:
    return " ".join(W[i] for i in picked)


def overlap(a: str, b: str) -> float:
    one, two = claims.claim(a).words, claims.claim(b).words
    return len(one & two) / len(one | two)


AT_THRESHOLD = [
    # 3 shared of 4: negation
    (f"Never {words(0, 1, 2)}", f"{words(0, 1, 2, 3)}", "negation"),
    # 6 shared of 8: negation
    (f"Do not {words(0, 1, 2, 3, 4, 5, 6)}", f"{words(0, 1, 2, 3, 4, 5, 7)}", "negation"),
    # 3 shared of 4, a changed setting: value
    (f"{words(0, 1, 2)} is 30s", f"{words(0, 1, 2, 3)} is 60s", "value"),
]
BELOW_THRESHOLD = [
    # 14 shared of 19 (0.737)
    (f"Never {words(*range(16))}", f"{words(*range(14), 16, 17, 18)}"),
    # 2 shared of 3 (0.667)
    (f"Never {words(0, 1)}", f"{words(0, 1, 2)}"),
    # 8 shared of 11 (0.727), a changed setting
    (f"{words(*range(9))} is 30s", f"{words(*range(8), 9, 10)} is 60s"),
]


@pytest.mark.parametrize(("old", "new", "kind"), AT_THRESHOLD)
def test_exactly_three_quarters_shared_is_a_contradiction(old: str, new: str, kind: str) -> None:
    assert overlap(old, new) == 0.75
    assert claims.compare(new, old) == kind
    assert claims.compare(old, new) == kind


@pytest.mark.parametrize(("old", "new"), BELOW_THRESHOLD)
def test_just_below_three_quarters_is_not(old: str, new: str) -> None:
    assert 0.6 < overlap(old, new) < 0.75
    assert claims.compare(new, old) is None
    assert claims.compare(old, new) is None


def test_a_write_at_the_threshold_is_disputed_and_one_below_is_accepted(
    run_cli: CliRunner,
) -> None:
    old = remember(run_cli, f"Never {words(0, 1, 2)}")
    # An agent's write: a person's own is accepted, contradiction or not.
    at = write(run_cli, "remember", words(0, 1, 2, 3), "--scope", "project", environ=CLAUDE)
    assert at["trust"] == "disputed"
    assert {"type": "contradicts", "target": old} in show(run_cli, at["id"])["links"]

    older = remember(run_cli, f"Never {words(*range(4, 20))}")
    below = write(
        run_cli, "remember", words(*range(4, 18), 1, 2, 3), "--scope", "project", environ=CLAUDE
    )
    assert below["trust"] == "pending" and "contradicts" not in below["review_reason"]
    assert show(run_cli, below["id"])["links"] == []
    assert {old, older} <= live_ids(run_cli)
    assert at["id"] not in live_ids(run_cli)
