"""Looking for forgotten text in the store's file keeps this process's hold on it.

POSIX advisory locks belong to a process and a file: closing any descriptor
this process opened on the store's file drops the locks its SQLite
connection holds there. Another process closing its own connection then
takes itself for the last one, checkpoints and deletes the write-ahead log
under the first connection, and commits not yet copied into the file are
lost when the first process dies. `pages.holds` reads the file in a child
process, so the log outlives the other process's close."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tree_ring.store import pages
from tree_ring.store.db import Store

# Another process opens the store, reads a row and closes.
CLOSE = (
    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);"
    " c.execute('SELECT 1 FROM memories LIMIT 1').fetchall(); c.close()"
)


def test_the_look_keeps_the_connections_locks(store: Store) -> None:
    path = Path(store.path)
    store.db.execute("SELECT count(*) FROM memories").fetchone()
    wal = path.with_name(path.name + "-wal")
    assert wal.exists()
    assert pages.holds(path, [b"SQLite format 3"]) is True
    assert pages.holds(path, [b"no such bytes in any store, surely: 0123456789"]) is False
    subprocess.run([sys.executable, "-I", "-S", "-c", CLOSE, str(path)], check=True, timeout=60)
    # The other process did not take itself for the last connection.
    assert wal.exists()


def test_a_file_the_look_cannot_read_is_taken_to_hold_them(tmp_path: Path) -> None:
    """The caller then rebuilds the file, which is safe either way."""
    assert pages.holds(tmp_path / "no such file", [b"anything at all"]) is True
    assert pages.holds(tmp_path, [b"anything at all"]) is True
