"""Questions that name a time, written by others and measured once.

`fixtures/dates/set*.json` were written from a short brief by someone who
never saw recall: the notes of one project over a year or more, several on
one topic at different times, and questions that each name a time in their
own words, whose answer is the note written then. Set 1 was measured once
and then served as development data for the shapes `dates.py` reads; set 2
was measured once after that. Each question is asked as of the set's
`asked_on` (so "yesterday" counts back from it) and must find one of its
notes among the first five; the ones recall misses are listed, strictly,
so the list says what recall still misses and fails the day one is found.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import PERSON, REPO, make_memory, measured_cases

from tree_ring.model.identity import Identity
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.write import pipeline

FIXTURES = REPO / "fixtures" / "dates"
SETS: dict[str, dict[str, Any]] = {
    path.stem: json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(FIXTURES.glob("set*.json"))
}
TOP = 5
MISSED = frozenset(
    [
        "set1:What's the note from Tuesday 11 Feb?",
        "set1:What did we note on the evening of June 17th?",
        "set2:anything from March 2025?",
    ]
)
CASES = measured_cases({name: data["questions"] for name, data in SETS.items()}, MISSED)


def _stamp(text: str) -> str:
    """`2025-03-03T10:00:00Z` in the stored form."""
    return text.replace("Z", ".000000Z")


def _project(root: Path) -> str:
    from tree_ring.model import project

    return project.load_project_id(root)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    """Each set's notes in a project of their own, by the note's key."""
    from tree_ring.harness import guidance

    made: dict[str, tuple[Path, dict[str, str]]] = {}
    for name, data in SETS.items():
        root = tmp_path_factory.mktemp(name)
        guidance.init_project(root)
        ids: dict[str, str] = {}
        with Store.open(root) as store, store.write() as db:
            for note in data["memories"]:
                at = _stamp(note["created_at"])
                memory = make_memory(_project(root), note["summary"], created_at=at, valid_from=at)
                pipeline.insert_prepared(db, memory, PERSON)
                ids[memory.id] = note["id"]
        made[name] = (root, ids)
    return made


@pytest.mark.parametrize(("name", "case"), CASES)
def test_each_question_finds_a_note_written_then_in_the_top_five(
    stores: dict[str, tuple[Path, dict[str, str]]], name: str, case: dict[str, Any]
) -> None:
    root, ids = stores[name]
    identity = Identity(_project(root), None, None, None)
    view = View(as_of=_stamp(SETS[name]["asked_on"]))
    with Store.open(root) as store:
        hits = recall(store, identity, case["question"], limit=TOP, view=view)
    assert {ids[h.memory.id] for h in hits} & set(case["expected"])


def test_the_sets_are_whole() -> None:
    asked = set()
    for name, data in SETS.items():
        keys = {note["id"] for note in data["memories"]}
        assert all(set(case["expected"]) <= keys for case in data["questions"])
        assert all(note["created_at"] <= data["asked_on"] for note in data["memories"])
        asked |= {f"{name}:{case['question']}" for case in data["questions"]}
    assert len(SETS) >= 2 and asked >= MISSED
