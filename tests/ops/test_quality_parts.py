"""The scenario reader's parts: relative times, expectations and their labels."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import make_memory

from tree_ring.upkeep import quality

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "resolved"),
    [
        ("now", "2026-03-01T12:00:00.000000Z"),
        ("now-90d", "2025-12-01T12:00:00.000000Z"),
        ("now+2h", "2026-03-01T14:00:00.000000Z"),
        ("now-1.5m", "2026-03-01T11:58:30.000000Z"),
        ("now+30s", "2026-03-01T12:00:30.000000Z"),
        (" now-1d ", "2026-02-28T12:00:00.000000Z"),
        ("later", "later"),
        ("now-3x", "now-3x"),
        (5, 5),
    ],
)
def test_relative_times(value: Any, resolved: Any) -> None:
    assert quality._resolve_time(value, NOW) == resolved  # pyright: ignore[reportPrivateUsage]


def test_labels_name_what_is_given() -> None:
    assert quality.Expectation(memory_id="m1").label == "m1"
    assert quality.Expectation(memory_id="m1", ring="scar").label == "memory_id=m1 ring=scar"
    assert quality.Expectation(tag="t", source_ref="r").label == "tag=t source_ref=r"


def test_an_expectation_matches_when_every_given_selector_holds() -> None:
    memory = make_memory("p", "x", ring="scar", tags=("ci",), source_ref="run-7")
    assert quality.Expectation(memory_id=memory.id).matches(memory)
    assert quality.Expectation(ring="scar", tag="ci", source_ref="run-7").matches(memory)
    assert not quality.Expectation(memory_id="other").matches(memory)
    assert not quality.Expectation(ring="cambium").matches(memory)
    assert not quality.Expectation(tag="cd").matches(memory)
    assert not quality.Expectation(source_ref="run-8").matches(memory)
    assert not quality.Expectation(memory_id=memory.id, ring="cambium").matches(memory)


def test_expectations_read_ids_and_objects() -> None:
    read = quality._expectations(  # pyright: ignore[reportPrivateUsage]
        ["m1", {"ring": "scar", "reason": "why"}], "expected_recall", {"m1"}
    )
    assert read == (
        quality.Expectation(memory_id="m1"),
        quality.Expectation(ring="scar", reason="why"),
    )
    assert quality._expectations(None, "x", set()) == ()  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("m1", "expected_recall: must be a list"),
        ([7], "expected_recall[0]: must be a memory id or an object with memory_id"),
        ([{"rings": "scar"}], "expected_recall[0].rings: unknown key"),
        ([{"ring": " "}], "expected_recall[0].ring: must be a non-blank string"),
        ([{"ring": 3}], "expected_recall[0].ring: must be a non-blank string"),
        ([{"reason": "x"}], "expected_recall[0]: needs a memory_id, ring, tag or source_ref"),
        (["m9"], "expected_recall[0].memory_id: 'm9' is not a seed memory's id"),
    ],
)
def test_expectations_refused(raw: Any, says: str) -> None:
    with pytest.raises(quality.ScenarioError) as caught:
        quality._expectations(raw, "expected_recall", {"m1"})  # pyright: ignore[reportPrivateUsage]
    assert str(caught.value).startswith(says)


def test_string_lists() -> None:
    assert quality._as_str_list(None, "x") == []  # pyright: ignore[reportPrivateUsage]
    assert quality._as_str_list("a", "x") == ["a"]  # pyright: ignore[reportPrivateUsage]
    assert quality._as_str_list(["a", "b"], "x") == ["a", "b"]  # pyright: ignore[reportPrivateUsage]
    for bad in (["a", 1], {"a": 1}):
        with pytest.raises(quality.ScenarioError, match="x: must be a list of memory ids"):
            quality._as_str_list(bad, "x")  # pyright: ignore[reportPrivateUsage]


# Fields only the store sets: a seed that names one would fake a state the
# write path never produces. A literal list, not the code's own constant.
STORE_ONLY = ("retired_at", "redacted_at", "origin", "origin_session", "content_hash")


@pytest.mark.parametrize("key", STORE_ONLY)
def test_a_seed_may_not_carry_a_field_only_the_store_sets(key: str) -> None:
    raw = {"id": "s1", "summary": "The build uses make", key: "x"}
    with pytest.raises(quality.ScenarioError) as caught:
        quality._seed(raw, "seeds[0]", "p", NOW)  # pyright: ignore[reportPrivateUsage]
    assert str(caught.value) == f"seeds[0].{key}: not a field a write can carry"


def test_a_seed_may_carry_every_field_a_write_can() -> None:
    raw = {
        "id": "mem_20260301_120000_0123456789ab", "summary": "The build uses make",
        "details": "all of it", "ring": "scar",
        "event_type": "lesson", "tags": ["build"], "salience": 0.7, "confidence": 0.8,
        "scope": "project", "trust": "accepted", "valid_from": "now-1d", "expires_at": "now+9d",
    }  # fmt: skip
    seeded = quality._seed(raw, "seeds[0]", "p", NOW)  # pyright: ignore[reportPrivateUsage]
    assert (seeded.id, seeded.ring, seeded.tags, seeded.valid_from) == (
        "mem_20260301_120000_0123456789ab", "scar", ("build",), "2026-02-28T12:00:00.000000Z",
    )  # fmt: skip
