"""The store's file as pages: the write-ahead log checkpointed, the file
rebuilt without its free pages, and a connection's page cache."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tree_ring.store.sql import Db


def checkpoint(db: Db) -> tuple[int, int, int]:
    """Copy the write-ahead log into the file and empty it: (busy, frames in
    the log, frames copied), as SQLite reports them. Outside any transaction."""
    busy, log, done = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return int(busy), int(log), int(done)


def vacuum(db: Db) -> None:
    """Rebuild the file without its free pages. Outside any transaction: it
    takes the write lock itself."""
    db.execute("VACUUM")


# How a child process looks for the texts: the file's path as its argument,
# the texts on its standard input (one per line, hex), exit 0 when one is
# found, `NONE_FOUND` when none is (any failure exits otherwise), read a
# chunk at a time, each chunk overlapping the last by the longest text.
NONE_FOUND = 3
_SCAN = f"""
import sys
wanted = [bytes.fromhex(line) for line in sys.stdin.read().split()]
overlap = max(map(len, wanted)) - 1
tail = b""
with open(sys.argv[1], "rb") as file:
    while chunk := file.read(1 << 20):
        window = tail + chunk
        if any(needle in window for needle in wanted):
            sys.exit(0)
        tail = window[-overlap:] if overlap else b""
sys.exit({NONE_FOUND})
"""
# How long the look may take before the file is taken to hold them.
SCAN_SECONDS = 300


def holds(path: Path, needles: Sequence[bytes]) -> bool:
    """Whether the file at `path` holds one of `needles` anywhere in its
    bytes, in a page's free space or in a live row alike.

    Read by a child process: this one has a connection open on the file, and
    closing any other descriptor this process opened on it would drop that
    connection's locks (POSIX advisory locks belong to the process and the
    file), so that another process could take the log for abandoned and
    reset it under commits not yet copied into the file. When the child
    cannot say, the file is taken to hold them: the caller then rebuilds it,
    which is safe either way."""
    import subprocess
    import sys

    wanted = [needle for needle in needles if needle]
    if not wanted:
        return False
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _SCAN, str(path)],
            input="\n".join(needle.hex() for needle in wanted).encode("ascii"),
            capture_output=True,
            timeout=SCAN_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return True
    return done.returncode != NONE_FOUND


@contextmanager
def page_cache(db: Db, kib: int) -> Generator[None]:
    """At least `kib` KiB of page cache on this connection for the block, then as before.

    A batch adds to indexes whose order is not arrival order (content hashes,
    claims, the brief's ranking), so it touches index pages all over the
    store; with SQLite's default 2 MB cache most of those reads go back to the
    file once the store passes some tens of thousands of memories.
    """
    before = int(db.execute("PRAGMA cache_size").fetchone()[0])
    # Positive is pages, negative is KiB.
    page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    if (before * page_size // 1024 if before > 0 else -before) >= kib:
        yield
        return
    db.execute(f"PRAGMA cache_size = {-int(kib)}")
    try:
        yield
    finally:
        db.execute(f"PRAGMA cache_size = {before}")
