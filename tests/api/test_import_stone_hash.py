"""An agent's tombstone line answers alike for a hidden note's content and for
content nothing holds.

docs/THREAT-MODEL.md ("Who sees what"): a memory in another partition is "no
memory" to an agent. An agent's import of one `content_tombstone` line under
a made-up id, carrying the content hash of another harness's private note
(any agent can compute a text's hash in a scratch store), said "1 tombstone
lines name stored memories: requests to forget them wait for a person",
even with `--dry-run`, and without it asked a person to forget the hidden
note: one import answered "does some memory I may not read say exactly T?".

Now a hash only memories the agent may not read hold is a hash none holds
(`stone_lines._holders`): the line is kept as the agent's withdrawal, as an
unmatched one is, and the import's answer, the store's tables and the review
queue are the same but for ids and times. A hash a memory the agent may read
holds still asks a person to forget it, and a person's import is unchanged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE, CODEX
from helpers import cli_runner
from import_support import dump, ids, said, store_as_said

HIDDEN_TEXT = "The staging admin panel lives on port 8443"
NOWHERE = "sha256:" + "3" * 64  # the content of no memory here
MADE_UP = "mem_20261201_000000_999999999999"


FLAGS = {
    "text": (),
    "json": ("--json",),
    "dry-run": ("--json", "--dry-run"),
    "text-dry-run": ("", "--dry-run"),
    "skip-invalid": ("--json", "--skip-invalid"),
}


def _said(text: str, hashes: tuple[str, ...], before: set[str]) -> str:
    """`text` with the asked hashes as HASH (`import_support.said`)."""
    return said(text, hashes, before, "HASH")


def _line(project: str, content_hash: str) -> dict[str, Any]:
    return {
        "record": "content_tombstone",
        "project": project,
        "content_hash": content_hash,
        "kind": "forgotten",
        "reason": "x",
        "actor": "person",
        "memory_id": MADE_UP,
        "created_at": "2026-12-01T00:00:00Z",
    }


@pytest.fixture
def hidden(project_root: Path) -> dict[str, Any]:
    """A Codex session's private note, as the person's export writes it, beside
    a note of Claude's own."""
    run = cli_runner(project_root)
    done = run("--json", "remember", HIDDEN_TEXT, environ=CODEX)
    assert done.code == 0, done.err
    mine = run("--json", "remember", "Claude's own scratch note", environ=CLAUDE)
    assert mine.code == 0, mine.err
    exported = [json.loads(line) for line in run("export").out.splitlines()]
    [row] = [row for row in exported if row.get("id") == json.loads(done.out)["id"]]
    assert cli_runner(project_root)("list", environ=CLAUDE).out.count(row["id"]) == 0
    return row


def _import(
    root: Path, tmp_path: Path, content_hash: str, flags: tuple[str, ...], hashes: tuple[str, ...]
) -> tuple[Any, ...]:
    """Claude's import of one tombstone line carrying `content_hash`, then the
    store put back as it was: the answer, the store and the person's review
    queue, as `_said` words them."""
    saved = tmp_path / "saved"
    shutil.copytree(root / ".tree-ring", saved)
    before = ids(dump(root))
    run = cli_runner(root)
    pid = json.loads((root / ".tree-ring" / "project.json").read_text())["project_id"]
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(_line(pid, content_hash)) + "\n", encoding="utf-8")
    head = tuple(flag for flag in flags[:1] if flag)
    done = run(*head, "import", str(path), *flags[1:], environ=CLAUDE)
    answer = (done.code, _said(done.out, hashes, before), _said(done.err, hashes, before))
    left = store_as_said(root, hashes, before, "HASH")
    queue = run("--json", "review", "list")
    assert queue.code == 0, queue.err
    waiting = _said(queue.out, hashes, before)
    shutil.rmtree(root / ".tree-ring")
    shutil.move(saved, root / ".tree-ring")
    return answer, left, waiting


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
def test_a_hidden_notes_hash_answers_as_a_hash_nothing_holds(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any], flags: tuple[str, ...]
) -> None:
    untouched = dump(project_root)
    hashes = (hidden["content_hash"], NOWHERE)
    held = _import(project_root, tmp_path, hidden["content_hash"], flags, hashes)
    assert dump(project_root) == untouched
    nothing = _import(project_root, tmp_path, NOWHERE, flags, hashes)
    assert held[0] == nothing[0]  # exit code, output, errors
    assert held[1] == nothing[1]  # every table, the ledger
    assert held[2] == nothing[2]  # the person's review queue
    assert "REQ" not in held[0][1] + held[0][2]
    assert hidden["id"] not in repr((held[0], held[2]))


def test_the_hidden_note_is_neither_asked_for_nor_hidden(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any]
) -> None:
    run = cli_runner(project_root)
    pid = json.loads((project_root / ".tree-ring" / "project.json").read_text())["project_id"]
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(_line(pid, hidden["content_hash"])) + "\n", encoding="utf-8")
    done = run("--json", "import", str(path), environ=CLAUDE)
    assert done.code == 0, done.err
    assert done.json()["requested"] == []
    assert run("--json", "review", "list").json()["items"] == []
    # Kept as Claude's withdrawal: it binds agents' writes only, so the note
    # is still read by the person and its own session, and the person may
    # write the text; an agent may not, as after a withdrawal of any text.
    assert hidden["id"] in run("list").out
    assert hidden["id"] in run("list", environ=CODEX).out
    again = run("remember", HIDDEN_TEXT, environ={"CODEX_SESSION_ID": "cx-8"})
    assert again.code == 1 and "withdrawn by an agent" in again.err
    assert run("remember", HIDDEN_TEXT).code == 0


def test_a_readable_notes_hash_still_asks_a_person(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any]
) -> None:
    run = cli_runner(project_root)
    [mine] = [
        json.loads(line)
        for line in run("export", environ=CLAUDE).out.splitlines()
        if '"record"' not in line
    ]
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(_line(mine["project"], mine["content_hash"])) + "\n")
    done = run("--json", "import", str(path), environ=CLAUDE)
    assert done.code == 0, done.err
    assert len(done.json()["requested"]) == 1
    queue = run("review", "list").out
    assert mine["id"] in queue and "forget" in queue


def test_a_persons_import_of_a_hidden_notes_hash_still_asks(
    project_root: Path, tmp_path: Path, hidden: dict[str, Any]
) -> None:
    run = cli_runner(project_root)
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(_line(hidden["project"], hidden["content_hash"])) + "\n")
    done = run("--json", "import", str(path))
    assert done.code == 0, done.err
    assert len(done.json()["requested"]) == 1
    assert hidden["id"] in run("review", "list").out
