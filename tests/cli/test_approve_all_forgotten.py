"""`review approve --all` answers to what the person's user store forgot, as
approving one row does: a waiting row that holds a claim the person forgot
with `forget --user` is refused, and the batch leaves every row waiting."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CliRunner

CLAIM = "Staging deploys use the blue cluster"
PAIR = f"{CLAIM}. Deploys go through the release train."
OTHER = "The release train leaves every Tuesday at noon"


def waiting(project_root: Path, run_cli: CliRunner, environ: dict[str, str]) -> set[str]:
    done = run_cli("--json", "review", "list", environ=environ)
    assert done.code == 0, done.err
    return {item["id"] for item in done.json()["items"]}


def test_a_batch_approval_refuses_a_row_the_user_store_forgot(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    lines = tmp_path / "waiting.jsonl"
    rows = [
        {"id": "mem_wait_pair", "summary": PAIR, "ring": "heartwood", "scope": "project"},
        {"id": "mem_wait_other", "summary": OTHER, "ring": "heartwood", "scope": "project"},
    ]
    lines.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert run_cli("import", str(lines), environ=home).code == 0
    assert waiting(project_root, run_cli, home) == {"mem_wait_pair", "mem_wait_other"}

    note = run_cli("--json", "remember", CLAIM, "--scope", "global", environ=home)
    assert note.code == 0, note.err
    gone = run_cli(
        "forget", note.json()["id"], "--user", "--mode", "delete", "--reason", "wrong", environ=home
    )
    assert gone.code == 0, gone.err

    one = run_cli("review", "approve", "mem_wait_pair", environ=home)
    assert one.code == 1 and "forgotten on" in one.err, one.err
    batch = run_cli("review", "approve", "--all", "--reason", "batch", environ=home)
    assert batch.code == 1 and "forgotten on" in batch.err, (batch.out, batch.err)
    assert batch.out == ""
    # All or nothing: the other row waits too.
    assert waiting(project_root, run_cli, home) == {"mem_wait_pair", "mem_wait_other"}

    alone = run_cli("review", "approve", "--all", "--batch", "nope", environ=home)
    assert alone.code == 0 and alone.out.startswith("approved 0 pending memories"), alone.err
    kept = run_cli("review", "approve", "mem_wait_other", environ=home)
    assert kept.code == 0, kept.err
    assert waiting(project_root, run_cli, home) == {"mem_wait_pair"}
