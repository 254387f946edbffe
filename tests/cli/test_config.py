"""`tree-ring config`: the declared settings, read and changed through their owners."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CliRunner

from tree_ring.harness import checkpoint
from tree_ring.store import settings
from tree_ring.store.db import Store

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-1"}


def test_list_shows_every_declared_key_with_its_default(run_cli: CliRunner) -> None:
    done = run_cli("--json", "config", "list")
    assert done.code == 0, done.err
    doc = done.json()
    assert doc["command"] == "config list" and doc["project"]
    keys = [item["key"] for item in doc["items"]]
    assert keys[:2] == ["checkpoint", "checkpoint.interval"]
    assert set(keys) == {
        *settings.CHECKPOINT,
        *settings.TREE,
        *(f"review.{key}" for key in settings.REVIEW_POLICY),
    }
    assert doc["total"] == doc["shown"] == len(keys)
    first = doc["items"][0]
    assert first == {
        "key": "checkpoint",
        "value": "after-work",
        "default": "after-work",
        "is_default": True,
    }


def test_set_then_get_and_status_shows_the_cadence(run_cli: CliRunner, store: Store) -> None:
    done = run_cli("config", "set", "checkpoint=every-stop", "checkpoint.interval=45")
    assert done.code == 0, done.err
    assert "checkpoint:" in done.out and "every-stop  (default after-work)" in done.out
    assert run_cli("config", "get", "checkpoint").out == "every-stop\n"
    got = run_cli("--json", "config", "get", "checkpoint.interval").json()
    assert (got["value"], got["default"], got["is_default"]) == (45, 30, False)
    assert checkpoint.cadence(store.db) == checkpoint.Cadence("every-stop", 45)
    status = run_cli("--json", "status").json()
    assert (status["checkpoint"], status["checkpoint_interval_minutes"]) == ("every-stop", 45)
    assert "checkpoint: every-stop" in run_cli("status").out
    run_cli("config", "set", "checkpoint=after-work")
    assert "checkpoint: after-work (at most once per 45 min per session)" in run_cli("status").out


def test_set_is_audited(run_cli: CliRunner, store: Store) -> None:
    assert run_cli("config", "set", "checkpoint=off").code == 0
    rows = store.query("SELECT action, target, detail FROM audit_log WHERE action = 'config-set'")
    assert [(r[0], r[1], json.loads(r[2])) for r in rows] == [
        ("config-set", "checkpoint", {"value": "off", "before": "after-work"})
    ]


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        (["checkpoint=sometimes"], "checkpoint is one of after-work, every-stop"),
        (["checkpoint.interval=-1"], "checkpoint.interval is whole minutes"),
        (["checkpoint.interval=soon"], "checkpoint.interval is whole minutes"),
        (["checkpont=off"], "did you mean checkpoint?"),
        (["checkpoint"], "config set takes KEY=VALUE"),
        (["review.contradictions=maybe"], "review.contradictions is true or false"),
        # Valid pairs before an invalid one are not written either.
        (["checkpoint=off", "tree.summary_fanout=1"], "summary_fanout is a whole number"),
    ],
)
def test_bad_values_are_refused_and_nothing_is_written(
    pairs: list[str], message: str, run_cli: CliRunner, store: Store
) -> None:
    before = store.query("SELECT key, value FROM settings ORDER BY key")
    done = run_cli("config", "set", *pairs)
    assert done.code == 2 and message in done.err, done.err
    assert done.err.count("\n") == 1 and done.out == ""
    assert store.query("SELECT key, value FROM settings ORDER BY key") == before


@pytest.mark.parametrize(
    ("pairs", "key"),
    [
        (["checkpoint=off", "checkpoint=every-stop"], "checkpoint"),
        # The same value twice is refused too: the rule has no exception.
        (["checkpoint=off", "checkpoint=off"], "checkpoint"),
        (["review.contradictions=false", "tree.summary_fanout=4", " tree.summary_fanout =5"],
         "tree.summary_fanout"),
    ],
)  # fmt: skip
def test_a_key_given_twice_is_refused_and_nothing_is_written(
    pairs: list[str], key: str, run_cli: CliRunner, store: Store
) -> None:
    before = store.query("SELECT key, value FROM settings ORDER BY key")
    audited = store.query("SELECT count(*) FROM audit_log")
    done = run_cli("config", "set", *pairs)
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        f"error: {key} is given more than once; config set takes each key once, even with "
        f"the same value; keep one {key}=VALUE and retry\n"
    )
    assert store.query("SELECT key, value FROM settings ORDER BY key") == before
    assert store.query("SELECT count(*) FROM audit_log") == audited
    listed = run_cli("--json", "config", "list").json()["items"]
    assert {i["key"]: i["is_default"] for i in listed} == {i["key"]: True for i in listed}


def test_unknown_action_and_argument_are_refused(run_cli: CliRunner) -> None:
    assert run_cli("config", "frobnicate").code == 2
    assert run_cli("config", "list", "extra").code == 2
    assert run_cli("config", "get", "nope").code == 2


def test_the_other_settings_go_through_their_owners(run_cli: CliRunner, store: Store) -> None:
    done = run_cli("config", "set", "review.contradictions=false", "tree.summary_fanout=4")
    assert done.code == 0, done.err
    policy = run_cli("--json", "review", "policy").out
    assert '"contradictions": false' in policy
    assert run_cli("config", "get", "tree.summary_fanout").out == "4\n"


def test_an_agent_may_not_change_the_cadence(run_cli: CliRunner, project_root: Path) -> None:
    done = run_cli("config", "set", "checkpoint=off", environ=AGENT)
    assert done.code != 0 and "config.set is a person's decision" in done.err
    assert run_cli("config", "get", "checkpoint").out == "after-work\n"


def test_help_names_every_cadence(run_cli: CliRunner) -> None:
    done = run_cli("config", "set", "--help")
    for cadence in checkpoint.CADENCES:
        assert cadence in done.out
    assert "tree-ring config set checkpoint=every-stop" in run_cli("config", "--help").out


@pytest.mark.parametrize("digits", ["\u0663", "\uff13", "\u00b3", "3\u0663"])
def test_a_number_in_other_scripts_digits_is_refused(run_cli: CliRunner, digits: str) -> None:
    done = run_cli("config", "set", f"checkpoint.interval={digits}")
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        "error: checkpoint.interval is whole minutes from 0 to 10080 (0: no limit), "
        f"e.g. 30; not {digits!r}\n"
    )
    fanout = run_cli("config", "set", f"tree.summary_fanout={digits}")
    assert (fanout.code, fanout.out) == (2, "")
    assert fanout.err == (
        f"error: summary_fanout is a whole number of at least 2 and at most 1000000, "
        f"not {digits!r}\n"
    )
    listed = {i["key"]: i["value"] for i in run_cli("--json", "config", "list").json()["items"]}
    assert listed["checkpoint.interval"] == 30
