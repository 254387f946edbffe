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


# How much of the file `holds` reads at a time.
_CHUNK = 1 << 20


def holds(path: Path, needles: Sequence[bytes]) -> bool:
    """Whether the file at `path` holds one of `needles` anywhere in its
    bytes, in a page's free space or in a live row alike: read a chunk at a
    time, each overlapping the last by the longest needle."""
    wanted = [needle for needle in needles if needle]
    if not wanted:
        return False
    overlap = max(map(len, wanted)) - 1
    tail = b""
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            window = tail + chunk
            if any(needle in window for needle in wanted):
                return True
            tail = window[-overlap:] if overlap else b""
    return False


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
