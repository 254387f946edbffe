"""Importing a file whose tombstones the store already holds records and
logs nothing of them, and says so: the count of the file's tombstones is
the file's, and `(N already held)` says how many were here before."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import CliRunner


def test_a_second_import_records_and_logs_no_tombstone_again(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    run_cli("remember", "Deploys freeze on Fridays")
    gone = run_cli("--json", "remember", "Tabs in the Makefile").json()["id"]
    assert run_cli("forget", gone, "--mode", "delete", "--reason", "x").code == 0
    export = tmp_path / "export.jsonl"
    assert run_cli("export", "--output", str(export)).code == 0
    lines = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    stones = sum(line.get("record") == "content_tombstone" for line in lines)
    assert stones >= 1

    def logged() -> list[list[str]]:
        entries = run_cli("--json", "audit", "log", "--limit", "1000").json()["items"]
        return [e["detail"]["tombstones"] for e in entries if e["action"] == "tombstone"]

    before = logged()
    done = run_cli("--json", "import", str(export)).json()
    assert (done["tombstones"], done["tombstones_held"]) == (stones, stones)
    assert logged() == before
    text = run_cli("import", str(export)).out
    assert f"{stones} tombstones ({stones} already held)" in text
    assert logged() == before
    assert run_cli("--json", "audit", "verify").json()["ok"] is True
    assert json.loads(run_cli("--json", "status").out)["memories"]["tombstones"] == stones
