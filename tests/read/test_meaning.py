"""Recall's meaning stage: a memory that says what was asked in other words is
found; hidden rows never crowd out a visible one; a question its words answer
gains no strangers; codes follow their rows through every write path; without
the vector table recall works on by words alone."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import PERSON, make_memory

from tree_ring.model import vectors
from tree_ring.model.identity import Identity
from tree_ring.read import meaning, query
from tree_ring.read.recall import Hit, recall
from tree_ring.store import meaning as codes
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl
from tree_ring.upkeep.maintain import maintain
from tree_ring.write import bulk, correct, pipeline

# Notes on other topics, none near the questions below.
OTHERS = [
    "Release notes are drafted in the wiki before each sprint review",
    "The design team prefers Figma components over ad hoc mockups",
    "Office plants are watered on Thursdays by whoever arrives first",
    "Quarterly planning happens in the large meeting room upstairs",
]
BROKER = "The orders consumer group on Kafka fell two million messages behind"
BROKER_QUESTION = "queue backlog keeps growing"
SHIPPED = vectors.PATH


@pytest.fixture(autouse=True)
def words_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """No related words: what is found beyond the question's words is found
    by meaning."""
    monkeypatch.setattr(query, "related", lambda _term: ())


def ids(hits: list[Hit]) -> set[str]:
    return {h.memory.id for h in hits}


def write(store: Store, project: str | None, *texts: str) -> list[str]:
    return [pipeline.store_memory(store, make_memory(project, t), PERSON).id for t in texts]


def coded(store: Store) -> set[int]:
    return {row[0] for row in store.query("SELECT rowid FROM memory_meaning")}


def rowids(store: Store, memory_ids: list[str]) -> set[int]:
    marks = ", ".join("?" * len(memory_ids))
    return {
        r[0] for r in store.query(f"SELECT rowid FROM memories WHERE id IN ({marks})", memory_ids)
    }


def test_a_memory_in_other_words_is_found_by_meaning(store: Store, identity: Identity) -> None:
    (broker,) = write(store, identity.project, BROKER)
    write(store, identity.project, *OTHERS)
    hits = recall(store, identity, BROKER_QUESTION)
    assert hits and hits[0].memory.id == broker
    assert hits[0].query == meaning.MATCH and hits[0].literal
    assert hits[0].parts["meaning"] > 0


def test_without_meaning_the_same_question_finds_nothing(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stage is what finds it: the question shares no word with the note."""
    write(store, identity.project, BROKER, *OTHERS)
    monkeypatch.setattr(meaning, "question", lambda _text: None)
    assert recall(store, identity, BROKER_QUESTION) == []


def test_hundreds_of_hidden_nearer_rows_never_crowd_out_a_visible_one(
    store: Store, identity: Identity
) -> None:
    """Rows of another project, and forgotten rows of this one, all nearer the
    question than the visible note and all newer, are more than the scan
    keeps; the visible note is still found."""
    (mine,) = write(store, identity.project, "Kafka consumers lag behind during slow calls")
    hidden = [f"The queue backlog keeps growing, case {n}" for n in range(300)]
    with store.write() as db:
        for text in hidden:
            pipeline.insert_prepared(db, make_memory("another-project", text), PERSON)
    forgotten = write(store, identity.project, *hidden[:20])
    for memory_id in forgotten:
        correct.forget(store, memory_id, mode="delete", reason="wrong", actor=PERSON)
    assert len(hidden) > meaning.KEEP
    assert ids(recall(store, identity, BROKER_QUESTION)) == {mine}


def test_a_sensitive_or_unreviewed_memory_near_in_meaning_stays_hidden(
    store: Store, identity: Identity
) -> None:
    (mine,) = write(store, identity.project, "Kafka consumers lag behind during slow calls")
    nearer = "The queue backlog keeps growing on the orders topic"
    with store.write() as db:
        for fields in ({"sensitivity": "secret"}, {"trust": "pending"}):
            pipeline.insert_prepared(db, make_memory(identity.project, nearer, **fields), PERSON)
    assert ids(recall(store, identity, BROKER_QUESTION)) == {mine}


