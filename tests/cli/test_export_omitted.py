"""An export says what its view left out, and the flags that keep it: a file
kept to restore from (an uninstall's) must not lose rows without a word."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from conftest import PERSON, CliRunner, make_memory
from governance_support import CLAUDE, remember, write
from helpers import REPO

from tree_ring.harness import guidance
from tree_ring.store.db import Store
from tree_ring.write import pipeline

SCHEMA = json.loads((REPO / "docs" / "cli-output.schema.json").read_text(encoding="utf-8"))


def _project(run_cli: CliRunner) -> dict[str, str]:
    kept = remember(run_cli, "Deploys go through the release pipeline")
    sensitive = remember(run_cli, "I take my ADHD medication at 9am")
    pending = remember(run_cli, "Run migrations through the schema tool",
                       "--ring", "heartwood", "--scope", "project", environ=CLAUDE)  # fmt: skip
    old = remember(run_cli, "Ports are assigned in infra/ports.md")
    new = remember(run_cli, "Ports come from the service registry")
    write(run_cli, "supersede", old, new, "--reason", "registry is live")
    return {"kept": kept, "sensitive": sensitive, "pending": pending, "old": old, "new": new}


def _ids(path: Path) -> set[str]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return {row["id"] for row in lines if "record" not in row}


def test_an_export_names_what_it_left_out(run_cli: CliRunner, tmp_path: Path) -> None:
    ids = _project(run_cli)
    out = tmp_path / "notes.jsonl"
    done = run_cli("export", "--output", str(out))
    assert done.code == 0, done.err
    assert _ids(out) == {ids["kept"], ids["new"]}
    assert done.err.strip() == (
        "note: left out 1 sensitive, 1 unreviewed, 1 retired "
        "(add --include-sensitive --include-unreviewed --include-superseded "
        "to keep them in the file)"
    )
    data = run_cli("--json", "export", "--output", str(out)).json()
    assert data["omitted"] == {"sensitive": 1, "unreviewed": 1, "retired": 1}
    jsonschema.validate(data, SCHEMA)


def test_an_export_with_every_flag_leaves_nothing_out(run_cli: CliRunner, tmp_path: Path) -> None:
    ids = _project(run_cli)
    out = tmp_path / "notes.jsonl"
    flags = ("--include-sensitive", "--include-unreviewed", "--include-superseded")
    done = run_cli("export", *flags, "--output", str(out))
    assert done.code == 0 and done.err == ""
    assert _ids(out) == set(ids.values())
    assert "omitted" not in run_cli("--json", "export", *flags, "--output", str(out)).json()


def test_one_flag_leaves_only_the_others_named(run_cli: CliRunner, tmp_path: Path) -> None:
    _project(run_cli)
    out = tmp_path / "notes.jsonl"
    data = run_cli("--json", "export", "--include-sensitive", "--output", str(out)).json()
    assert data["omitted"] == {"unreviewed": 1, "retired": 1}


def test_an_export_file_is_its_users_only(run_cli: CliRunner, tmp_path: Path) -> None:
    import os
    import stat

    _project(run_cli)
    out = tmp_path / "notes.jsonl"
    old = os.umask(0o022)
    try:
        done = run_cli("export", "--include-sensitive", "--output", str(out))
    finally:
        os.umask(old)
    assert done.code == 0, done.err
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_a_later_fact_is_exported_and_an_expired_row_kept_with_the_retired(
    run_cli: CliRunner, store: Store, project_id: str, tmp_path: Path
) -> None:
    """Every row the store keeps is in some export, and a row left out is
    counted: a fact that holds only later is in every export; a row whose
    expiry passed, not yet removed by `maintain`, goes with the retired."""
    now = remember(run_cli, "The audit trail is kept for ninety days")
    later = remember(
        run_cli, "The nightly build uses the arm runners", "--valid-from", "2999-01-01"
    )
    note = make_memory(
        project_id, "The cache node restarts each hour", expires_at="2020-01-01T00:00:00.000000Z"
    )
    expired = pipeline.store_memory(store, note, PERSON).id
    out = tmp_path / "notes.jsonl"
    done = run_cli("--json", "export", "--output", str(out))
    assert done.code == 0, done.err
    assert _ids(out) == {now, later}
    assert done.json()["omitted"] == {"retired": 1}
    done = run_cli("--json", "export", "--include-superseded", "--output", str(out))
    assert _ids(out) == {now, later, expired}
    assert "omitted" not in done.json()
    # As the file says: restored whole into another project.
    restored = tmp_path / "restored"
    restored.mkdir()
    guidance.init_project(restored)
    with_root = run_cli("--json", "--root", str(restored), "import", "--restore", str(out))
    assert with_root.code == 0, with_root.err
    with Store.open(restored) as again:
        ids = {row[0] for row in again.db.query("SELECT id FROM memories")}
    assert ids == {now, later, expired}


def test_what_no_export_writes_is_counted_and_said(run_cli: CliRunner, tmp_path: Path) -> None:
    """A redacted row's placeholder and a row the user store's forget hides
    are in no export, whatever its flags: each is counted, with why."""
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    kept = remember(run_cli, "Keep this memory", environ=home)
    redacted = remember(run_cli, "This one gets redacted later on", environ=home)
    write(run_cli, "forget", redacted, "--mode", "redact", "--reason", "wrong", environ=home)
    text = "Team rule: the on-call rotation changes every Monday"
    hidden = remember(run_cli, text, environ=home)
    note = remember(run_cli, text, "--scope", "global", environ=home)
    write(run_cli, "forget", note, "--user", "--mode", "delete", "--reason", "mine", environ=home)
    out = tmp_path / "notes.jsonl"
    flags = ("--include-sensitive", "--include-unreviewed", "--include-superseded")
    done = run_cli("export", *flags, "--output", str(out), environ=home)
    assert done.code == 0, done.err
    assert _ids(out) == {kept}
    assert done.err.strip() == (
        "note: left out 1 redacted (their words are gone; the file's tombstones keep them out); "
        "1 hidden (your user store forgot their words, and every read here hides them)"
    )
    data = run_cli("--json", "export", *flags, "--output", str(out), environ=home).json()
    assert data["omitted"] == {"redacted": 1, "hidden": 1}
    jsonschema.validate(data, SCHEMA)
    assert hidden not in out.read_text()
