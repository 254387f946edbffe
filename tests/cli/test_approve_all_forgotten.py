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


def waiting_then_forgotten(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> dict[str, str]:
    """Two imported rows waiting for review, one holding a claim the person
    then forgot with `forget --user`: the environment naming the user store."""
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
    forgotten = str(note.json()["id"])
    gone = run_cli("forget", forgotten, "--user", "--mode", "delete", "--reason", "x", environ=home)
    assert gone.code == 0, gone.err
    return home


def test_a_batch_approval_refuses_a_row_the_user_store_forgot(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    home = waiting_then_forgotten(run_cli, project_root, tmp_path)

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


def test_the_dry_run_names_the_row_the_batch_refuses_and_the_refusal_names_it_too(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    home = waiting_then_forgotten(run_cli, project_root, tmp_path)

    dry = run_cli("--json", "review", "approve", "--all", "--dry-run", environ=home).json()
    assert dry["refused"] == 1
    decided = {(item["id"], item["decision"]) for item in dry["items"]}
    assert decided == {("mem_wait_pair", "refuse"), ("mem_wait_other", "approve")}
    [why] = [i["decision_reason"] for i in dry["items"] if i["decision"] == "refuse"]
    assert why.startswith("this content was forgotten on ")
    said = run_cli("review", "approve", "--all", "--dry-run", environ=home)
    assert said.code == 1 and said.err == "", said.err
    assert said.out.splitlines()[0] == (
        "would refuse 1 of 2 pending memories, so would approve none (dry run: nothing was "
        "written); reject the refused ones or narrow the filters"
    )
    [refused] = [line for line in said.out.splitlines() if "refused:" in line]
    assert refused.startswith("  mem_wait_pair; refused: this content was forgotten on ")

    batch = run_cli("review", "approve", "--all", "--reason", "batch", environ=home)
    assert batch.code == 1 and batch.out == ""
    assert batch.err.startswith("error: waiting memory mem_wait_pair cannot be approved: ")
    assert batch.err.rstrip().endswith(
        "nothing was approved: reject it (`tree-ring review reject mem_wait_pair --reason WHY`) "
        "or narrow the filters"
    )
    assert len(batch.err.strip().splitlines()) == 1
    assert waiting(project_root, run_cli, home) == {"mem_wait_pair", "mem_wait_other"}
    rejected = run_cli("review", "reject", "mem_wait_pair", "--reason", "forgotten", environ=home)
    assert rejected.code == 0, rejected.err
    cleared = run_cli("--json", "review", "approve", "--all", "--dry-run", environ=home)
    assert cleared.code == 0, cleared.err
    clean = cleared.json()
    assert clean["refused"] == 0
    assert {(i["id"], i["decision"]) for i in clean["items"]} == {("mem_wait_other", "approve")}
    done = run_cli("review", "approve", "--all", "--reason", "batch", environ=home)
    assert done.code == 0, done.err
    assert waiting(project_root, run_cli, home) == set()