def test_a_hand_edited_code_is_skipped_not_fatal(store: Store, identity: Identity) -> None:
    broker, other = write(store, identity.project, BROKER, "Kafka keeps seven days of orders")
    with store.write() as db:
        db.execute("UPDATE memory_meaning SET code = 'not a code' WHERE rowid = 1")
        db.execute("UPDATE memory_meaning SET code = x'00ff' WHERE rowid = 2")
    assert recall(store, identity, BROKER_QUESTION) == []
    assert ids(recall(store, identity, "kafka")) == {broker, other}


def test_a_code_of_another_length_costs_only_its_memory_which_is_weighed_from_its_text(
    store: Store, identity: Identity
) -> None:
    """A code cut short is not read: its memory is weighed from its text, as
    one written without the table is, and no other memory's weight moves."""
    broker, other = write(store, identity.project, BROKER, "The orders consumer on Kafka lags")
    question = "orders consumer"
    before = {h.memory.id: h.parts["meaning"] for h in recall(store, identity, question)}
    assert set(before) == {broker, other} and min(before.values()) > 0
    with store.write() as db:
        db.execute(
            "UPDATE memory_meaning SET code = substr(code, 1, 16) WHERE rowid = ?",
            (min(rowids(store, [broker])),),
        )
    after = {h.memory.id: h.parts["meaning"] for h in recall(store, identity, question)}
    assert after == pytest.approx(before, rel=0.05)


def test_codes_cut_short_never_crowd_a_sound_one_out_of_the_scan(
    store: Store, identity: Identity
) -> None:
    """More codes than the scan weighs at a time, each cut to the signs of
    the one memory near the question and all newer than it, sort before it by
    their signs; they are not read, so that memory is still found."""
    (broker,) = write(store, identity.project, BROKER)
    notes = [f"{OTHERS[n % len(OTHERS)]}, note {n}" for n in range(meaning.KEEP + 8)]
    bulk.insert_many(store, [make_memory(identity.project, text) for text in notes], PERSON)
    (low,) = rowids(store, [broker])
    with store.write() as db:
        db.execute(
            "UPDATE memory_meaning SET code = "
            "(SELECT substr(code, 1, 16) FROM memory_meaning WHERE rowid = :low) "
            "WHERE rowid > :low",
            {"low": low},
        )
    assert ids(recall(store, identity, BROKER_QUESTION)) == {broker}


def test_an_oversized_code_is_never_loaded(store: Store, identity: Identity) -> None:
    """The scan and the weighing test a code's type and length in SQL, which
    reads neither: told to load no value past 64 KiB, SQLite loads none, and
    recall answers as it would with the code missing."""
    broker, other = write(store, identity.project, BROKER, "Kafka keeps seven days of orders")
    with store.write() as db:
        db.execute(
            "UPDATE memory_meaning SET code = zeroblob(1048576) WHERE rowid = ?",
            (min(rowids(store, [broker])),),
        )
    store.db.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1 << 16)
    hits = {h.memory.id: h for h in recall(store, identity, "kafka orders")}
    assert set(hits) == {broker, other} and hits[broker].parts["meaning"] > 0


def test_a_question_its_words_answer_gains_no_strangers(store: Store, identity: Identity) -> None:
    """A note near the question in meaning, but less near than the one that
    holds its words, is not admitted."""
    literal = write(store, identity.project, "Database migrations run on a replica first")
    near_one = "Schema changes to the orders table lock writes for minutes"
    write(store, identity.project, near_one, BROKER, *OTHERS)
    meant = meaning.question("database migrations")
    assert meant is not None
    stranger = meant.known * vectors.cosine(
        meant.vector, vectors.code(vectors.embed(near_one) or [])
    )
    assert stranger > meaning.FLOOR  # near enough to join a question its words do not answer
    assert ids(recall(store, identity, "database migrations")) == set(literal)


