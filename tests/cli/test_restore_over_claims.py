"""A store rebuilt from the project's own ledger, with no upstream to vouch
for its lines, holds them as claims: `init` says so, and a restore of the
person's export puts them back as the file says. A row changed since the
export is named, and replaced only with `--replace-existing`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
from conftest import CliRunner
from helpers import REPO

from tree_ring.store.db import Store

SCHEMA = json.loads((REPO / "docs" / "cli-output.schema.json").read_text(encoding="utf-8"))


def _state(run_cli: CliRunner, memory_id: str) -> tuple[str, str, str]:
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    return shown["trust"], shown["origin"], shown["ring"]


def test_a_restore_over_a_rebuilt_store_puts_the_rows_back_as_they_were(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project_root, check=True)
    assert run_cli("init").code == 0
    rule = run_cli("--json", "remember", "Builds pin the toolchain", "--ring", "heartwood")
    decision = run_cli(
        "--json", "remember", "Deploys freeze on Fridays", "--event-type", "decision"
    )
    rule_id, decision_id = rule.json()["id"], decision.json()["id"]
    backup = tmp_path / "backup.jsonl"
    flags = ("--include-sensitive", "--include-unreviewed", "--include-superseded")
    assert run_cli("export", *flags, "--output", str(backup)).code == 0
    # The same file restored over the store it came from: nothing differs.
    again = run_cli("--json", "import", str(backup), "--restore").json()
    assert again["differing"] == [] and again["unchanged"] == 2
    for path in (project_root / ".tree-ring").glob("memory.sqlite*"):
        path.unlink()
    rebuilt = run_cli("init")
    assert "2 memories of lines not the upstream's taken as claims" in rebuilt.out
    assert {_state(run_cli, i)[0] for i in (rule_id, decision_id)} == {"pending"}
    restored = run_cli("--json", "import", str(backup), "--restore").json()
    jsonschema.validate(restored, SCHEMA)
    assert restored["replaced"] == 2 and restored["differing"] == []
    assert _state(run_cli, rule_id) == ("accepted", "person", "heartwood")
    assert _state(run_cli, decision_id) == ("accepted", "person", "cambium")
    last = run_cli("--json", "import", str(backup), "--restore").json()
    assert last["differing"] == [] and last["unchanged"] == 2
    assert run_cli("--json", "audit", "verify").json()["ok"] is True


def test_a_row_changed_since_the_export_is_named_and_replaced_only_when_asked(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    memory_id = run_cli("--json", "remember", "Deploys freeze on Fridays").json()["id"]
    backup = tmp_path / "backup.jsonl"
    assert run_cli("export", "--output", str(backup)).code == 0
    refuted = run_cli("refute", memory_id, "--reason", "the freeze moved to Thursdays")
    assert refuted.code == 0, refuted.err
    named = run_cli("--json", "import", str(backup), "--restore").json()
    assert named["differing"] == [memory_id] and named["replaced"] == 0
    said = run_cli("import", str(backup), "--restore").out
    assert "1 of the rows already present are stored in another state" in said
    assert _retired(run_cli, memory_id)  # named, not changed
    done = run_cli("--json", "import", str(backup), "--restore", "--replace-existing").json()
    assert done["replaced"] == 1
    assert not _retired(run_cli, memory_id)
    assert _state(run_cli, memory_id) == ("accepted", "person", "cambium")


def _retired(run_cli: CliRunner, memory_id: str) -> bool:
    return run_cli("--json", "show", memory_id).json()["memory"]["retired_at"] is not None


def test_a_restore_asks_nothing_of_a_row_it_re_admits_over_the_files_forget(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    """The file holds a forget and, under another id, the same words a
    person wrote again over it: restored over a rebuilt store, the row
    comes back re-admitted, and the import raises no request to forget it."""
    subprocess.run(["git", "init", "-q"], cwd=project_root, check=True)
    assert run_cli("init").code == 0
    text = "Alice prefers squash merges on main"
    first = run_cli("--json", "remember", text).json()["id"]
    assert run_cli("forget", first, "--mode", "delete", "--reason", "changed").code == 0
    again = run_cli("--json", "remember", text, "--override-tombstone", "--reason", "back")
    again_id = again.json()["id"]
    assert run_cli("review", "approve", again_id, "--reason", "yes").code == 0
    backup = tmp_path / "backup.jsonl"
    flags = ("--include-sensitive", "--include-unreviewed", "--include-superseded")
    assert run_cli("export", *flags, "--output", str(backup)).code == 0
    for path in (project_root / ".tree-ring").glob("memory.sqlite*"):
        path.unlink()
    assert run_cli("init").code == 0
    done = run_cli("--json", "import", str(backup), "--restore").json()
    assert done["requested"] == [] and done["replaced"] == 1
    listed = {m["id"] for m in run_cli("--json", "list").json()["items"]}
    assert listed == {again_id}


def test_a_plain_import_that_leaves_rows_waiting_names_restore(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    assert run_cli("remember", "Builds pin the toolchain", "--ring", "heartwood").code == 0
    backup = tmp_path / "backup.jsonl"
    assert run_cli("export", "--output", str(backup)).code == 0
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    assert run_cli("--root", str(other), "init").code == 0
    said = run_cli("--root", str(other), "import", str(backup), "--all-projects").out
    assert "(1 waiting for review)" in said
    assert "a file you exported yourself comes back as it was with `--restore`" in said
    again = run_cli("--root", str(other), "import", str(backup), "--all-projects", "--restore")
    assert "--restore`" not in again.out


def test_a_restore_replaces_a_claim_whose_words_a_ledger_edit_changed(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    """A ledger line edited in the working tree (another's words under the
    person's id) comes back as a claim when the store is rebuilt; the
    person's restore puts their row back in its place."""
    subprocess.run(["git", "init", "-q"], cwd=project_root, check=True)
    assert run_cli("init").code == 0
    memory_id = run_cli("--json", "remember", "Deploys freeze on Fridays").json()["id"]
    backup = tmp_path / "backup.jsonl"
    assert run_cli("export", "--output", str(backup)).code == 0
    ledger = project_root / ".tree-ring" / "ledger.jsonl"
    ledger.write_text(ledger.read_text().replace("Fridays", "Mondays"))
    for path in (project_root / ".tree-ring").glob("memory.sqlite*"):
        path.unlink()
    assert run_cli("init").code == 0
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    assert (shown["summary"], shown["trust"]) == ("Deploys freeze on Mondays", "pending")
    done = run_cli("--json", "import", str(backup), "--restore")
    assert done.code == 0, done.err
    assert done.json()["replaced"] == 1
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    assert (shown["summary"], shown["trust"]) == ("Deploys freeze on Fridays", "accepted")


def test_a_decided_import_row_is_no_claim_a_restore_replaces(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    """Only a row still waiting is a claim: an import's row a person turned
    down stays as decided, named as differing."""
    memory_id = run_cli("--json", "remember", "Deploys freeze on Fridays").json()["id"]
    backup = tmp_path / "backup.jsonl"
    assert run_cli("export", "--output", str(backup)).code == 0
    with Store.open(project_root) as store, store.write() as db:
        db.execute(
            "UPDATE memories SET origin = 'import', trust = 'rejected' WHERE id = ?", (memory_id,)
        )
    named = run_cli("--json", "import", str(backup), "--restore").json()
    assert named["differing"] == [memory_id] and named["replaced"] == 0
    assert run_cli("--json", "show", memory_id).json()["memory"]["trust"] == "rejected"
