"""The training half of the vectors' build (scripts/learn_vectors.py), the
parts that need no model: which sentences it reads, which words join the
vocabulary, and that a sentence is read as recall reads a question."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import learn_vectors as learn  # pyright: ignore[reportMissingImports]

TRANSLATION = """Package: redis-server
Description-md5: 0001
Description-en: Persistent key-value database with network interface
 Redis is a key-value database in a similar vein to memcache. It keeps
 the dataset in memory.
 .
 This package contains the server.

Package: redis-tools
Description-md5: 0001
Description-en: Persistent key-value database with network interface (client)
 Redis is a key-value database in a similar vein to memcache. It keeps
 the dataset in memory.
 .
 This package contains the server.

Package: tiny
Description-md5: 0002
Description-en: ok
 * Two words
"""

WORDNET = {
    "data.noun": (
        "  1 This software and database is being provided\n"
        "00001 05 n 02 broker 0 agent 0 000 | a businessman who buys or sells for another; "
        '"the broker sold the shares"\n'
        "00002 05 n 01 zebrafinch 0 000 | a small finch\n"
    ),
    "data.verb": "",
    "data.adj": "",
    "data.adv": "",
}


def test_each_package_gives_its_summary_and_each_distinct_description_its_sentences() -> None:
    assert learn.sentences(TRANSLATION) == [
        "redis-server: Persistent key-value database with network interface",
        "Redis is a key-value database in a similar vein to memcache.",
        "It keeps the dataset in memory.",
        "This package contains the server.",
        "redis-tools: Persistent key-value database with network interface (client)",
    ]  # the second description is the first's, read once; "tiny: ok" is too short


def test_common_words_give_their_definition_and_every_sense_its_examples() -> None:
    zipf = {"broker": 4.0, "agent": 4.5}
    assert learn.glosses(WORDNET, zipf) == [
        "broker, agent: a businessman who buys or sells for another",
        "the broker sold the shares",
    ]  # "zebrafinch" is not common: its definition is not read


def test_words_the_vocabulary_lacks_join_it_by_how_many_sentences_use_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(learn, "NEW_TERM_SENTENCES", 2)
    corpus = ["Redis and postgres", "redis again", "postgres, redis", "only xyzzy here", "a 60s b"]
    assert learn.new_terms(corpus, {"and", "again", "only", "here"}, 10) == ["redis", "postgres"]
    assert learn.new_terms(corpus, {"and"}, 1) == ["redis"]


def test_a_sentence_is_read_as_recall_reads_a_question() -> None:
    terms = ["message broker", "message", "broker", "throttle", "lag"]
    read = learn.reader(terms)
    # The longest phrase first, a word's base form when the word is not a
    # term (a phrase is read as written), and a word no form of which is a
    # term left out.
    assert read("Message broker throttled the zorbquux lag") == [0, 3, 4]
    assert read("message  BROKERS") == [1, 2]