@pytest.mark.parametrize("covered", [1.0, 0.9, 0.75, 0.5, 0.0])
def test_the_less_of_the_question_its_words_found_the_further_strangers_may_be(
    store: Store, identity: Identity, covered: float
) -> None:
    """A memory found by meaning alone joins when it is nearer than
    `admission` says for `covered`, the largest share of the question's words
    a candidate holds: none when one holds them all, every memory nearer than
    the floor when one holds half or less."""
    (literal,) = write(store, identity.project, "Database migrations run on a replica first")
    (near_one,) = write(store, identity.project, "Schema changes to the orders table lock writes")
    write(store, identity.project, BROKER, *OTHERS)
    meant = meaning.question("database migrations")
    assert meant is not None
    by_id = {memory_id: rowid for memory_id, rowid in store.query("SELECT id, rowid FROM memories")}
    nearness = meaning.cosines(store, meant, by_id.values())
    closest, stranger = nearness[by_id[literal]], nearness[by_id[near_one]]
    assert meaning.FLOOR < stranger < closest  # nearer than the floor, less than the literal one
    found = {by_id[literal]: ((by_id[literal],), "words")}

    def read(rowids: list[int]) -> list[tuple[int]]:
        return [(rowid,) for rowid in rowids]

    newest = max(by_id.values())
    meaning.widen(store, meant, found, newest, read, covered)  # pyright: ignore[reportArgumentType]
    joined = set(found) - {by_id[literal]}
    bar = meaning.admission(covered, closest)
    assert joined == {r for r, near in nearness.items() if near > bar} - {by_id[literal]}
    assert (by_id[near_one] in joined) == (stranger > bar)
    if covered in (0.0, 0.5, 1.0):  # wide open at half or less, shut when all are held
        assert (by_id[near_one] in joined) == (covered <= meaning.OPEN)


def test_admission_runs_from_the_floor_to_the_nearest_word_found_memory() -> None:
    closest = 0.7
    bars = [meaning.admission(c / 20, closest) for c in range(21)]
    assert bars == sorted(bars)  # the more the words hold, the higher the bar
    assert set(bars[: int(meaning.OPEN * 20) + 1]) == {meaning.FLOOR}
    assert bars[-1] == pytest.approx(closest)
    assert meaning.admission(0.75, closest) == pytest.approx(
        meaning.FLOOR + (0.75 - meaning.OPEN) / (1 - meaning.OPEN) * (closest - meaning.FLOOR)
    )
    # No word-found memory nearer than the floor: the floor, whatever the words hold.
    assert {meaning.admission(c / 4, 0.05) for c in range(5)} == {meaning.FLOOR}


def test_a_question_of_unknown_words_is_near_nothing(store: Store, identity: Identity) -> None:
    write(store, identity.project, BROKER, *OTHERS)
    assert recall(store, identity, "what zorbquux frobnitzel do we use") == []


def test_a_literal_memory_still_outranks_one_near_in_meaning(
    store: Store, identity: Identity
) -> None:
    literal, _related = write(
        store, identity.project, "The request timeout is 60s", "Cache warmup halves p95 latency"
    )
    ranked = [h.memory.id for h in recall(store, identity, "timeout")]
    assert ranked[0] == literal


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_a_forgotten_memory_loses_its_code(store: Store, identity: Identity, mode: str) -> None:
    gone, kept = write(store, identity.project, BROKER, "Kafka topics keep seven days of orders")
    assert coded(store) == rowids(store, [gone, kept])
    correct.forget(store, gone, mode=mode, reason="wrong", actor=PERSON)
    assert coded(store) == rowids(store, [kept])
    assert gone not in ids(recall(store, identity, BROKER_QUESTION))


def test_an_edit_recodes_the_memory(store: Store, identity: Identity) -> None:
    (memory_id,) = write(store, identity.project, "Office plants are watered on Thursdays")
    before = store.query("SELECT code FROM memory_meaning")[0][0]
    with store.write() as db:
        db.execute("UPDATE memories SET summary = ? WHERE id = ?", (BROKER, memory_id))
    after = store.query("SELECT code FROM memory_meaning")[0][0]
    expected = vectors.embed(f"{BROKER}  []")
    assert expected is not None
    assert after != before and after == vectors.code(expected)


def test_a_bulk_write_codes_every_row(store: Store, identity: Identity) -> None:
    written = bulk.insert_many(
        store, [make_memory(identity.project, f"{BROKER}, batch {n}") for n in range(12)], PERSON
    )
    assert coded(store) == rowids(store, [result.id for result in written])
    assert codes.uncoded(store.db) == 0


