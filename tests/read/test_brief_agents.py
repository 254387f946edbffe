"""An agent's unreviewed rows take at most three of the brief's lines while
rows someone vouched for want the rest (`read/brief_agents.py`): a session
that captures scars of its own, however many, cannot push the person's rules
out of the briefs its harness reads. Lines the vouched rows leave empty go
back to the agent's rows, and every row stands in the brief's order."""

from __future__ import annotations

import pytest
from helpers import make_memory

from tree_ring.model.identity import Identity
from tree_ring.read import brief
from tree_ring.store import rows
from tree_ring.store.db import Store

AGENT_ROW = {"origin": "claude-code", "scope": "agent", "agent_profile": "claude-code"}


def add(store: Store, memories: list[object]) -> list[str]:
    with store.write() as conn:
        for memory in memories:
            rows.insert(conn, memory)  # pyright: ignore[reportArgumentType]
    return [m.id for m in memories]  # pyright: ignore[reportAttributeAccessIssue]


def agents(project: str, count: int, word: str = "cache", **fields: object) -> list[object]:
    """`count` scars of the agent's own partition, each newer than the last."""
    return [
        make_memory(
            project,
            f"Warning {n}: the {word} folder c{n} corrupts when a build is interrupted",
            ring="scar",
            created_at=f"2026-12-01T10:{n // 60:02d}:{n % 60:02d}.000000Z",
            **(AGENT_ROW | fields),
        )
        for n in range(count)
    ]


def people(project: str, count: int, ring: str = "cambium") -> list[object]:
    return [
        make_memory(project, f"Person rule {n}: the {n}th step runs before deploys", ring=ring)
        for n in range(count)
    ]


def shown(store: Store, identity: Identity) -> list[str]:
    return list(brief.build_brief(store, identity).ids)


def test_the_persons_heartwood_and_scar_keep_their_lines(store: Store, identity: Identity) -> None:
    p = identity.project
    [rule] = add(store, [make_memory(p, "Never run migrations on the primary", ring="heartwood")])
    [scar] = add(store, [make_memory(p, "Credentials live only in the vault", ring="scar")])
    mine = add(store, agents(p, 8))
    got = shown(store, identity)
    assert len(got) == brief.MAX_LINES and {rule, scar} <= set(got)
    # The lines they leave go to the agent's newest rows, in the brief's order
    # (scars newest first: the person's was written last).
    assert got == [scar, *reversed(mine[2:]), rule]
    assert brief.build_brief(store, identity).text.splitlines()[0].endswith(brief.MORE)


@pytest.mark.parametrize(("vouched", "kept"), [(0, 8), (2, 6), (5, 3), (7, 3), (12, 3)])
def test_the_agents_rows_keep_at_most_three_lines_while_others_wait(
    store: Store, identity: Identity, vouched: int, kept: int
) -> None:
    p = identity.project
    theirs = set(add(store, people(p, vouched)))
    mine = set(add(store, agents(p, 10)))
    got = shown(store, identity)
    assert len(got) == brief.MAX_LINES
    assert len(set(got) & mine) == kept and len(set(got) & theirs) == brief.MAX_LINES - kept


def test_the_filter_runs_before_the_cap(store: Store, identity: Identity) -> None:
    """Three hundred of the agent's scars rank ahead of the person's one
    cambium row; the row is still read, and shown."""
    p = identity.project
    [rule] = add(store, [make_memory(p, "Releases are cut from main on Mondays")])
    add(store, agents(p, 300))
    got = shown(store, identity)
    assert rule in got and len(got) == brief.MAX_LINES


def test_a_row_a_person_reviewed_is_vouched_for(store: Store, identity: Identity) -> None:
    p = identity.project
    reviewed = set(add(store, agents(p, 6, "build", reviewed_by="person")))
    unreviewed = set(add(store, agents(p, 6)))
    got = set(shown(store, identity))
    # The six a person reviewed stand as a person's rows: they want six lines,
    # the unreviewed ones keep three of the eight.
    assert len(got & reviewed) == 5 and len(got & unreviewed) == 3


def test_three_agent_rows_or_fewer_keep_every_line(store: Store, identity: Identity) -> None:
    p = identity.project
    ids = add(store, people(p, 4, "scar")) + add(store, agents(p, 3))
    assert set(shown(store, identity)) == set(ids)


@pytest.mark.parametrize(
    "fields",
    [
        {"origin": "tree-ring", "source_type": "consolidation"},  # its own summaries
        {"origin": "import"},  # rows it imported into its partition
    ],
)
def test_what_an_agent_keeps_in_its_partition_counts_as_its_own(
    store: Store, identity: Identity, fields: dict[str, str]
) -> None:
    p = identity.project
    theirs = set(add(store, people(p, 8)))
    mine = set(add(store, agents(p, 8, "summary", **fields)))
    got = set(shown(store, identity))
    assert len(got & mine) == 3 and len(got & theirs) == 5
