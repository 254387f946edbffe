"""Comparing two imports' effects but for what differs from run to run.

`tests/api/test_import_reach.py` and `test_import_stone_hash.py` import a
file naming something hidden and the same file naming nothing, and compare
the answers and the stores: every id new since the import began, a batch
id, a request id and a time read alike, and what was asked (an id, a hash)
reads as one word.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from tree_ring.model.project import store_path

NEW_ID = re.compile(r"mem_\d{8}_\d{6}_[0-9a-f]{12}")
BATCH = re.compile(r"import-\d{8}T\d{6}Z-[0-9a-f]{8}")
REQUEST = re.compile(r"req_[0-9A-Za-z_]+")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z")
STATES = re.compile(r'"states":\{[^}]*\}')


def said(text: str, asked: tuple[str, ...], before: set[str], word: str = "ASKED") -> str:
    """`text` with each of `asked` as `word` and every id that was not in the
    store before the import (`before`) as NEW; batch, request ids and times
    blanked."""
    for name in asked:
        text = text.replace(name, word)
    text = NEW_ID.sub(lambda m: m.group(0) if m.group(0) in before else "NEW", text)
    text = BATCH.sub("BATCH", text)
    text = REQUEST.sub("REQ", text)
    return TIME.sub("TIME", text)


def dump(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (not the full-text indexes' own), in order."""
    conn = sqlite3.connect(store_path(root))
    try:
        names = [
            row[0]
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith(("memory_fts", "claim_fts", "sqlite_"))
        ]
        return {name: conn.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
    finally:
        conn.close()


def ids(tables: dict[str, list[tuple[Any, ...]]]) -> set[str]:
    """Every memory id any table holds."""
    return {
        found
        for rows in tables.values()
        for row in rows
        for value in row
        if isinstance(value, str)
        for found in NEW_ID.findall(value)
    }


def store_as_said(
    root: Path, asked: tuple[str, ...], before: set[str], word: str = "ASKED"
) -> dict[str, list[str]]:
    """The store's tables and the team ledger, as `said` words them; the audit
    chain's hashes, row states, an import's target (which hash the ids and
    times) and the tombstones' count (store/moved.py) left out."""
    found: dict[str, list[str]] = {}
    for name, rows in dump(root).items():
        if name == "audit_log":
            rows = [row[:-2] for row in rows]  # prev_hash, hash
        elif name == "policy_audit":  # an import's target: the hash of the file's ids
            rows = [(*row[:7], "IDS" if row[6] == "import" else row[7], *row[8:]) for row in rows]
        elif name == "settings":  # the tombstones' count moves by random steps
            rows = [(k, "COUNT") if k == "tombstones.changes" else (k, v) for k, v in rows]
        found[name] = sorted(
            STATES.sub("STATES", said(repr(row), asked, before, word)) for row in rows
        )
    ledger = root / ".tree-ring" / "ledger.jsonl"
    if ledger.exists():
        lines = ledger.read_text(encoding="utf-8").splitlines()
        found["ledger"] = sorted(said(line, asked, before, word) for line in lines)
    return found
