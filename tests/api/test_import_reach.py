"""An agent's import names only the memories it may read.

docs/THREAT-MODEL.md ("Who sees what"): a memory in another partition is "no
memory ID" to an agent, exactly like an id that does not exist, and every
write by id holds to it (`test_reach_by_id.py`). An agent's `import` did not:
a line under the id of another harness's private note was counted as that
note, unchanged, or refused because "memory ... already exists"; a line
without an id holding the note's words was counted as the note, naming its
id; a row that said it replaced the note waited for a person because of it,
one that said it contradicted the note wrote a link back onto the note, a
tombstone line naming the note asked a person to forget it, and a row under
the note's operation id was answered as the note's retry. Each told the
agent the note existed, and how it stood.

Now an id the agent may not read is renamed, whether a hidden note holds it
or none does (`transfer/reach.py`): each import below answers, and leaves
the store, exactly as the same import naming an id nothing holds does, but
for the ids themselves; and the hidden note is left as it was.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE, CODEX
from helpers import AGENT, cli_runner
from import_support import dump, ids, said, store_as_said

from tree_ring.model import project
from tree_ring.model.project import store_path
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer

MISSING = "mem_20260101_000000_abcdefabcdef"
UNUSED_OPERATION = "op-never-used-here"
OPERATION = "op-codex-scratch-1"
OTHER_WORDS = "The staging cluster drains its queue before every deploy"
CLAUDES = {
    "scope": "agent",
    "agent_profile": "claude-code",
    "workflow_id": "s1",
    "session_id": "s1",
}

Lines = Callable[[dict[str, Any], str, str], list[dict[str, Any]]]


def _own(row: dict[str, Any], summary: str) -> dict[str, Any]:
    """A new row of Claude's own partition, with no id."""
    return {"project": row["project"], "summary": summary, **CLAUDES}


def _stone(row: dict[str, Any], named: str) -> dict[str, Any]:
    return {
        "record": "content_tombstone",
        "project": row["project"],
        "content_hash": "sha256:" + "3" * 64,
        "kind": "forgotten",
        "reason": "moved to the wiki",
        "memory_id": named,
        "created_at": "2026-01-01T00:00:00Z",
    }


def _as(row: dict[str, Any], asked: str, op: str, **fields: Any) -> dict[str, Any]:
    """The exported row under the asked id and operation id."""
    return row | {"id": asked, "operation_id": op, **fields}


def _idless(row: dict[str, Any], op: str, **fields: Any) -> dict[str, Any]:
    """The exported row without its id, under the asked operation id."""
    return {k: v for k, v in row.items() if k != "id"} | {"operation_id": op, **fields}


# What a file says of the asked id (the hidden note's, or MISSING) and the
# asked operation id (the note's, or UNUSED_OPERATION); `row` is the person's
# export of the hidden note.
VARIANTS: dict[str, Lines] = {
    "the-exported-row": lambda row, asked, op: [_as(row, asked, op)],
    "other-words": lambda row, asked, op: [_as(row, asked, op, summary=OTHER_WORDS)],
    "in-its-own-partition": lambda row, asked, op: [_as(row, asked, op, **CLAUDES)],
    "in-the-shared-scope": lambda row, asked, op: [_as(row, asked, op, scope="project")],
    "twice": lambda row, asked, op: [_as(row, asked, op), _as(row, asked, op)],
    "twice-with-other-words": lambda row, asked, op: [
        _as(row, asked, op),
        _as(row, asked, op, summary=OTHER_WORDS),
    ],
    "supersedes": lambda row, asked, op: [_own(row, OTHER_WORDS) | {"supersedes": [asked]}],
    "superseded-by": lambda row, asked, op: [_own(row, OTHER_WORDS) | {"superseded_by": asked}],
    "contradicts": lambda row, asked, op: [
        _own(row, OTHER_WORDS) | {"links": [{"type": "contradicts", "target": asked}]}
    ],
    "a-tombstone-line": lambda row, asked, op: [_stone(row, asked)],
    "a-row-and-its-tombstone-line": lambda row, asked, op: [
        _as(row, asked, op, summary=OTHER_WORDS),
        _stone(row, asked),
    ],
    "its-operation-id": lambda row, asked, op: [_idless(row, op, summary=OTHER_WORDS)],
    "its-operation-id-and-words": lambda row, asked, op: [_idless(row, op)],
}
FLAGS = {
    "json": ("--json",),
    "text": (),
    "dry-run": ("--json", "--dry-run"),
    "skip-invalid": ("--json", "--skip-invalid"),
}


