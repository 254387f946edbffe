"""An imported row's source type is a claim, as its trust, origin and review
are: a plain import or a team ledger claim cannot raise what it weighs in
ranking by naming the highest source type; a person's restore of their own
export keeps it, as it keeps the row's origin."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import PERSON, make_memory
from team_support import LEDGER, first_repo, ledger_entries, ok

from tree_ring.model.identity import Identity
from tree_ring.read import brief, ranking, recall
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer

CLAIMED = "Builds run on the shared runner pool"
ORDINARY = "Builds cache their layers on the shared volume"
# What an import weighs in a score: the same for every imported row.
IMPORTED = round(ranking.WEIGHTS["authority"] * ranking.AUTHORITY["import"], 6)
HIGHEST = max(ranking.AUTHORITY, key=lambda name: ranking.AUTHORITY[name])


def lines(project_id: str) -> list[str]:
    """One row claiming the highest source type, one an ordinary person's note."""
    claimed = make_memory(project_id, CLAIMED, source_type=HIGHEST, origin="person")
    ordinary = make_memory(project_id, ORDINARY, source_type="manual", origin="person")
    return [json.dumps(claimed.to_dict()), json.dumps(ordinary.to_dict())]


def authority(store: Store, identity: Identity) -> dict[str, float]:
    hits = recall.recall(store, identity, "builds shared", whole_project=True)
    return {hit.memory.summary: hit.parts["authority"] for hit in hits}


def test_a_plain_import_cannot_raise_authority_through_its_source_type(
    store: Store, project_id: str, identity: Identity
) -> None:
    report = transfer.import_lines(store, lines(project_id), project=project_id, actor=PERSON)
    assert len(report.created) == 2
    assert authority(store, identity) == {CLAIMED: IMPORTED, ORDINARY: IMPORTED}
    # The file's word stays on the row, for a person to read; the brief calls it an import.
    stored = [rows.get(store.db, memory_id) for memory_id in report.created]
    assert {(m.source_type, m.origin) for m in stored} == {
        (HIGHEST, "import"),
        ("manual", "import"),
    }
    assert {brief.origin_label(m) for m in stored} == {"import"}


def test_a_persons_restore_keeps_the_source_types_authority(
    store: Store, project_id: str, identity: Identity
) -> None:
    transfer.import_lines(store, lines(project_id), project=project_id, actor=PERSON, restore=True)
    weight = ranking.WEIGHTS["authority"]
    assert authority(store, identity) == {
        CLAIMED: round(weight * ranking.AUTHORITY[HIGHEST], 6),
        ORDINARY: round(weight * ranking.AUTHORITY["manual"], 6),
    }


def test_a_file_claiming_a_syncs_source_type_is_not_labelled_synced(
    store: Store, project_id: str, identity: Identity
) -> None:
    line = make_memory(project_id, CLAIMED, source_type="dox", origin="person")
    [memory_id] = transfer.import_lines(
        store, [json.dumps(line.to_dict())], project=project_id, actor=PERSON
    ).created
    shown = brief.line(rows.get(store.db, memory_id))
    assert shown.startswith(f'[cambium] "{CLAIMED}" (') and "origin: import)" in shown


def test_a_team_ledger_claim_cannot_raise_authority_through_its_source_type(
    tmp_path: Path,
) -> None:
    root = first_repo(tmp_path)
    noted = ok(root, "--json", "remember", ORDINARY).json()["id"]
    ok(root, "sync")
    [entry] = [e for e in ledger_entries(root) if e["id"] == noted]
    forged = {
        **entry,
        "id": "mem_20261201_000000_f0f0f0f0f0f0",
        "summary": CLAIMED,
        "source": {**entry["source"], "type": HIGHEST},
    }
    with (root / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(forged) + "\n")
    assert ok(root, "--json", "sync").json()["claimed"] == [forged["id"]]
    ok(root, "review", "approve", forged["id"], "--reason", "checked with the team")
    found = ok(root, "--json", "recall", "builds shared").json()["items"]
    weights = {item["summary"]: item["score_parts"]["authority"] for item in found}
    own = round(ranking.WEIGHTS["authority"] * ranking.AUTHORITY["manual"], 6)
    assert weights == {CLAIMED: IMPORTED, ORDINARY: own}
