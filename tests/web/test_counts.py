"""The counts the viewer shows are exact, and read the indexes made for them.

A few rows a person sees sit beside hundreds nobody may (superseded,
forgotten, rejected, sensitive, another project's), written after them so
they come first newest-first. Every count the pages, `status` and the inbox
give is the exact set of visible rows; and the statements behind the rings,
a page filtered to one ring, to rows that wait or to an agent's rows, the
review queue and the inbox read their partial index (EXPLAIN QUERY PLAN), never the whole table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import PERSON, make_memory
from web_support import insert

from tree_ring.model import project
from tree_ring.model.record import RINGS, Memory, now_iso
from tree_ring.read import listing
from tree_ring.review import inbox
from tree_ring.review import queue as review
from tree_ring.store import forgotten, rows, sql, tombstones
from tree_ring.store import rings as ring_counts
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.upkeep import census
from tree_ring.web import data, pages, queue, status
from tree_ring.web import inbox as inbox_page
from tree_ring.web.site import Site
from tree_ring.write import correct

N = 150  # rows of each kind nobody may see
OTHER = "other-project-0c4d2a"
AGENT = {"origin": "claude-code", "scope": "agent", "agent_profile": "claude-code"}


class Seeded:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.pid = project.load_project_id(root)
        self.ids: dict[str, set[str]] = {}
        self.tombstone_keys = {"forgotten": 0, "rejected": 0}

    def add(self, label: str, memories: list[Memory]) -> list[Memory]:
        insert(self.root, memories)
        self.ids.setdefault(label, set()).update(m.id for m in memories)
        return memories

    def identity(self) -> Any:
        return Site.open(str(self.root), {}).identity


def _rows(pid: str | None, label: str, n: int, **fields: Any) -> list[Memory]:
    return [make_memory(pid, f"{label} row {i} about the deploy", **fields) for i in range(n)]


def _agentish(pid: str | None, label: str, n: int, **fields: Any) -> list[Memory]:
    """Half of them an agent's, which the inbox would list if they were visible."""
    half = n // 2
    return _rows(pid, label, half, **fields) + _rows(
        pid, f"{label} agent", n - half, **AGENT, **fields
    )


@pytest.fixture
def seeded(project_root: Path) -> Seeded:
    s = Seeded(project_root)
    pid = s.pid
    # What a person sees.
    for ring, n in (("scar", 2), ("seed", 1), ("cambium", 3), ("heartwood", 1)):
        s.add(f"live {ring}", _rows(pid, f"live {ring}", n, ring=ring))
    s.add("pending", _rows(pid, "pending", 2, ring="inner", trust="pending"))
    s.add("disputed", _rows(pid, "disputed", 1, ring="outer", trust="disputed"))
    s.add("agent", _rows(pid, "agent note", 3, ring="cambium", **AGENT))
    s.add("sensitive", _rows(pid, "sensitive", 2, ring="scar", sensitivity="private"))
    # What nobody sees, newer than all of it.
    now = now_iso()
    s.add(
        "superseded",
        _agentish(
            pid, "old", N, ring="scar", retired_at=now, superseded_by="mem_new", valid_to=now
        ),
    )
    forgotten = s.add("forgotten", _agentish(pid, "forgotten", N, ring="scar"))
    rejected = s.add("rejected", _agentish(pid, "rejected", N, ring="scar", trust="pending"))
    s.add("hidden", _agentish(pid, "hidden", N, ring="scar", sensitivity="secret"))
    s.add("other", _agentish(OTHER, "other", N, ring="scar", trust="pending"))
    with Store.open(project_root) as store, store.write() as db:
        for m in forgotten:
            correct.forget_in(db, rows.get(db, m.id), "redact", "not true", PERSON, now)
            s.tombstone_keys["forgotten"] += len(tombstones.forget_keys(m))
        for m in rejected:
            review.reject_in(db, rows.get(db, m.id), "wrong", PERSON, now)
            s.tombstone_keys["rejected"] += len(tombstones.forget_keys(m))
    return s


def _site(root: Path) -> tuple[Site, Any]:
    site = Site.open(str(root), {})
    session = site.session(site.new_session())
    assert session is not None
    return site, session


