"""An import takes no id this store forgot, whoever imports: an agent's
withdrawal of its own note names its id for a person's import too. A backup
made before the withdrawal cannot put the note back under its id (it came
back into the agent's brief, and `doctor` then failed its audit for good);
its row may come in under a new id, as the refusal says.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import CliRunner

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "w1"}
NOTE = "Agent note about the flaky payments sandbox resetting at midnight"


def _ids(run_cli: CliRunner) -> set[str]:
    return {item["id"] for item in run_cli("--json", "list").json()["items"]}


def _withdrawn_backup(run_cli: CliRunner, tmp_path: Path) -> tuple[str, Path]:
    assert run_cli("remember", NOTE, environ=AGENT).code == 0
    backup = tmp_path / "backup.jsonl"
    exported = run_cli("export")
    assert exported.code == 0, exported.err
    backup.write_text(exported.out, encoding="utf-8")
    (withdrawn,) = _ids(run_cli)
    done = run_cli("forget", withdrawn, "--mode", "delete", "--reason", "wrong", environ=AGENT)
    assert done.code == 0, done.err
    return withdrawn, backup


def test_a_person_s_import_cannot_reuse_a_withdrawn_id(run_cli: CliRunner, tmp_path: Path) -> None:
    withdrawn, backup = _withdrawn_backup(run_cli, tmp_path)
    for mode in ((), ("--restore",), ("--dry-run",)):
        done = run_cli("import", str(backup), *mode)
        assert done.code != 0, (mode, done.out)
        assert f"memory id {withdrawn} was forgotten here and cannot be reused" in done.err
        assert _ids(run_cli) == set()
    assert NOTE not in run_cli("brief", environ=AGENT).out
    assert run_cli("doctor").code == 0


def test_the_row_comes_in_under_a_new_id(run_cli: CliRunner, tmp_path: Path) -> None:
    withdrawn, backup = _withdrawn_backup(run_cli, tmp_path)
    rows = [json.loads(line) for line in backup.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.pop("id", None)
    fresh = tmp_path / "fresh.jsonl"
    fresh.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    done = run_cli("import", str(fresh))
    assert done.code == 0, done.err
    (kept,) = _ids(run_cli)
    assert kept != withdrawn
    assert run_cli("doctor").code == 0
