"""A consolidation's tags: its sources' five most common, then `consolidation`;
none of them for a sensitive group."""

from __future__ import annotations

from helpers import make_memory

from tree_ring.model.record import Memory
from tree_ring.tree.summarise import consolidation_tags


def sources(*tag_sets: tuple[str, ...]) -> list[Memory]:
    return [make_memory("p-1", f"source {n}", tags=tags) for n, tags in enumerate(tag_sets)]


def test_the_five_most_common_tags_ties_by_name() -> None:
    found = consolidation_tags(
        sources(
            ("db", "cache", "zeta", "alpha"),
            ("db", "cache", "zeta", "beta"),
            ("db", "cache", "gamma", "delta"),
            ("db", "epsilon"),
        ),
        sensitive=False,
    )
    # db 4, cache 3, zeta 2, then four tags seen once: alpha and beta by name.
    assert sorted(found) == ["alpha", "beta", "cache", "consolidation", "db", "zeta"]
    assert len(set(found)) == len(found)


def test_fewer_tags_than_five_are_all_kept() -> None:
    found = consolidation_tags(sources(("db",), ("db", "ops")), sensitive=False)
    assert sorted(found) == ["consolidation", "db", "ops"]


def test_a_source_tagged_consolidation_does_not_repeat_it() -> None:
    found = consolidation_tags(sources(("consolidation", "db")), sensitive=False)
    assert sorted(found) == ["consolidation", "db"]


def test_a_sensitive_group_carries_no_source_tags() -> None:
    assert list(consolidation_tags(sources(("db", "oncall")), sensitive=True)) == ["consolidation"]
