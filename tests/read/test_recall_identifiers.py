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
from tree_ring.store.schema import MIGRATIONS
from tree_ring.write import correct, pipeline

SPLITS = {
    "maxUnavailable": ["max", "Unavailable"],
    "HTTPServerTimeout": ["HTTP", "Server", "Timeout"],
    "G1HeapRegionSize": ["G1", "Heap", "Region", "Size"],
    "getUserById": ["get", "User", "By", "Id"],
    "MigrationV15": ["Migration", "V15"],
    "TooManyRequestsException": ["Too", "Many", "Requests", "Exception"],
    "NSFaceIDUsageDescription": ["NS", "Face", "ID", "Usage", "Description"],
    # Letters of any script, read by their case; one without case reads as small.
    "ÜberServerTimeout": ["Über", "Server", "Timeout"],
    "straßeName": ["straße", "Name"],
    "ΑλφαΒήτα": ["Αλφα", "Βήτα"],
    "ПриветМир": ["Привет", "Мир"],
    "ЖукBeetleTracker": ["Жук", "Beetle", "Tracker"],
    "İstanbulServer": ["İstanbul", "Server"],
    "東京Server": ["東京", "Server"],
    # No identifier, or not two words of two characters.
    "IDs": [],
    "APIs": [],
    "iPhone": [],
    "OAuth": [],
    "UUIDv7": [],
    "deploy": [],
    "Deploy": [],
    "p95": [],
    "Привет": [],
    "ΣΟΣ": [],
}


@pytest.mark.parametrize("identifier", SPLITS)
def test_an_identifier_is_split_into_its_words(identifier: str) -> None:
    assert identifiers.words(identifier) == SPLITS[identifier]


def test_a_text_keeps_each_identifier_and_adds_its_words_after_it() -> None:
    text = "set maxUnavailable to 0; lock_timeout stays; ÜberClient, IDs and HTTPServer."
    assert identifiers.with_words(text) == (
        "set maxUnavailable max Unavailable to 0; lock_timeout stays; ÜberClient Über Client, "
        "IDs and HTTPServer HTTP Server."
    )
    assert identifiers.with_words("plain words only") == "plain words only"
    assert identifiers.with_words("Привет Мир, ΣΟΣ") == "Привет Мир, ΣΟΣ"
    # A letter and its mark, written apart, are one letter of the word.
    assert identifiers.with_words("U\u0308berClient") == "ÜberClient Über Client"


def test_spaced_gives_every_part_of_each_identifier_in_place_of_it() -> None:
    assert identifiers.spaced("UseTabsInAMakefile, iPhone and ЖукBeetle") == (
        "Use Tabs In A Makefile, iPhone and Жук Beetle"
    )
    assert identifiers.spaced("no identifier here") == "no identifier here"


# (the note, a question in the identifier's words, its own spelling)
NOTES = [
    ("HTTPServerTimeout is 30s in staging", "http server timeout", "HTTPServerTimeout"),
    ("DDL on big tables runs with lock_timeout=3s", "lock timeout", "lock_timeout"),
    ("Deployments keep maxUnavailable at 0 during rollouts", "max unavailable", "maxunavailable"),
    ("Der straßeName kommt aus dem Melderegister", "straße name", "straßename"),
    ("ЖукBeetleTracker шлёт отчёты каждый час", "beetle tracker", "жукbeetletracker"),
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


# (a note naming an identifier in snake or kebab case, a question naming it in camelCase)
CAMEL_QUESTIONS = [
    ("DDL on big tables runs with lock_timeout=3s", "lockTimeout"),
    ("Set statement_timeout to 30s on the reporting replica", "what is the statementTimeout"),
    ("The retry-count for webhook delivery is 5", "RetryCount for webhooks"),
]


@pytest.mark.parametrize(("note", "question"), CAMEL_QUESTIONS)
def test_a_camel_case_question_finds_the_identifier_in_another_case(
    store: Store, identity: Identity, note: str, question: str
) -> None:
    """The question is read as the index reads the notes: each identifier
    followed by its words (`query.terms`)."""
    # Hundreds of notes, each holding one of the identifier's words.
    words = [w for token in question.split() for w in identifiers.words(token)]
    for n in range(300):
        word = words[n % len(words)]
        text = f"The {word} note number {n} covers an unrelated part {n % 7}"
        pipeline.store_memory(store, make_memory(identity.project, text), PERSON)
    wanted = pipeline.store_memory(store, make_memory(identity.project, note), PERSON).id
    assert recall(store, identity, question, limit=5)[0].memory.id == wanted


def _as_before(root: Path, migration: str) -> None:
    """The store as a release before `migration` left it: its index built by
    a fold that adds no words, that migration and those after it not run."""
    conn = sqlite3.connect(project.store_path(root))
    try:

        def plain(raw: bytes | str | None) -> str | None:
            return None if raw is None else (raw.decode() if isinstance(raw, bytes) else raw)

        conn.create_function("tree_ring_fold", 1, plain, deterministic=True)
        conn.create_function("tree_ring_meaning", 3, lambda *_: None, deterministic=True)
        conn.execute("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')")
        due = [name for name, _ in MIGRATIONS if name >= migration]
        conn.executemany("DELETE FROM schema_migrations WHERE name = ?", [(n,) for n in due])
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - len(due)}")
        conn.commit()
    finally:
        conn.close()


# (the migration due, an identifier it indexes the words of, another)
MIGRATED = [
    ("0022_identifier_words", "HTTPServerTimeout", "maxUnavailable"),
    ("0023_identifier_words_any_script", "ÜberServerTimeout", "maxÜberUnavailable"),
]


@pytest.mark.parametrize("mode", ["delete", "redact"])
@pytest.mark.parametrize(("migration", "forgotten", "other"), MIGRATED)
def test_a_store_indexed_before_is_indexed_again_when_opened(
    project_root: Path, identity: Identity, mode: str, migration: str, forgotten: str, other: str
) -> None:
    with Store.open(project_root) as store:
        gone = pipeline.store_memory(
            store, make_memory(identity.project, f"{forgotten} is 30s"), PERSON
        ).id
        kept = pipeline.store_memory(
            store, make_memory(identity.project, f"{other} stays at 0"), PERSON
        ).id
    _as_before(project_root, migration)
    with Store.open(project_root) as store:
        assert {h.memory.id for h in recall(store, identity, "max unavailable")} == {kept}
        assert recall(store, identity, "server timeout")[0].memory.id == gone
        correct.forget(store, gone, mode=mode, reason="wrong", actor=PERSON)
        # The index matches its rows: FTS5 compares it with what the fold gives.
        store.conn.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)")
        assert {h.memory.id for h in recall(store, identity, "server timeout")} <= {kept}
