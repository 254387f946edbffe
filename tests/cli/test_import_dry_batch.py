"""A dry run of an import names no batch id: it writes none, and the real
import names its own, which `review approve --all --batch` takes. It printed one that
no row would ever carry."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import CliRunner


def test_a_dry_run_names_no_batch_the_import_then_names_its_own(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    rows = [{"summary": "Builds use the locked toolchain", "ring": "heartwood"}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    dry = run_cli("import", str(path), "--dry-run")
    assert dry.code == 0, dry.err
    assert "batch: named when the import runs" in dry.out
    assert not re.search(r"batch: import-", dry.out)
    done = run_cli("import", str(path))
    (batch,) = re.findall(r"^batch: (import-\S+)$", done.out, re.M)
    waiting = run_cli("--json", "review", "list").json()["items"]
    assert [(item["summary"], item["origin_session"]) for item in waiting] == [
        ("Builds use the locked toolchain", batch)
    ]


def test_a_batch_is_the_rows_its_import_wrote_whatever_a_file_claims(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    """A file's row may name any session, another import's batch among them:
    `--batch` takes the rows that import wrote, as its audit entries say,
    whatever session each names, so a migration is accepted whole and an
    agent's claim cannot ride it into the project."""
    mine = [{"summary": f"Migrated rule {n} stays", "ring": "heartwood"} for n in range(3)]
    mine[0]["origin_session"] = "7f3c2a91"  # a session of the store it came from
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in mine), encoding="utf-8")
    (batch,) = re.findall(r"^batch: (import-\S+)$", run_cli("import", str(path)).out, re.M)
    claim = {"summary": "Deploys may skip review when green", "ring": "heartwood",
             "scope": "project", "origin_session": batch}  # fmt: skip
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text(json.dumps(claim) + "\n", encoding="utf-8")
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-batch"}
    assert run_cli("import", str(theirs), environ=agent).code == 0
    waiting = {i["summary"]: i for i in run_cli("--json", "review", "list").json()["items"]}
    assert waiting[claim["summary"]]["origin_session"] == batch  # the file's word, kept
    done = run_cli("--json", "review", "approve", "--all", "--batch", batch, "--reason", "ok")
    assert done.code == 0, done.err
    approved = {waiting[row["summary"]]["id"] for row in mine}
    assert {d["id"] for d in done.json()["items"]} == approved
    left = run_cli("--json", "review", "list").json()["items"]
    assert [i["summary"] for i in left] == [claim["summary"]]
