"""An export holding a note written again over its own forget (an expired
note, re-admitted) imports into a store that holds the re-admitted row: the
forget's tombstone lines, exported beside it, ask nothing of the row the
person wrote over them."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import PERSON, CliRunner, make_memory

from tree_ring.store.db import Store
from tree_ring.write import pipeline

PAST = "2020-01-01T00:00:00.000000Z"
NOTE = "The deploy freeze holds this week"


def test_the_readmitted_row_gets_no_request_to_forget_it(
    run_cli: CliRunner, store: Store, project_id: str, tmp_path: Path
) -> None:
    pipeline.store_memory(store, make_memory(project_id, NOTE, expires_at=PAST), PERSON)
    assert run_cli("maintain", "--apply-expired").code == 0
    again = run_cli("--json", "remember", NOTE, "--override-tombstone", "--reason", "new freeze")
    assert again.code == 0, again.err
    new = again.json()["id"]
    assert run_cli("review", "approve", new, "--reason", "new freeze").code == 0
    exported = tmp_path / "export.jsonl"
    assert run_cli("export", "--output", str(exported)).code == 0
    rows = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert any(r.get("record") == "content_tombstone" for r in rows)
    done = run_cli("--json", "import", str(exported))
    assert done.code == 0, done.err
    assert done.json()["requested"] == []
    queue = run_cli("--json", "review", "list").json()["items"]
    assert [i for i in queue if i.get("kind") == "forget_request"] == []
    assert new in {i["id"] for i in run_cli("--json", "list").json()["items"]}
