"""The tree's budgets as the settings table holds them: floors, text, defaults."""

from __future__ import annotations

from typing import Any

import pytest

from tree_ring.model.errors import UsageError
from tree_ring.store import settings
from tree_ring.store.db import Store
from tree_ring.tree import nodes


def put(store: Store, **values: Any) -> None:
    with store.write() as db:
        for key, value in values.items():
            settings.write(db, f"tree.{key}", value)


@pytest.mark.parametrize(
    ("stored", "field", "read"),
    [
        ({"summary_fanout": 1}, "summary_fanout", 2),  # a fan-out of one never stops
        ({"summary_fanout": 2}, "summary_fanout", 2),
        ({"summary_fanout": 3}, "summary_fanout", 3),
        ({"input_token_budget": 0}, "input_token_budget", 1),
        ({"input_token_budget": 1}, "input_token_budget", 1),
        ({"output_token_budget": -4}, "output_token_budget", 1),
        ({"output_token_budget": 2}, "output_token_budget", 2),
        ({"flush_age_secs": -1}, "flush_age_secs", 0),
        ({"flush_age_secs": 0}, "flush_age_secs", 0),
        ({"flush_age_secs": 1}, "flush_age_secs", 1),
        ({"input_token_budget": 2.7}, "input_token_budget", 2),
        ({"input_token_budget": "lots"}, "input_token_budget", 1),  # not a number: the floor
        ({"summary_fanout": None}, "summary_fanout", 2),
        ({"deferred": 1}, "deferred", True),
        ({"deferred": 0}, "deferred", False),
    ],
)
def test_a_stored_value_is_read_within_its_floor(
    store: Store, stored: dict[str, Any], field: str, read: Any
) -> None:
    put(store, **stored)
    assert getattr(nodes.config(store.db), field) == read


@pytest.mark.parametrize(
    ("key", "text", "field", "read"),
    [
        ("input_token_budget", "2000", "input_token_budget", 2_000),
        ("tree.input_token_budget", "1", "input_token_budget", 1),
        ("output_token_budget", "1", "output_token_budget", 1),
        ("summary_fanout", "2", "summary_fanout", 2),
        ("flush_age_secs", "0", "flush_age_secs", 0),
        ("deferred", "true", "deferred", True),
        ("deferred", "YES", "deferred", True),
        ("deferred", "on", "deferred", True),
        ("deferred", "1", "deferred", True),
        ("deferred", "off", "deferred", False),
        ("deferred", "0", "deferred", False),
        ("deferred", " false ", "deferred", False),
    ],
)
def test_set_config_takes_text(store: Store, key: str, text: str, field: str, read: Any) -> None:
    if field == "deferred":
        put(store, deferred=not read)
    with store.write() as db:
        changed = nodes.set_config(db, key, text)
    assert getattr(changed, field) == read
    assert getattr(nodes.config(store.db), field) == read
    assert settings.read(store.db, f"tree.{field}") == read


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("summary_fanout", "1", "summary_fanout is a whole number of at least 2"),
        ("input_token_budget", "0", "input_token_budget is a whole number of at least 1"),
        ("output_token_budget", "0", "output_token_budget is a whole number of at least 1"),
        ("flush_age_secs", "-1", "flush_age_secs is a whole number of at least 0"),
        ("input_token_budget", "2k", "input_token_budget is a whole number of at least 1"),
        ("deferred", "maybe", "deferred is true or false"),
        ("budget", "3", "unknown tree setting 'budget'; use one of: input_token_budget, "
         "output_token_budget, summary_fanout, flush_age_secs, deferred"),
    ],
)  # fmt: skip
def test_set_config_refuses_bad_text_and_writes_nothing(
    store: Store, key: str, text: str, message: str
) -> None:
    before = nodes.config(store.db)
    with pytest.raises(UsageError) as caught, store.write() as db:
        nodes.set_config(db, key, text)
    assert str(caught.value).startswith(message)
    assert nodes.config(store.db) == before
