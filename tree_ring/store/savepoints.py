"""A part of a write transaction that is undone alone when it fails."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from tree_ring.store.sql import Db


@contextmanager
def undone_on_error(db: Db, name: str) -> Generator[None]:
    """Run the block in a savepoint named `name`, inside the transaction
    `db` holds: when the block raises, everything it wrote is rolled back
    and the error goes on; the transaction's earlier writes stay either way.
    The caller keeps what it reports of the block until the block is done."""
    db.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        db.execute(f"ROLLBACK TO {name}")
        db.execute(f"RELEASE {name}")
        raise
    db.execute(f"RELEASE {name}")
