"""`audit log --target ID` for an id the log never names is "not found"
(exit 1), for a person as for an agent, where it said "the audit log is
empty" and exited 0 though the log held entries."""

from __future__ import annotations

import json

import pytest
from helpers import CliRunner


@pytest.mark.parametrize("target", ["mem_20261201_000000_0123456789ab", "nope"])
def test_a_target_the_log_never_names_is_not_found(run_cli: CliRunner, target: str) -> None:
    made = run_cli("--json", "remember", "Deploys freeze on Fridays after the branch is cut")
    assert made.code == 0, made.err
    done = run_cli("audit", "log", "--target", target)
    assert (done.code, done.out) == (1, "")
    assert done.err == (
        f"error: the audit log holds no entry about {target}; "
        "`tree-ring audit log` lists them all\n"
    )
    as_json = run_cli("--json", "audit", "log", "--target", target)
    assert json.loads(as_json.err)["error"]["code"] == "not_found"
    found = run_cli("--json", "audit", "log", "--target", made.json()["id"])
    assert found.code == 0 and found.json()["total"] >= 1
    assert run_cli("audit", "log").code == 0
