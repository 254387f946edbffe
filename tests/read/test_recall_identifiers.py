"""Recall reads a code identifier as itself and as its words.

`HTTPServerTimeout` is found by "http server timeout", `lock_timeout` by
"lock timeout", and either still by its own spelling; a note that holds
every word of the question through an identifier ranks before notes that
hold only some of them. A store indexed before identifiers had words is
indexed again when opened (`0022_identifier_words`), so the index's
triggers delete rows by what they indexed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import PERSON, make_memory

from tree_ring.model import identifiers, project
from tree_ring.model.identity import Identity
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import correct, pipeline

SPLITS = {
    "maxUnavailable": ["max", "Unavailable"],
    "HTTPServerTimeout": ["HTTP", "Server", "Timeout"],
    "G1HeapRegionSize": ["G1", "Heap", "Region", "Size"],
    "getUserById": ["get", "User", "By", "Id"],
    "MigrationV15": ["Migration", "V15"],
    "TooManyRequestsException": ["Too", "Many", "Requests", "Exception"],
    "NSFaceIDUsageDescription": ["NS", "Face", "ID", "Usage", "Description"],
    # No identifier, or not two words of two characters.
    "IDs": [],
    "APIs": [],
    "iPhone": [],
    "OAuth": [],
    "UUIDv7": [],
    "deploy": [],
    "Deploy": [],
    "p95": [],
}


@pytest.mark.parametrize("identifier", SPLITS)
def test_an_identifier_is_split_into_its_words(identifier: str) -> None:
    assert identifiers.words(identifier) == SPLITS[identifier]


def test_a_text_keeps_each_identifier_and_adds_its_words_after_it() -> None:
    text = "set maxUnavailable to 0; lock_timeout stays; ÜberClient, IDs and HTTPServer."
    assert identifiers.with_words(text) == (
        "set maxUnavailable max Unavailable to 0; lock_timeout stays; ÜberClient, IDs and "
        "HTTPServer HTTP Server."
    )
    assert identifiers.with_words("plain words only") == "plain words only"


# (the note, a question in the identifier's words, its own spelling)
NOTES = [
    ("HTTPServerTimeout is 30s in staging", "http server timeout", "HTTPServerTimeout"),
    ("DDL on big tables runs with lock_timeout=3s", "lock timeout", "lock_timeout"),
    ("Deployments keep maxUnavailable at 0 during rollouts", "max unavailable", "maxunavailable"),
]


@pytest.mark.parametrize(("note", "question", "spelling"), NOTES)
def test_the_identifier_s_words_rank_it_first(
    store: Store, identity: Identity, note: str, question: str, spelling: str
) -> None:
    # Hundreds of notes, newer than it, each holding one of the question's words.
    words = question.split()
    for n in range(300):
        word = words[n % len(words)]
        text = f"The {word} note number {n} covers an unrelated part {n % 7}"
        pipeline.store_memory(store, make_memory(identity.project, text), PERSON)
    wanted = pipeline.store_memory(store, make_memory(identity.project, note), PERSON).id
    # Newer again, so recency does not carry it.
    for n in range(50):
        text = f"A later {words[0]} note {n} says nothing of the rest"
        pipeline.store_memory(store, make_memory(identity.project, text), PERSON)
    assert recall(store, identity, question, limit=5)[0].memory.id == wanted
    first = recall(store, identity, spelling, limit=5)[0]
    assert first.memory.id == wanted
    # Its own spelling is every word of the question: it holds them all.
    assert first.literal and first.parts["overlap"] == pytest.approx(0.2)


def _as_before(root: Path) -> None:
    """The store as a release before identifier words left it: its index
    built by a fold that adds no words, the migration not yet run."""
    conn = sqlite3.connect(project.store_path(root))
    try:

        def plain(raw: bytes | str | None) -> str | None:
            return None if raw is None else (raw.decode() if isinstance(raw, bytes) else raw)

        conn.create_function("tree_ring_fold", 1, plain, deterministic=True)
        conn.create_function("tree_ring_meaning", 3, lambda *_: None, deterministic=True)
        conn.execute("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0022_identifier_words'")
        conn.execute("PRAGMA user_version = 21")
        conn.commit()
    finally:
        conn.close()


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_a_store_indexed_before_is_indexed_again_when_opened(
    project_root: Path, identity: Identity, mode: str
) -> None:
    with Store.open(project_root) as store:
        gone = pipeline.store_memory(
            store, make_memory(identity.project, "HTTPServerTimeout is 30s"), PERSON
        ).id
        kept = pipeline.store_memory(
            store, make_memory(identity.project, "maxUnavailable stays at 0"), PERSON
        ).id
    _as_before(project_root)
    with Store.open(project_root) as store:
        assert {h.memory.id for h in recall(store, identity, "max unavailable")} == {kept}
        correct.forget(store, gone, mode=mode, reason="wrong", actor=PERSON)
        # The index matches its rows: FTS5 compares it with what the fold gives.
        store.conn.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)")
        assert {h.memory.id for h in recall(store, identity, "server timeout")} <= {kept}
