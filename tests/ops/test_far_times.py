"""Times counted past the years a time can name are bad input, never a crash.

A quality scenario's relative time (`now-99999999d`), `usage --since` with
a count of 0 or one past its bound, an ISO `--since` past the year 9999 in
UTC, `audit findings --stale-days` reaching back before the year 1, and a
`checkpoint.interval` of thousands of digits: each is a one-line error with
a non-zero exit that says what is wrong; a scenario's is its own failure,
and the run goes on. A `--since` within its bound that reaches back to a
year of three digits is read as any other.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner

from tree_ring.model.errors import UsageError
from tree_ring.review import findings
from tree_ring.store import usage_log
from tree_ring.store.db import Store
from tree_ring.upkeep import quality, usage

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
MANY_NINES = "9" * 5000  # past the digits int() reads from text


def _scenario(**seed: Any) -> dict[str, Any]:
    return {
        "name": "far",
        "category": "ranking",
        "query": "lint rule",
        "seed_memories": [{"id": "mem_t_rule", "summary": "Lint rule: ruff runs in CI.", **seed}],
        "expected_recall": ["mem_t_rule"],
    }


def _outside(where: str, value: str) -> str:
    return (
        f"{where}: {value[:40]!r} falls outside the years 0001-9999; "
        "count a nearer time, e.g. now-90d"
    )


# -- quality scenarios -----------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "now-99999999d",  # a timedelta, but a time before the year 1
        "now+99999999d",  # past the year 9999
        "now-9999999999999d",  # past a timedelta's days
        f"now-{MANY_NINES}s",  # a float's infinity
        " now-99999999d ",
    ],
    ids=["before-1", "after-9999", "past-timedelta", "infinite", "spaced"],
)
@pytest.mark.parametrize("key", ["created_at", "expires_at", "valid_from"])
def test_a_relative_time_out_of_range_names_its_field(tmp_path: Path, key: str, value: str) -> None:
    path = tmp_path / "far.json"
    path.write_text(json.dumps(_scenario(**{key: value})), encoding="utf-8")
    with pytest.raises(quality.ScenarioError) as caught:
        quality.load(path, NOW)
    assert str(caught.value) == _outside(f"{path}: seed_memories[0].{key}", value.strip())


def test_a_write_candidates_relative_time_is_named_too(tmp_path: Path) -> None:
    doc = _scenario()
    doc["write_candidates"] = [
        {"id": "mem_t_new", "summary": "Lint rule: mypy too.", "created_at": "now-99999999d"}
    ]
    doc["expected_write_decisions"] = [{"memory_id": "mem_t_new", "decision": "accept"}]
    path = tmp_path / "cand.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(quality.ScenarioError) as caught:
        quality.load(path, NOW)
    assert str(caught.value) == _outside(f"{path}: write_candidates[0].created_at", "now-99999999d")


def test_the_edges_of_the_years_still_resolve() -> None:
    resolve = quality._resolve_time  # pyright: ignore[reportPrivateUsage]
    assert resolve("now-739675d", NOW) == "0001-01-01T12:00:00.000000Z"
    assert resolve("now+2912383d", NOW) == "9999-12-31T12:00:00.000000Z"
    with pytest.raises(quality.ScenarioError) as caught:
        resolve("now-739676d", NOW, "seed")
    assert str(caught.value) == _outside("seed", "now-739676d")


def test_a_folder_run_reports_every_scenario_and_goes_on(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    folder = tmp_path / "sc"
    folder.mkdir()
    good = dict(_scenario(), name="good")
    (folder / "a-good.json").write_text(json.dumps(good), encoding="utf-8")
    (folder / "b-far.json").write_text(
        json.dumps(_scenario(created_at="now-99999999d")), encoding="utf-8"
    )
    (folder / "c-also-good.json").write_text(
        json.dumps(dict(good, name="also-good")), encoding="utf-8"
    )
    result = run_cli("quality", str(folder), root=False)
    assert (result.code, result.err) == (1, "")
    error = _outside(f"{folder / 'b-far.json'}: seed_memories[0].created_at", "now-99999999d")
    assert result.out.splitlines() == [
        "scenario   category                 expected  forbidden  result",
        "good       ranking                  1/1       0/0        ok",
        "b-far      ?                        0/0       0/0        FAIL",
        f"  error: {error}",
        "also-good  ranking                  1/1       0/0        ok",
        "3 scenarios, 1 failed; expected recall 2/2 (100.0%); forbidden recall 0/0 (n/a)",
    ]
    data = run_cli("--json", "quality", str(folder), root=False).json()
    assert [(s["name"], s["error"]) for s in data["items"]] == [
        ("good", None),
        ("b-far", error),
        ("also-good", None),
    ]


# -- usage --since -----------------------------------------------------------------

ZERO = (
    "error: --since counts back from now, and a count of 0 covers no time; "
    "give at least 1, e.g. 7d, or leave --since out for all the log holds\n"
)
TOO_FAR = (
    "error: --since counts too far back: at most 100,000 of a unit (m, h, d or w); "
    "give a smaller count or a larger unit, e.g. 7d, or leave --since out "
    "for all the log holds\n"
)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0m", ZERO),
        ("0d", ZERO),
        ("0" * 30 + "w", ZERO),
        ("100001m", TOO_FAR),
        ("99999999999w", TOO_FAR),
        (MANY_NINES + "w", TOO_FAR),
    ],
    ids=["0m", "0d", "zeros", "100001m", "99999999999w", "5000-digits"],
)
def test_since_says_whether_the_count_is_zero_or_too_far_back(
    run_cli: CliRunner, text: str, said: str
) -> None:
    result = run_cli("usage", "--since", text)
    assert (result.code, result.out, result.err) == (2, "", said)


def test_since_takes_a_count_up_to_its_bound() -> None:
    now_ns = int(NOW.timestamp()) * 1_000_000_000
    assert usage.parse_since("100000w", now_ns) == "0109-08-18T12:00:00.000000Z"
    assert usage.parse_since("1m", now_ns) == "2026-03-01T11:59:00.000000Z"


A = "mem_20260101_000000_00000000000a"


def test_a_since_centuries_back_keeps_its_width_and_counts_the_log(
    store: Store, project_id: str, project_root: Path
) -> None:
    now_ns = int(NOW.timestamp()) * 1_000_000_000
    # A year of three digits written as three ("492-...") sorted after every
    # entry of this millennium, and the period held nothing.
    assert usage.parse_since("80000w", now_ns) == "0492-12-07T12:00:00.000000Z"
    usage_log.append(project_root, "recall", harness="person", session=None, ids=[A], size=9)
    assert usage.report(store, project_id, usage.parse_since("80000w")).own_recalls.count == 1


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_an_iso_since_past_the_years_says_so(run_cli: CliRunner, text: str) -> None:
    result = run_cli("usage", "--since", text)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"error: --since {text!r} falls outside the years 0001-9999 in UTC; "
        "use a time within them\n"
    )


# -- audit findings --stale-days ---------------------------------------------------


@pytest.mark.parametrize(
    "days", [739_676, 999_999_999, 10**30, 10**5000], ids=["a-day-too-far", "9e8", "1e30", "1e5000"]
)
def test_stale_days_before_the_year_1_are_refused_with_the_most_there_is(
    store: Store, project_id: str, days: int
) -> None:
    now = "2026-03-01T12:00:00.000000Z"
    with pytest.raises(UsageError) as caught:
        findings.report(store.db, project_id, "sensitive", now=now, stale_days=days)
    assert str(caught.value) == (
        "--stale-days reaches back before the year 1, where no time is; use at most 739675"
    )
    assert findings.stale_cutoff(now, 739_675) == "0001-01-01T12:00:00.000000Z"
    assert findings.report(store.db, project_id, "stale", now=now, stale_days=739_675) == []


@pytest.mark.parametrize("days", ["1000000", "99999999999"])
def test_the_cli_refuses_such_stale_days_in_one_line(run_cli: CliRunner, days: str) -> None:
    before = (datetime.now(UTC).replace(tzinfo=None) - datetime.min).days
    result = run_cli("audit", "findings", "--stale-days", days)
    after = (datetime.now(UTC).replace(tzinfo=None) - datetime.min).days
    assert (result.code, result.out) == (2, "")
    assert result.err in {
        "error: --stale-days reaches back before the year 1, where no time is; "
        f"use at most {most}\n"
        for most in (before, after)
    }


# -- config ------------------------------------------------------------------------


def test_a_checkpoint_interval_of_thousands_of_digits_is_refused(run_cli: CliRunner) -> None:
    result = run_cli("config", "set", f"checkpoint.interval={MANY_NINES}")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "error: checkpoint.interval is whole minutes from 0 to 10080 (0: no limit), "
        "e.g. 30; not '99999999999999999999'\n"
    )