def test_rings_count_every_visible_row_and_hide_the_sensitive(seeded: Seeded) -> None:
    ids = seeded.ids
    with Store.open(seeded.root) as store:
        for shown in (False, True):
            view = View(include_sensitive=shown)
            drawn = ring_counts.rings(store.db, seeded.identity(), view, cap=4 * N)
            expected = {ring: {} for ring in RINGS} | {
                "scar": {"accepted": 2 + (2 + N if shown else 0)},
                "seed": {"accepted": 1},
                "cambium": {"accepted": 3 + 3},
                "heartwood": {"accepted": 1},
                "inner": {"pending": 2},
                "outer": {"disputed": 1},
            }
            assert {r: c.by_trust for r, c in drawn.counts.items()} == expected
            assert {r: c.total for r, c in drawn.counts.items()} == {
                r: sum(t.values()) for r, t in expected.items()
            }
            assert drawn.hidden == (0 if shown else 2 + N)
            marked = {mark.id for marks in drawn.marks.values() for mark in marks}
            visible = set().union(
                *(ids[k] for k in ids if k.startswith("live") or k in ("pending", "disputed")),
                ids["agent"],
                *([ids["sensitive"], ids["hidden"]] if shown else []),
            )
            assert marked == visible


def test_a_page_filtered_to_one_ring_is_exactly_its_visible_rows(seeded: Seeded) -> None:
    identity = seeded.identity()
    with Store.open(seeded.root) as store:
        for ring, trust, origin, expected in (
            ("scar", None, None, seeded.ids["live scar"]),
            ("scar", "any", None, seeded.ids["live scar"]),
            ("inner", "pending", None, seeded.ids["pending"]),
            ("cambium", None, None, seeded.ids["live cambium"] | seeded.ids["agent"]),
            (None, "pending", None, seeded.ids["pending"]),
            (None, "disputed", None, seeded.ids["disputed"]),
            (None, None, "claude-code", seeded.ids["agent"]),
            (None, "pending", "claude-code", set[str]()),
            ("cambium", None, "person", seeded.ids["live cambium"]),
        ):
            filters = data.Filters(ring=ring, trust=trust, origin=origin)
            found = listing.list_page(
                store,
                identity,
                data.memories_view(View(), filters),
                whole_project=True,
                limit=50,
                count_cap=data.COUNT_CAP,
                **filters.listing(),
            )
            assert {m.id for m in found.memories} == expected
            assert found.total == len(expected)


def test_the_queue_the_inbox_and_the_census_are_exact(seeded: Seeded) -> None:
    ids, pid = seeded.ids, seeded.pid
    with Store.open(seeded.root) as store:
        waiting = ids["pending"] | ids["disputed"]
        assert review.queue_size(store.db, pid) == len(waiting)
        assert {w.memory.id for w in review.queue(store.db, pid)} == waiting
        # An agent's sensitive rows are counted and withheld, not left out unsaid.
        sensitive = len(ids["hidden"]) - len(ids["hidden"]) // 2
        assert inbox.count(store, pid) == len(ids["agent"]) + sensitive
        found = inbox.unseen(store, pid, limit=500)
        assert {i.memory.id for i in found.items} == ids["agent"]
        assert found.withheld == sensitive
        counts = census.census(store.db, pid)
        live_ids = set().union(*(ids[k] for k in ids if k.startswith("live")))
        live_ids |= ids["agent"] | ids["sensitive"] | ids["hidden"]
        assert counts["live"] == len(live_ids)
        assert (counts["pending"], counts["disputed"]) == (2, 1)
        assert counts["retired_by_reason"] == {"redacted": N, "rejected": N, "superseded": N}
        assert counts["retired"] == 3 * N
        assert counts["sensitive"] == 2 + N
        assert counts["tombstones"] == sum(seeded.tombstone_keys.values())
        assert counts["other_projects"] == N
        assert forgotten.tombstone_counts(store.db, pid) == {
            kind: (N, keys) for kind, keys in seeded.tombstone_keys.items()
        }


