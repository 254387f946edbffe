"""What a forget takes with it is found through the full-text index
(`store/holders.refused_rows`): the index names the candidates, and only
those have their keys computed. Looking only where the index points must
find every row that looking at every row finds, whatever spelling of the
claim a row is written in: camelCase, digits glued to the letters beside
them or apart, glued in part."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest
from helpers import PERSON, make_memory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tree_ring.harness import guidance
from tree_ring.model.identifiers import glued, spaced
from tree_ring.store import holders, tombstones
from tree_ring.store.db import Store
from tree_ring.write import pipeline

WORDS = ["run", "2fa", "check", "on", "v2", "api", "is", "1", "for", "the", "pods", "max",
         "unavailable", "3", "x9", "replicas", "to"]  # fmt: skip
claims = st.lists(st.sampled_from(WORDS), min_size=2, max_size=7)
FIXTURE = HealthCheck.function_scoped_fixture  # one store for every example
EXAMPLES = count()  # each example its own project, shrinking's repeats too


def camel(words: list[str]) -> str:
    return "".join(word[:1].upper() + word[1:] for word in words)


def spellings(words: list[str], joins: list[bool]) -> list[str]:
    """The claim as written, as one identifier, its identifier's words,
    glued, and with some neighbours written together."""
    text = " ".join(words)
    partly = words[0] + "".join(
        ("" if join else " ") + word for word, join in zip(words[1:], joins, strict=False)
    )
    return [text, camel(words), spaced(camel(words)), glued(text), partly, camel(words).lower()]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root: Path = tmp_path_factory.mktemp("holders")
    guidance.init_project(root)
    return Store.open(root)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(claims, claims, st.lists(st.booleans(), min_size=6, max_size=6))
def test_the_index_names_every_row_a_forget_refuses(
    store: Store, forgotten: list[str], other: list[str], joins: list[bool]
) -> None:
    project = f"p{next(EXAMPLES)}"
    memory = make_memory(project, " ".join(forgotten))
    rows = [make_memory(project, text) for text in spellings(forgotten, joins)]
    rows += [make_memory(project, text) for text in spellings(other, joins)]
    with store.write() as db:
        for row in [memory, *rows]:
            pipeline.insert_prepared(db, row, PERSON)
        wanted = set(tombstones.forget_keys(memory))
        everywhere = {r.id for r in rows if not wanted.isdisjoint(tombstones.check_keys(r))}
        found = {r.id for r in holders.refused_rows(db, memory)}
    assert found == everywhere
    assert memory.id not in everywhere and len(everywhere) >= 1  # its own copy at least