@pytest.fixture
def hidden(project_root: Path) -> dict[str, Any]:
    """A Codex session's private note, as the person's export writes it, beside
    a note of Claude's own."""
    (project_root / "a.py").write_text("a = 1\n", encoding="utf-8")
    run = cli_runner(project_root)
    done = run(
        "--json", "remember", "Codex's private scratch note", "--file", "a.py",
        "--operation-id", OPERATION, environ=CODEX,
    )  # fmt: skip
    assert done.code == 0, done.err
    mine = run("--json", "remember", "Claude's own scratch note", environ=CLAUDE)
    assert mine.code == 0, mine.err
    [row] = [
        json.loads(line)
        for line in run("export").out.splitlines()
        if json.loads(line).get("id") == json.loads(done.out)["id"]
    ]
    return row


def _import(
    root: Path, tmp_path: Path, lines: list[dict[str, Any]], flags: tuple[str, ...], hidden: str
) -> tuple[Any, ...]:
    """Run Claude's import of `lines` in the store as it stands, then put the
    store back as it was: what it answered and what it left, as `said`
    words them (the hidden note's id and operation id and those naming
    nothing alike, in either run: the note is in the store in both), and
    what it printed, as it printed it."""
    saved = tmp_path / "saved"
    shutil.copytree(root / ".tree-ring", saved)
    before = ids(dump(root))
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = cli_runner(root)(*flags[:1], "import", str(path), *flags[1:], environ=CLAUDE)
    names = (hidden, MISSING, OPERATION, UNUSED_OPERATION)
    answer = (done.code, said(done.out, names, before), said(done.err, names, before))
    left = store_as_said(root, names, before)
    shutil.rmtree(root / ".tree-ring")
    shutil.move(saved, root / ".tree-ring")
    return answer, left, done.out + done.err


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("variant", VARIANTS.values(), ids=VARIANTS.keys())
def test_an_agents_import_naming_a_hidden_note_answers_as_one_naming_nothing(
    project_root: Path,
    tmp_path: Path,
    hidden: dict[str, Any],
    variant: Lines,
    flags: tuple[str, ...],
) -> None:
    untouched = dump(project_root)
    hidden_id = hidden["id"]
    *asked, printed = _import(
        project_root, tmp_path, variant(hidden, hidden_id, OPERATION), flags, hidden_id
    )
    assert dump(project_root) == untouched  # put back: the next import starts where this did
    *nothing, unknown = _import(
        project_root, tmp_path, variant(hidden, MISSING, UNUSED_OPERATION), flags, hidden_id
    )
    assert asked[0] == nothing[0]  # exit code, output, errors
    assert asked[1] == nothing[1]  # every table, the ledger
    # The file's own id only, where it names MISSING there (in "line 2: memory
    # ID is on line 1 too"), never the note's as found in the store.
    assert printed.count(hidden_id) == unknown.count(MISSING)


def _row(root: Path, memory_id: str) -> tuple[Any, ...]:
    conn = sqlite3.connect(store_path(root))
    try:
        return conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    finally:
        conn.close()


