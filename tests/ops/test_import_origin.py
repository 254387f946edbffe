"""Who an imported row says wrote it: a person restoring Tree Ring's own export
keeps its trust and origin; anything else is an import."""

from __future__ import annotations

import json
from typing import Any

from conftest import AGENT, PERSON, make_memory

from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer


def exported(project_id: str, **fields: Any) -> str:
    memory = make_memory(project_id, "Builds run on the shared pool", **fields)
    return json.dumps(memory.to_dict())


def test_a_person_restoring_an_export_keeps_trust_and_origin(store: Store, project_id: str) -> None:
    line = exported(project_id, origin="codex", trust="disputed", event_type="decision")
    [memory_id] = transfer.import_lines(store, [line], project=project_id, actor=PERSON).created
    row = rows.get(store.db, memory_id)
    assert (row.origin, row.trust) == ("codex", "disputed")


def test_an_agent_import_is_an_import_whatever_the_row_says(store: Store, project_id: str) -> None:
    line = exported(project_id, origin="person", trust="accepted")
    [memory_id] = transfer.import_lines(store, [line], project=project_id, actor=AGENT).created
    assert rows.get(store.db, memory_id).origin == "import"


def test_an_original_row_without_trust_is_an_import(store: Store, project_id: str) -> None:
    data = json.loads(exported(project_id, origin="person"))
    del data["trust"]
    report = transfer.import_lines(store, [json.dumps(data)], project=project_id, actor=PERSON)
    assert rows.get(store.db, report.created[0]).origin == "import"
