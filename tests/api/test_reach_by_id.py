"""A write by id reaches only what the caller may read.

docs/THREAT-MODEL.md ("Who sees what"): a memory in another partition is
"no memory ID", exactly like an id that does not exist. An agent's `show`,
`forget` and `refute` kept that; its `confirm`, `supersede` and `remember
--supersedes` (the CLI's and the MCP server's) answered for another
harness's private note, told the agent it existed and filed requests and
replacements against it; its `review` decisions and `promote`, refused,
said why in words that told it the note existed and how it stood. Each now
says what an unknown id says, and writes nothing (`Opened.reached`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from governance_support import CLAUDE, CODEX
from helpers import cli_runner
from mcp_support import claude, failed

from tree_ring.model.project import store_path

MISSING = "mem_20260101_000000_abcdefabcdef"


def _counts(root: Path) -> dict[str, int]:
    """Every table's row count: what a refused write must leave as it was."""
    conn = sqlite3.connect(store_path(root))
    try:
        names = [
            row[0]
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith(("memory_fts", "sqlite_"))
        ]
        return {
            name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names
        }
    finally:
        conn.close()


@pytest.fixture
def hidden(project_root: Path) -> str:
    """A Codex session's private note, anchored to a file."""
    (project_root / "a.py").write_text("a = 1\n", encoding="utf-8")
    run = cli_runner(project_root)
    done = run(
        "--json", "remember", "Codex's private scratch note", "--file", "a.py", environ=CODEX
    )
    assert done.code == 0, done.err
    return str(json.loads(done.out)["id"])


@pytest.mark.parametrize(
    "verb",
    [
        ("confirm", "{id}", "--reason", "still true"),
        ("supersede", "{mine}", "{id}", "--reason", "replaced"),
        ("supersede", "{id}", "{mine}", "--reason", "replaced"),
        ("remember", "Claude's replacement note", "--supersedes", "{id}"),
        ("review", "approve", "{id}", "--reason", "fine"),
        ("review", "reject", "{id}", "--reason", "no"),
        ("review", "dispute", "{id}", "--reason", "unsure"),
        ("promote", "{id}", "--reason", "useful"),
    ],
    ids=[
        "confirm",
        "supersede-by",
        "supersede-of",
        "remember-supersedes",
        "approve",
        "reject",
        "dispute",
        "promote",
    ],
)
def test_an_agents_write_by_another_partitions_id_is_no_memory(
    project_root: Path, hidden: str, verb: tuple[str, ...]
) -> None:
    run = cli_runner(project_root)
    mine = run("--json", "remember", "Claude's own scratch note", environ=CLAUDE)
    assert mine.code == 0, mine.err
    own = str(json.loads(mine.out)["id"])
    before = _counts(project_root)

    def said(memory_id: str) -> tuple[int, str]:
        args = [word.format(id=memory_id, mine=own) for word in verb]
        done = run(*args, environ=CLAUDE)
        return done.code, done.err.replace(memory_id, "ID")

    code, error = said(hidden)
    assert code != 0 and error.count("\n") == 1
    assert (code, error) == said(MISSING)
    assert _counts(project_root) == before


def test_the_mcp_servers_remember_supersedes_another_partitions_id_is_no_memory(
    project_root: Path, hidden: str
) -> None:
    pipe = claude(project_root)
    before = _counts(project_root)
    answers = [
        failed(pipe.call("remember", {"summary": "Claude's replacement", "supersedes": target}))
        for target in (hidden, MISSING)
    ]
    assert answers[0].replace(hidden, "ID") == answers[1].replace(MISSING, "ID")
    assert _counts(project_root) == before


def test_a_person_reaches_every_partition(project_root: Path, hidden: str) -> None:
    run = cli_runner(project_root)
    done = run("--json", "confirm", hidden, "--reason", "still true")
    assert done.code == 0, done.err
