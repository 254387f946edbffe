"""Every verb exits 0 when it did what was asked, in human and in JSON form;
the failures a script acts on have their own codes (1: refused or found a
problem, 2: bad input)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE


@pytest.fixture
def seeded(run_cli: CliRunner, tmp_path: Path) -> dict[str, str]:
    def made(*argv: str, environ: dict[str, str] | None = None) -> str:
        result = run_cli("--json", *argv, environ=environ)
        assert result.code == 0, result.err
        return str(result.json()["id"])

    ids = {
        "old": made("remember", "The cache lives in Redis"),
        "new": made("remember", "The cache lives in SQLite"),
        "gone": made("remember", "A note to forget"),
        "redact": made("remember", "A note to redact"),
        "pending": made(
            "remember", "Vendor the SDK", "--ring", "heartwood", "--scope", "project",
            environ=CLAUDE,
        ),
        "reject": made("remember", "Skip the tests", "--ring", "heartwood", environ=CLAUDE),
        "dispute": made("remember", "Logs rotate nightly"),
    }  # fmt: skip
    dump = tmp_path / "dump.jsonl"
    dump.write_text(run_cli("export").out)
    ids["dump"] = str(dump)
    return ids


def commands(ids: dict[str, str], tmp_path: Path) -> list[list[str]]:
    return [
        ["status"],
        ["export"],
        ["export", "--output", str(tmp_path / "out.jsonl")],
        ["import", ids["dump"], "--dry-run"],
        ["import", ids["dump"]],
        ["audit"],
        ["audit", "verify"],
        ["audit", "--audit-type", "all"],
        ["remember", "Deploys freeze on Fridays"],
        ["evidence", "Cache warmup halves p95", "--outcome", "promoted",
         "--evidence-ref", "evals/run-42", "--score", "0.9"],
        ["supersede", ids["old"], ids["new"], "--reason", "moved to SQLite"],
        ["recall", "cache"],
        ["recall", "nothing matches this"],
        ["brief"],
        ["list"],
        ["show", ids["new"]],
        ["doctor"],
        ["maintain"],
        ["review", "list"],
        ["review", "approve", ids["pending"]],
        ["review", "reject", ids["reject"], "--reason", "the tests catch bugs"],
        ["review", "dispute", ids["dispute"], "--reason", "they rotate weekly"],
        ["review", "policy"],
        ["consolidate", "--dry-run"],
        ["tree", "status"],
        ["tree", "show"],
        ["tree", "flush"],
        ["tree", "rebuild"],
        ["tree", "config"],
        ["forget", ids["redact"], "--mode", "redact", "--reason", "wrong"],
        ["forget", ids["gone"], "--mode", "delete", "--reason", "noise"],
        ["policy", "status"],
        ["policy", "audit"],
    ]  # fmt: skip


@pytest.mark.parametrize("json_flag", [False, True], ids=["text", "json"])
def test_every_verb_exits_zero_when_it_succeeds(
    run_cli: CliRunner, seeded: dict[str, str], tmp_path: Path, json_flag: bool
) -> None:
    for argv in commands(seeded, tmp_path):
        result = run_cli(*(["--json"] if json_flag else []), *argv)
        assert result.code == 0, (argv, result.err)
        assert result.out.strip(), argv


def test_the_codes_a_script_acts_on(run_cli: CliRunner, seeded: dict[str, str]) -> None:
    assert run_cli("show", "mem_20990101_000000_000000000000").code == 1  # not found
    assert run_cli("remember", "x", "--salience", "7").code == 2  # bad input
    assert run_cli("review", "approve", seeded["new"]).code == 1  # already accepted
    assert run_cli("forget", seeded["new"], "--mode", "shred", "--reason", "x").code == 2


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
@pytest.mark.parametrize("tree", [False, True])
def test_a_blank_query_is_bad_input(run_cli: CliRunner, query: str, tree: bool) -> None:
    result = run_cli("recall", *(["--tree"] if tree else []), query)
    assert result.code == 2
    assert result.out == ""
    assert result.err.strip().splitlines() == [
        "error: the query is blank; give the words to search for"
    ]
