"""When a buffer seals (exactly at its budget), and the labels a node gets."""

from __future__ import annotations

import pytest

from tree_ring.tree import summarise
from tree_ring.tree.nodes import Buffer, TreeConfig
from tree_ring.tree.seal import gate_reached

CFG = TreeConfig(
    input_token_budget=100,
    output_token_budget=50,
    summary_fanout=4,
    flush_age_secs=60,
    deferred=False,
)


@pytest.mark.parametrize(
    ("level", "items", "tokens", "sealed"),
    [
        (0, 3, 99, False),
        (0, 3, 100, True),  # the leaves' token budget, exactly
        (0, 1, 500, True),
        (0, 0, 500, False),  # nothing to seal
        (1, 3, 10_000, False),
        (1, 4, 0, True),  # the fan-out, exactly
        (2, 5, 0, True),
        (1, 0, 0, False),
    ],
)
def test_gate_at_the_budget_and_the_fanout(
    level: int, items: int, tokens: int, sealed: bool
) -> None:
    buf = Buffer("t", level, tuple(f"n{i}" for i in range(items)), items, tokens, None)
    assert gate_reached(buf, CFG) is sealed


def test_labels_rank_by_count_then_first_appearance() -> None:
    text = "Redis and Kafka. Kafka again and Kafka and Redis and Nginx"
    # "Redis" and "Kafka" opening a sentence are ordinary capitals; later they count.
    assert summarise.extract_labels(text) == ((), ("kafka", "redis", "nginx"))


def test_labels_find_paths_identifiers_and_distinctive_names() -> None:
    text = "Use WAL in src/app.py and call parse_time. Then GitHub does it. Postgres is fine"
    assert summarise.extract_labels(text) == (
        ("path:src/app.py", "code:parse_time"),
        ("wal", "github"),
    )


def test_labels_stop_at_sixteen() -> None:
    text = " ".join(f"mod{i}.run" for i in range(20))
    entities, _ = summarise.extract_labels(text)
    assert entities == tuple(f"code:mod{i}.run" for i in range(16))


def test_resolve_labels_by_strategy() -> None:
    inputs = [
        summarise.SummaryInput("a", "t", 1.0, "x", "y", ("code:a", "code:b"), ("x",)),
        summarise.SummaryInput("b", "t", 1.0, "x", "y", ("code:b",), ("y", "x")),
    ]
    assert summarise.resolve_labels("inherit", inputs, "use Redis here") == (
        ("code:b", "code:a"),
        ("x", "y"),
    )
    assert summarise.resolve_labels("extract", inputs, "use Redis here") == ((), ("redis",))
    assert summarise.resolve_labels("none", inputs, "use Redis here") == ((), ())
