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
