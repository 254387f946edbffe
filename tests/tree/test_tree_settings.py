"""The summary tree's settings: each number has a range, and they are a person's to change."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import CliRunner

from tree_ring.store import settings
from tree_ring.store.db import Store
from tree_ring.tree import nodes

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
HUGE = "99999999999999999999999"


def stored(store: Store) -> list[Any]:
    return list(store.query("SELECT key, value FROM settings ORDER BY key"))


@pytest.mark.parametrize(
    "pair",
    [
        f"flush_age_secs={HUGE}",
        f"input_token_budget={HUGE}",
        f"output_token_budget={HUGE}",
        f"summary_fanout={HUGE}",
        f"flush_age_secs={nodes.BOUNDS['flush_age_secs'][1] + 1}",
        "input_token_budget=0",
        "input_token_budget=\u00b2",
    ],
)
@pytest.mark.parametrize("through_config", [False, True])
def test_a_number_out_of_range_is_refused_naming_the_range(
    pair: str, through_config: bool, run_cli: CliRunner, store: Store
) -> None:
    before = stored(store)
    argv = (
        ("config", "set", f"tree.{pair}") if through_config else ("tree", "config", "--set", pair)
    )
    done = run_cli(*argv)
    name = pair.partition("=")[0]
    low, high = nodes.BOUNDS[name]
    assert done.code == 2, done.err
    assert done.err.count("\n") == 1 and done.out == ""
    assert f"{name} is a whole number of at least {low} and at most {high}" in done.err
    assert stored(store) == before


def test_the_largest_values_in_range_are_kept_and_a_flush_runs(
    run_cli: CliRunner, store: Store
) -> None:
    pairs = [f"{name}={high}" for name, (_, high) in nodes.BOUNDS.items()]
    done = run_cli("tree", "config", *(w for pair in pairs for w in ("--set", pair)))
    assert done.code == 0, done.err
    cfg = nodes.config(store.db)
    assert cfg.flush_age_secs == nodes.BOUNDS["flush_age_secs"][1]
    assert run_cli("remember", "Cache eviction uses LRU with a ten minute ttl").code == 0
    assert run_cli("tree", "flush").code == 0


@pytest.mark.parametrize(
    ("pairs", "key"),
    [
        (["summary_fanout=3", "summary_fanout=4"], "summary_fanout"),
        # The same value twice, and the key under its `tree.` name, count too.
        (["summary_fanout=3", "summary_fanout=3"], "summary_fanout"),
        (["flush_age_secs=60", "deferred=true", " tree.flush_age_secs =90"], "flush_age_secs"),
    ],
)
def test_a_key_set_twice_is_refused_as_config_set_refuses_it(
    pairs: list[str], key: str, run_cli: CliRunner, store: Store
) -> None:
    before = stored(store)
    audited = store.query("SELECT count(*) FROM audit_log")
    done = run_cli("tree", "config", *(w for pair in pairs for w in ("--set", pair)))
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        f"error: {key} is given more than once; tree config --set takes each key once, even "
        f"with the same value; keep one --set {key}=VALUE and retry\n"
    )
    assert stored(store) == before
    assert store.query("SELECT count(*) FROM audit_log") == audited


@pytest.mark.parametrize(
    "argv",
    [
        ("tree", "config", "--set", "flush_age_secs=60"),
        ("config", "set", "tree.summary_fanout=4"),
    ],
)
def test_an_agent_may_not_change_the_tree_settings(
    argv: tuple[str, ...], run_cli: CliRunner, store: Store
) -> None:
    before = stored(store)
    done = run_cli(*argv, environ=AGENT)
    assert done.code == 1, done.err
    assert done.err.count("\n") == 1 and done.out == ""
    assert "tree.config is a person's decision" in done.err
    assert stored(store) == before
    assert nodes.config(store.db).flush_age_secs == settings.TREE["tree.flush_age_secs"]
    assert nodes.config(store.db).summary_fanout == settings.TREE["tree.summary_fanout"]


def test_flush_max_age_out_of_range_is_refused(run_cli: CliRunner, store: Store) -> None:
    done = run_cli("tree", "flush", "--max-age", HUGE)
    high = nodes.BOUNDS["flush_age_secs"][1]
    assert done.code == 2 and done.err.count("\n") == 1 and done.out == ""
    assert f"--max-age is a whole number of seconds from 0 to {high}" in done.err


@pytest.mark.parametrize(
    ("value", "read"),
    [
        (10**23, "high"),
        (float("inf"), "high"),
        (-5, "low"),
        (float("nan"), "low"),
        ("soon", "low"),
    ],
)
def test_a_stored_value_out_of_range_reads_as_the_nearest_end(
    value: object, read: str, run_cli: CliRunner, store: Store
) -> None:
    with store.write() as db:
        for name in ("flush_age_secs", "input_token_budget"):
            db.execute(
                "UPDATE settings SET value = ? WHERE key = ?",
                (json.dumps(value), f"tree.{name}"),
            )
    cfg = nodes.config(store.db)
    end = 1 if read == "high" else 0
    assert cfg.flush_age_secs == nodes.BOUNDS["flush_age_secs"][end]
    assert cfg.input_token_budget == nodes.BOUNDS["input_token_budget"][end]
    done = run_cli("remember", "Cache eviction uses LRU with a ten minute ttl")
    assert done.code == 0, done.err
    flushed = run_cli("tree", "flush")
    assert flushed.code == 0, flushed.err
    shown = run_cli("--json", "tree", "config").json()["config"]
    assert shown["flush_age_secs"] == nodes.BOUNDS["flush_age_secs"][end]