def test_the_pages_show_the_same_counts(seeded: Seeded) -> None:
    site, session = _site(seeded.root)
    ids = seeded.ids
    rings_html = pages.rings_page(site, session, {})
    drawn = 2 + 1 + 3 + 1 + 2 + 1 + 3  # live rings, pending, disputed, agent
    # Live as `status` counts it: the pending and disputed rows wait for review.
    said = f"{drawn} memories ({drawn - 3} live, 3 waiting for review); {2 + N} sensitive hidden."
    assert said in rings_html
    review_html = queue.review_page(site, session, {})
    assert set(re.findall(r'id="w-([^"]+)"', review_html)) == ids["pending"] | ids["disputed"]
    assert '<p id="queue-size">3 waiting (oldest first).</p>' in review_html
    inbox_html = inbox_page.inbox_page(site, session, {})
    assert set(re.findall(r'id="i-([^"]+)"', inbox_html)) == ids["agent"]
    status_html = status.status_page(site, session, {})
    # The project's rows in every state, once each; another project's apart.
    every = sum(len(v) for k, v in ids.items() if k != "other")
    assert f'<span id="total">{every}</span>' in status_html
    assert f"<td>rows of other projects in this store</td><td>{N}</td>" in status_html
    live_rings = {"scar": 2 + 2 + N, "seed": 1, "cambium": 3 + 3, "heartwood": 1}
    by_ring = ", ".join(f"{ring} {n}" for ring, n in sorted(live_rings.items()))
    assert f'<span id="by-ring">{by_ring}</span>' in status_html
    assert '<a href="/review" id="queue">3 waiting</a>' in status_html


# ------------------------------------------------------------ query plans


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every SELECT on memories the code under test runs, with its parameters."""
    seen: list[tuple[str, Any]] = []
    original = sql.Db.execute

    def execute(self: sql.Db, statement: str, params: Any = ()) -> sql.Rows:
        if statement.lstrip().startswith("SELECT") and " memories" in statement:
            if not statement.startswith("SELECT max("):  # the answers cache's token
                seen.append((statement, params))
        return original(self, statement, params)

    monkeypatch.setattr(sql.Db, "execute", execute)
    yield seen


def _plans(root: Path, seen: list[tuple[str, Any]]) -> list[tuple[str, list[str]]]:
    with Store.open(root) as store:
        return [
            (statement, [row[3] for row in store.db.query(f"EXPLAIN QUERY PLAN {statement}", p)])
            for statement, p in seen
        ]


FULL_SCAN = re.compile(r"^SCAN (m|memories)\b")


@pytest.mark.parametrize(
    ("page", "index", "covering"),
    [
        ("rings", "memories_live", True),
        ("ring filter", "memories_live", False),
        ("review", "memories_waiting", False),
        ("inbox", "memories_inbox", False),
        ("waiting filter", "memories_waiting", False),
        ("agent filter", "memories_inbox", False),
    ],
)
def test_counts_and_rare_filters_read_their_index(
    seeded: Seeded,
    statements: list[tuple[str, Any]],
    page: str,
    index: str,
    covering: bool,
) -> None:
    site, session = _site(seeded.root)
    run: dict[str, Callable[[], object]] = {
        "rings": lambda: pages.rings_page(site, session, {}),
        "ring filter": lambda: pages.memories_page(site, session, {"ring": "seed"}),
        "review": lambda: queue.review_page(site, session, {}),
        "inbox": lambda: inbox_page.inbox_page(site, session, {}),
        "waiting filter": lambda: pages.memories_page(site, session, {"trust": "disputed"}),
        "agent filter": lambda: pages.memories_page(site, session, {"origin": "codex"}),
    }
    statements.clear()
    run[page]()
    plans = [(s, p) for s, p in _plans(seeded.root, statements) if "FROM memories" in s]
    assert plans, "the page read no memories"
    for statement, plan in plans:
        assert not [line for line in plan if FULL_SCAN.match(line)], (statement, plan)
        assert any(index in line for line in plan), (statement, plan)
        if index == "memories_live":  # in the index's order: nothing sorted
            assert not [line for line in plan if "TEMP B-TREE" in line], (statement, plan)
        if covering and ("count(" in statement or "sum(" in statement):
            assert any(f"COVERING INDEX {index}" in line for line in plan), (statement, plan)


def test_the_library_counts_read_their_index(
    seeded: Seeded, statements: list[tuple[str, Any]]
) -> None:
    with Store.open(seeded.root) as store:
        statements.clear()
        review.queue_size(store.db, seeded.pid)
        queue_plans = _plans(seeded.root, statements)
        statements.clear()
        inbox.count(store, seeded.pid)
        inbox_plans = _plans(seeded.root, statements)
    assert queue_plans and all(
        any("memories_waiting" in line for line in plan) for _, plan in queue_plans
    )
    count = [plan for s, plan in inbox_plans if "count(*)" in s]
    assert count and all(any("COVERING INDEX memories_inbox" in line for line in p) for p in count)