def test_a_memory_written_without_the_table_is_weighed_from_its_text_then_coded(
    store: Store, identity: Identity, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written while the vector table was missing, a memory has no code: recall
    weighs its nearness from its text all the same, and `maintain --vacuum`
    codes it."""
    _swap_table(monkeypatch, str(tmp_path / "missing.dat"))
    (late,) = write(store, identity.project, "The orders consumer on Kafka lags behind")
    _swap_table(monkeypatch, SHIPPED)
    (coded_one,) = write(store, identity.project, "The orders consumer on Kafka falls behind")
    assert coded(store) == rowids(store, [coded_one])
    hits = {h.memory.id: h for h in recall(store, identity, "orders consumer")}
    assert set(hits) == {late, coded_one}
    assert hits[late].parts["meaning"] > 0
    maintain(store, PERSON, vacuum=True)
    assert coded(store) == rowids(store, [late, coded_one])


def test_codes_another_vector_table_made_are_not_read_until_made_again(
    store: Store, identity: Identity
) -> None:
    """Codes from another build of the vector table (an older release's) say
    nothing of today's question: a recall that may not write (a read-only
    store) scans none of them and weighs what the words found from its text;
    the next recall that may codes every memory again first, and the memory
    only meaning finds is found again."""
    (broker,) = write(store, identity.project, BROKER)
    write(store, identity.project, *OTHERS)
    assert ids(recall(store, identity, BROKER_QUESTION)) >= {broker}
    with store.write() as db:
        db.execute("UPDATE meaning_source SET vectors = 'another build'")
    assert codes.stale(store.db)
    with Store.open(store.root, read_only=True) as reader:
        assert recall(reader, identity, BROKER_QUESTION) == []
        (by_words,) = recall(reader, identity, "orders consumer group")
        assert by_words.memory.id == broker and by_words.parts["meaning"] > 0
    assert codes.stale(store.db)
    assert ids(recall(store, identity, BROKER_QUESTION)) >= {broker}
    assert not codes.stale(store.db)
    assert codes.source(store.db) == vectors.identity()


def test_a_dropped_record_of_the_codes_source_leaves_recall_working_by_text(
    store: Store, identity: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    (broker,) = write(store, identity.project, BROKER)
    with store.write() as db:
        db.execute("DROP TABLE meaning_source")
    assert codes.source(store.db) is None and codes.stale(store.db)

    # No recall codes them again while the record is missing (`doctor
    # --repair` restores it): each would code every memory for nothing.
    def never(db: object) -> int:
        raise AssertionError("recoded")

    monkeypatch.setattr(codes, "recode", never)
    (by_words,) = recall(store, identity, "orders consumer group")
    assert by_words.memory.id == broker and by_words.parts["meaning"] > 0


def test_with_no_vector_table_installed_no_code_is_stale(
    store: Store, identity: Identity, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(store, identity.project, BROKER)
    _swap_table(monkeypatch, str(tmp_path / "missing.dat"))
    assert vectors.identity() is None and not codes.stale(store.db)


def test_an_import_codes_what_it_wrote(store: Store, identity: Identity, tmp_path: Path) -> None:
    lines = [
        json.dumps(make_memory(identity.project, text).to_dict()) for text in (BROKER, *OTHERS)
    ]
    report = jsonl.import_lines(store, lines, project=identity.project or "", actor=PERSON)
    assert coded(store) == rowids(store, list(report.created))


def _swap_table(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    monkeypatch.setattr(vectors, "PATH", path)
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    vectors._vector.cache_clear()  # pyright: ignore[reportPrivateUsage]


@pytest.fixture(autouse=True)
def shipped_table_after() -> Iterator[None]:
    yield
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    vectors._vector.cache_clear()  # pyright: ignore[reportPrivateUsage]


def test_without_the_vector_table_recall_works_by_words(
    store: Store, identity: Identity, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _swap_table(monkeypatch, str(tmp_path / "missing.dat"))
    (broker,) = write(store, identity.project, BROKER)
    assert coded(store) == set()
    assert ids(recall(store, identity, "kafka consumer")) == {broker}
    assert recall(store, identity, BROKER_QUESTION) == []


@pytest.mark.parametrize(
    ("nearness", "nearest", "promoted", "part"),
    [
        (0.5, 0.5, True, 1.0),  # the nearest itself
        (0.2, 0.5, True, 0.4),  # TIER of the nearest
        (0.19, 0.5, False, 0.38),
        (0.09, 0.09, False, 0.45),  # faint: neither promoted nor inflated to 1
        (0.11, 0.15, True, 0.55),  # none past FLOOR: TIER of FLOOR decides
    ],
)
def test_nearness_is_scaled_to_the_nearest_and_faint_nearness_stays_faint(
    nearness: float, nearest: float, promoted: bool, part: float
) -> None:
    assert meaning.near(nearness, nearest) is promoted
    assert meaning.scaled(nearness, nearest) == pytest.approx(part)
