"""A store belongs to one project, in the library as at the terminal: a
write through the front (`api.Project`) naming another project is refused
with nothing written, whichever client asks; a read may name another; the
store's own project still writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tree_ring.api.project import Project
from tree_ring.model.errors import UsageError
from tree_ring.model.project import load_project_id, store_path
from tree_ring.write.verbs import Draft

OTHER = "p-00000000"
TEXT = "The staging admin password hint is the dog's name"
PERSON: dict[str, str] = {}


def _state(root: Path) -> tuple[object, ...]:
    conn = sqlite3.connect(store_path(root))
    try:
        return tuple(
            tuple(conn.execute(f"SELECT * FROM {table} ORDER BY rowid"))
            for table in ("memories", "content_tombstones", "audit_log")
        )
    finally:
        conn.close()


def test_a_write_naming_another_project_is_refused(project_root: Path) -> None:
    with Project.open(str(project_root), PERSON) as own:
        kept = own.remember(Draft("Deploys freeze on Fridays")).id
    before = _state(project_root)
    with Project.open(str(project_root), PERSON, project_id=OTHER) as other:
        with pytest.raises(UsageError) as refused:
            other.remember(Draft(TEXT))
        with pytest.raises(UsageError):
            other.forget(kept, mode="delete", reason="not this project's to forget")
        # A read may name another project: it sees none of this one's rows.
        assert other.recall("Deploys freeze", limit=5) == []
    own_id = load_project_id(project_root)
    assert str(refused.value) == (
        f"this store belongs to project {own_id}, not {OTHER}; "
        f"write {OTHER}'s memories in its own folder"
    )
    assert _state(project_root) == before


def test_the_stores_own_project_named_still_writes(project_root: Path) -> None:
    own_id = load_project_id(project_root)
    with Project.open(str(project_root), PERSON, project_id=own_id) as own:
        written = own.remember(Draft(TEXT)).id
        assert {hit.memory.id for hit in own.recall("staging admin password", limit=5)} == {written}