@pytest.mark.parametrize("variant", VARIANTS.values(), ids=VARIANTS.keys())
def test_an_agents_import_leaves_the_hidden_note_as_it_was(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any], variant: Lines
) -> None:
    note = _row(project_root, hidden["id"])
    path = tmp_path / "in.jsonl"
    lines = variant(hidden, hidden["id"], OPERATION)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = cli_runner(project_root)
    done = run("--json", "import", str(path), "--skip-invalid", environ=CLAUDE)
    assert done.code == 0, done.err
    assert _row(project_root, hidden["id"]) == note
    conn = sqlite3.connect(store_path(project_root))
    try:
        asked = conn.execute(
            "SELECT count(*) FROM forget_requests WHERE memory_id = ?", (hidden["id"],)
        ).fetchone()[0]
        stones = conn.execute(
            "SELECT count(*) FROM tombstone_ids WHERE memory_id = ?", (hidden["id"],)
        ).fetchone()[0]
    finally:
        conn.close()
    assert (asked, stones) == (0, 0)
    audit = run("--json", "audit", "log", "--target", hidden["id"]).json()["items"]
    assert [entry["action"] for entry in audit] == ["create"]


def test_the_library_holds_an_agents_import_to_what_it_may_read(
    project_root: Path, hidden: dict[str, Any]
) -> None:
    # The actor alone names the partitions an agent reads (`AGENT`: Claude Code).
    pid = project.load_project_id(project_root)
    with Store.open(project_root) as store:
        report = transfer.import_lines(
            store, [json.dumps(hidden)], project=pid, actor=AGENT, dry_run=True
        )
    assert report.unchanged == [] and len(report.created) == 1
    assert report.created != [hidden["id"]]


def test_a_person_still_reads_every_partition(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any]
) -> None:
    run = cli_runner(project_root)
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(hidden) + "\n", encoding="utf-8")
    same = run("--json", "import", str(path))
    assert same.code == 0, same.err
    assert same.json()["items"] == [{"id": hidden["id"], "result": "unchanged"}]
    other_words = hidden | {"summary": OTHER_WORDS, "operation_id": None}
    path.write_text(json.dumps(other_words) + "\n", encoding="utf-8")
    other = run("import", str(path))
    assert (other.code, other.err) == (
        1,
        f"error: line 1: memory {hidden['id']} already exists; give a new id or omit it; "
        "nothing imported\n",
    )


def test_an_agent_still_reads_its_own_rows_by_their_ids(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any]
) -> None:
    run = cli_runner(project_root)
    exported = run("export", environ=CLAUDE).out
    mine = [json.loads(line) for line in exported.splitlines() if '"record"' not in line]
    assert [row["summary"] for row in mine] == ["Claude's own scratch note"]
    path = tmp_path / "mine.jsonl"
    path.write_text(exported, encoding="utf-8")
    again = run("--json", "import", str(path), environ=CLAUDE)
    assert again.code == 0, again.err
    assert again.json()["items"] == [{"id": mine[0]["id"], "result": "unchanged"}]
    path.write_text(json.dumps(mine[0] | {"summary": OTHER_WORDS}) + "\n", encoding="utf-8")
    taken = run("import", str(path), environ=CLAUDE)
    assert taken.code == 1 and f"memory {mine[0]['id']} already exists" in taken.err


def test_an_agents_file_imported_twice_is_stored_once(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any]
) -> None:
    # Under ids naming nothing here: renamed, then known by their content.
    rows = [
        {"id": MISSING, "summary": "Retries back off exponentially", **CLAUDES},
        {"id": "mem_20260101_000000_0123456789ab", "summary": "Logs rotate nightly"},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = cli_runner(project_root)
    first = run("--json", "import", str(path), environ=CLAUDE).json()
    assert (first["imported"], first["unchanged"]) == (2, 0)
    ids = [item["id"] for item in first["items"]]
    assert MISSING not in ids
    again = run("--json", "import", str(path), environ=CLAUDE).json()
    assert (again["imported"], again["unchanged"]) == (0, 2)
    assert [item["id"] for item in again["items"]] == ids
