"""`status`'s census reads two covering indexes, never the table: a row's text
is not read to count it (at 100,000 memories the table's pass cost seven times
the indexes')."""

from __future__ import annotations

from tree_ring.store import census
from tree_ring.store.db import Store


def test_each_pass_of_the_census_reads_a_covering_index(store: Store, project_id: str) -> None:
    plans = {
        condition: " ".join(
            str(row[3])
            for row in store.db.query(
                "EXPLAIN QUERY PLAN " + census.GROUPS_SQL.format(state=state, condition=condition),
                {"project": project_id, "now": "2026-12-03T00:00:00Z"},
            )
        )
        for condition, state in census.PASSES
    }
    assert "COVERING INDEX memories_live" in plans[census.ON_RECORD]
    assert "COVERING INDEX memories_off_record" in plans[census.OFF_RECORD]
    assert not any("SCAN memories" in plan for plan in plans.values())
