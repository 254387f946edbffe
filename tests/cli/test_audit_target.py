"""`audit log --target ID` for an id the log never names is "not found"
(exit 1), for a person as for an agent, where it said "the audit log is
empty" and exited 0 though the log held entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CliRunner, cli_runner


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


def test_an_id_forgotten_elsewhere_shows_the_import_that_brought_its_tombstone(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    # Forgotten in another project, whose export brings its tombstone here:
    # the refusal names the id it was forgotten as, which no entry here names.
    text = "Deploys freeze on Fridays after the release branch is cut"
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = cli_runner(other)
    assert elsewhere("init").code == 0
    forgotten = elsewhere("--json", "remember", text).json()["id"]
    assert elsewhere("forget", forgotten, "--mode", "delete", "--reason", "no longer").code == 0
    path = tmp_path / "stones.jsonl"
    path.write_text(elsewhere("export").out, encoding="utf-8")
    assert run_cli("import", str(path)).code == 0
    refused = run_cli("remember", text)
    assert refused.code == 1 and f"`tree-ring audit --target {forgotten}`" in refused.err
    shown = run_cli("--json", "audit", "--target", forgotten)
    assert shown.code == 0, shown.err
    (entry,) = shown.json()["items"]
    assert (entry["action"], entry["target"]) == ("tombstone", "import")


def test_an_empty_or_huge_target_is_one_short_line(run_cli: CliRunner) -> None:
    assert run_cli("remember", "Deploys freeze on Fridays after the branch is cut").code == 0
    empty = run_cli("audit", "log", "--target", " ")
    assert (empty.code, empty.out) == (2, "")
    assert empty.err == "error: --target names a memory id; give one, or leave --target out\n"
    huge = run_cli("audit", "log", "--target", "x" * 100_000)
    assert huge.code == 1 and huge.err.count("\n") == 1 and len(huge.err) < 300
