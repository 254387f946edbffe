"""The fields an imported row or a team ledger line fills beside its claim
(its review reason and reviewer, origin session, source type, supersession
ids and link targets) are stored, exported and written to the committed
ledger as they stand; so one that holds content the project forgot, as a
quote inside other words or alone, refuses the row as its claim would:
an import in one line naming the field, nothing imported (or the line left
out under --skip-invalid), a sync as a line it does not take. The words
never reach the ledger or the store's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from team_support import LEDGER, cli, clone, commit, first_repo, hub, ok, publish, pull, remember

FORGOTTEN = "The payments worker drains the refund queue every night at two"
WORDS = "refund queue"
HYPHENED = "-".join(FORGOTTEN.lower().split())
OTHER = "mem_20261206_110000_00000000abcd"
KEPT = "mem_20261206_110001_00000000abcd"


def _forgot(root: Path) -> None:
    memory_id = remember(root, FORGOTTEN)
    ok(root, "forget", memory_id, "--mode", "delete", "--reason", "gone")


def _row(root: Path, memory_id: str, summary: str, **fields: Any) -> dict[str, Any]:
    project = json.loads((root / ".tree-ring" / "project.json").read_text())["project_id"]
    row: dict[str, Any] = {"id": memory_id, "project": project, "summary": summary}
    return {**row, **fields}


def _file(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _held(root: Path) -> set[str]:
    """The files of the project that hold the forgotten words, of the ledger
    and the store's (the database, its write-ahead log, its side files)."""
    files = [root / LEDGER, *(root / ".tree-ring").glob("memory.sqlite*")]
    return {p.name for p in files if p.is_file() and WORDS.encode() in p.read_bytes()}


def _results(report: dict[str, Any]) -> set[tuple[object, str]]:
    """(id or line, result) of each item of an import's JSON report."""
    return {(item.get("id", item.get("line")), item["result"]) for item in report["items"]}


def _review(reason: str) -> dict[str, Any]:
    return {"review": {"review_reason": reason}}


CARRIED = [
    ("review.review_reason", _review(FORGOTTEN), False),
    ("review.review_reason", _review(f"FYI {FORGOTTEN}"), False),
    ("review.review_reason", _review(f"refuted by codex: contradicts: {FORGOTTEN}."), False),
    ("review.reviewed_by", {"trust": "accepted", "review": {"reviewed_by": HYPHENED}}, True),
    ("origin_session", {"origin_session": HYPHENED}, False),
    ("source.type", {"source": {"type": HYPHENED}}, False),
    ("supersedes", {"supersedes": [f"mem_{HYPHENED}"]}, False),
    ("links", {"links": [{"type": "related", "target": f"see {FORGOTTEN}"}]}, False),
]


@pytest.mark.parametrize(("field", "fields", "restore"), CARRIED)
def test_an_import_refuses_a_row_whose_field_holds_forgotten_words(
    tmp_path: Path, field: str, fields: dict[str, Any], restore: bool
) -> None:
    root = first_repo(tmp_path)
    _forgot(root)
    rows = [
        _row(root, KEPT, "A kept imported note about the lint settings"),
        _row(root, OTHER, "Unrelated imported note about the lint settings", **fields),
    ]
    path = _file(tmp_path, rows)
    flags = ["--restore"] if restore else []
    done = cli(root, "import", str(path), *flags)
    assert done.code != 0
    assert done.err.strip().splitlines() == [
        f"error: line 2: {field} holds content that was forgotten here, and would keep it "
        "in the store and the team ledger; give the row without those words; nothing imported"
    ]
    assert WORDS not in done.out + done.err
    listed = ok(root, "--json", "list").json()["items"]
    assert {item["id"] for item in listed} == set()
    skipped = ok(root, "--json", "import", str(path), *flags, "--skip-invalid").json()
    assert _results(skipped) == {(KEPT, "imported"), (2, "skipped")}
    assert _held(root) == set()


def test_a_row_whose_fields_quote_nothing_forgotten_is_imported(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    _forgot(root)
    fields = _review("The payments worker was moved to the new cluster")
    path = _file(tmp_path, [_row(root, OTHER, "Unrelated imported note", **fields)])
    done = ok(root, "--json", "import", str(path)).json()
    assert _results(done) == {(OTHER, "imported")}


def test_a_sync_takes_no_upstream_line_whose_review_reason_holds_forgotten_words(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    bob = clone(alice, tmp_path, "bob")
    _forgot(bob)
    commit(bob, "forgot")
    # Alice, who never forgot the words, imports a row whose reason quotes them.
    rows = [
        _row(alice, OTHER, "Unrelated imported note about lint", **_review(f"FYI {FORGOTTEN}")),
        _row(alice, KEPT, "A kept imported note about the lint settings"),
    ]
    ok(alice, "import", str(_file(tmp_path, rows)))
    assert WORDS in (alice / LEDGER).read_text(encoding="utf-8")
    publish(alice, "imported")
    pull(bob)
    synced = cli(bob, "sync")
    assert synced.code == 0, synced.err
    named = [line.strip() for line in synced.out.splitlines() if OTHER in line]
    assert len(named) == 1 and "review.review_reason holds content" in named[0]
    assert WORDS not in synced.out + synced.err
    ids = {item["id"] for item in ok(bob, "--json", "list").json()["items"]}
    assert ids == {KEPT}
    assert _held(bob) == set()
