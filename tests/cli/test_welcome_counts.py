"""`welcome` counts the project's memories as `status` does: the live ones
and those waiting for review (a disputed one among them, which the brief
shows marked), not the retired ones a store keeps on record."""

from __future__ import annotations

from helpers import CliRunner

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"}


def test_welcome_says_what_status_says(run_cli: CliRunner) -> None:
    disputed = run_cli("--json", "remember", "The billing export runs nightly at two").json()["id"]
    retired = run_cli("--json", "remember", "The cache TTL is ten minutes").json()["id"]
    newer = run_cli("--json", "remember", "The cache TTL is five minutes").json()["id"]
    assert run_cli("supersede", retired, newer, "--reason", "shortened").code == 0
    refuted = run_cli("refute", disputed, "--reason", "it runs at three now", environ=AGENT)
    assert refuted.code == 0, refuted.err
    status = run_cli("--json", "status").json()["memories"]
    store = run_cli("--json", "welcome").json()["store"]
    assert (
        (store["live"], store["waiting"])
        == (
            status["live"],
            status["pending"] + status["disputed"],
        )
        == (1, 1)
    )
    assert store["memories"] == 2
    assert ", 2 memories (1 live, 1 waiting for review)." in run_cli("welcome").out
