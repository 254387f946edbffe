"""Helpers shared by the recall tests."""

from __future__ import annotations

from tree_ring.read.rungs import ladder


def match_queries(words: list[str], counts: dict[str, int] | None = None) -> list[str]:
    """The ladder's FTS5 queries, strictest first, as recall sends them to MATCH."""
    return [rung.match for rung in ladder(words, counts)]
