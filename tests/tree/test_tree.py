"""The summary tree: seal gates, cascade, flush, deferred appends, reads, the brief line."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PERSON, REPO, CliRunner, make_memory
from tree_support import append_leaf, remember, sentence, tune, word

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.model.record import now_iso
from tree_ring.read import brief, tree_recall
from tree_ring.store import audit, rows, schema
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.tree import nodes, repair, seal
from tree_ring.tree.nodes import TreeConfig
from tree_ring.tree.summarise import (
    SummaryInput,
    clamp_to_budget,
    concat_summary,
    extract_labels,
    resolve_labels,
    token_estimate,
)
from tree_ring.write import correct

# sentence(i) is 29 characters: 8 estimated tokens. A budget of 16 seals every
# second memory into an L1 node.
PAIR = 16


def tree_of(store: Store, project_id: str) -> nodes.Tree:
    found = nodes.get_tree(store.db, "source", project_id)
    assert found is not None
    return found


def node_rows(store: Store) -> list[nodes.Node]:
    return [
        nodes.node_from_row(r)
        for r in store.conn.execute("SELECT * FROM tree_nodes ORDER BY level, sealed_at, id")
    ]


def per_level(store: Store) -> dict[int, int]:
    return dict(store.conn.execute("SELECT level, count(*) FROM tree_nodes GROUP BY level"))


# ---------------------------------------------------------------- schema


def test_migration_adds_the_tables_and_the_seed_defaults(store: Store) -> None:
    tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert {"tree_trees", "tree_nodes", "tree_buffers", "tree_leaves"} <= tables
    assert nodes.config(store.db) == TreeConfig(50_000, 5_000, 10, 604_800, False)
    stored = dict(store.conn.execute("SELECT key, value FROM settings WHERE key LIKE 'tree.%'"))
    assert stored == {
        "tree.input_token_budget": "50000",
        "tree.output_token_budget": "5000",
        "tree.summary_fanout": "10",
        "tree.flush_age_secs": "604800",
        "tree.deferred": "false",
    }


def test_an_older_store_gains_the_tree_and_rebuild_backfills_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "old"
    root.mkdir()
    older = [m for m in schema.MIGRATIONS if m[0] != "0003_summary_tree"]
    monkeypatch.setattr(schema, "MIGRATIONS", older)
    guidance.init_project(root)
    with Store.open(root) as store, store.write() as conn:
        project_id = "old-project"
        for i in range(3):
            rows.insert(conn, make_memory(project_id, sentence(i)))
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "memories" in names and "tree_nodes" not in names
    monkeypatch.undo()
    with Store.open(root) as store:
        assert nodes.get_tree(store.db, "source", project_id) is None
        tune(store, input_token_budget=PAIR)
        with store.write() as conn:
            assert repair.rebuild(conn, project_id) == 3
        assert per_level(store) == {1: 1}
        assert store.conn.execute("SELECT count(*) FROM tree_leaves").fetchone()[0] == 3


def test_sealed_nodes_are_immutable(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR)
    for i in range(2):
        remember(store, project_id, sentence(i))
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        store.conn.execute("UPDATE tree_nodes SET content = 'rewritten history'")
    content = node_rows(store)[0].content
    assert sentence(0) in content and "rewritten" not in content


# ------------------------------------------------------------ summariser


def test_token_estimate_is_ceil_of_a_quarter() -> None:
    assert [token_estimate("x" * n) for n in (0, 1, 4, 5, 4000)] == [0, 1, 1, 2, 1000]


def inp(name: str, score: float, text: str | None = None) -> SummaryInput:
    return SummaryInput(name, text if text is not None else name, score, "t0", "t1")


def test_concat_summary_is_priority_first_stable_and_prefixed() -> None:
    inputs = [inp("a", 0.2), inp("b", 0.9), inp("blank", 0.5, "  "), inp("c", 0.2)]
    assert concat_summary(inputs, 100) == "— b\n— a\n— c"
    assert concat_summary(inputs, 100) == concat_summary(list(inputs), 100)


def test_summaries_are_clamped_to_budget_times_four_characters() -> None:
    inputs = [inp(f"entry {i} " + "z" * 30, 0.5) for i in range(10)]
    for budget in (1, 5, 20):
        assert len(concat_summary(inputs, budget)) <= budget * 4
    assert clamp_to_budget("short", 10) == "short"
    assert clamp_to_budget("— first line\n— second", 4) == "— first line"  # at a line end


def test_the_regex_extractor_finds_paths_identifiers_and_names() -> None:
    entities, topics = extract_labels(
        "Moved parse_time into src/record.py. GitHub and Postgres use fetchRows; "
        "The store.write helper keeps the WAL."
    )
    assert {"path:src/record.py", "code:parse_time", "code:fetchRows", "code:store.write"} <= set(
        entities
    )
    assert {"github", "postgres", "wal"} <= set(topics)
    assert not {"moved", "the"} & set(topics)


def test_label_strategies() -> None:
    a = SummaryInput("a", "x", 0.5, "t", "t", ("code:a",), ("alpha",))
    b = SummaryInput("b", "y", 0.5, "t", "t", ("code:b", "code:a"), ("beta",))
    assert resolve_labels("inherit", [a, b], "") == (("code:a", "code:b"), ("alpha", "beta"))
    assert resolve_labels("extract", [a, b], "See src/x.py") == (("path:src/x.py",), ())
    assert resolve_labels("empty", [a, b], "See src/x.py") == ((), ())


# ------------------------------------------------------------ seal gates


def test_l0_seals_when_its_tokens_reach_the_input_budget(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR)
    first = remember(store, project_id, sentence(1))
    assert node_rows(store) == []
    l0 = nodes.buffer(store.db, tree_of(store, project_id).id, 0)
    assert (l0.item_count, l0.token_sum) == (1, 8)
    second = remember(store, project_id, sentence(2))
    [node] = node_rows(store)
    assert node.level == 1 and node.child_ids == (first, second)
    assert node.content == f"— {sentence(1)}\n— {sentence(2)}"  # equal salience: arrival order
    assert node.token_count == token_estimate(node.content) and node.leaf_count == 2
    parents = {r[0] for r in store.conn.execute("SELECT parent_id FROM tree_leaves")}
    assert parents == {node.id}
    tree = tree_of(store, project_id)
    assert nodes.buffer(store.db, tree.id, 0).item_count == 0
    assert nodes.buffer(store.db, tree.id, 1).item_ids == (node.id,)
    assert (tree.root_id, tree.max_level) == (node.id, 1)


def test_upper_levels_seal_on_fanout_and_the_root_climbs(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    for i in range(8):
        remember(store, project_id, sentence(i))
    assert per_level(store) == {1: 4, 2: 2, 3: 1}
    tree = tree_of(store, project_id)
    root = nodes.node(store.db, tree.root_id or "")
    assert root is not None and root.level == 3 == tree.max_level
    assert root.leaf_count == 8 and root.parent_id is None
    assert all(sentence(i) in root.content for i in range(8))
    assert all(n.parent_id for n in node_rows(store) if n.id != root.id)
    level2 = [n.id for n in node_rows(store) if n.level == 2]
    assert root.child_ids == tuple(level2)


def test_the_summary_puts_salient_memories_first(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR * 2)
    for i, salience in enumerate((0.1, 0.9, 0.5, 0.9)):
        remember(store, project_id, sentence(i), salience=salience)
    [node] = node_rows(store)
    order = [sentence(1), sentence(3), sentence(2), sentence(0)]
    assert node.content == "\n".join(f"— {s}" for s in order)
    assert node.score == 0.9


def test_the_output_budget_clamps_node_content(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR * 3, output_token_budget=10)
    for i in range(6):
        remember(store, project_id, sentence(i))
    assert node_rows(store) and all(len(n.content) <= 40 for n in node_rows(store))


def test_the_cascade_stops_at_the_depth_cap(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seal, "MAX_CASCADE_DEPTH", 2)
    tune(store, input_token_budget=1, summary_fanout=2)
    for i in range(12):
        remember(store, project_id, sentence(i))
    assert max(per_level(store)) == 2
    tree = tree_of(store, project_id)
    # 12 L1 nodes, 6 L2 nodes, and the L2 buffer is never sealed further.
    assert nodes.buffer(store.db, tree.id, 2).item_count == 6


def test_default_depth_cap_is_32() -> None:
    assert seal.MAX_CASCADE_DEPTH == 32


# ------------------------------------------------------------------ flush


def test_time_flush_seals_a_stale_l0_but_never_an_upper_level(
    store: Store, project_id: str
) -> None:
    tune(store, input_token_budget=1_000, summary_fanout=3)
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    with store.write() as conn:
        assert [f.sealed for f in repair.flush(conn)] == [()]  # 7 days not reached
        [flushed] = repair.flush(conn, max_age_secs=0)
    assert flushed.forced and len(flushed.sealed) == 1
    [node] = node_rows(store)
    assert node.child_ids == tuple(ids)
    tree = tree_of(store, project_id)
    assert nodes.buffer(store.db, tree.id, 1).item_count == 1  # below fan-out: waits
    with store.write() as conn:
        assert [f.sealed for f in repair.flush(conn, max_age_secs=0)] == [()]
    assert per_level(store) == {1: 1}


def test_flush_age_comes_from_the_setting(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=1_000, flush_age_secs=3_600)
    remember(store, project_id, sentence(0))
    with store.write() as conn:
        conn.execute("UPDATE tree_buffers SET oldest_at = '2020-01-01T00:00:00.000000Z'")
        [flushed] = repair.flush(conn)
    assert flushed.forced and per_level(store) == {1: 1}


def test_a_stale_buffer_seals_before_the_next_append(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=1_000)
    old = [remember(store, project_id, sentence(i)) for i in range(2)]
    with store.write() as conn:
        conn.execute("UPDATE tree_buffers SET oldest_at = '2020-01-01T00:00:00.000000Z'")
    new = remember(store, project_id, sentence(2))
    [node] = node_rows(store)
    assert node.child_ids == tuple(old)
    waiting = [
        r[0]
        for r in store.conn.execute("SELECT memory_id FROM tree_leaves WHERE parent_id IS NULL")
    ]
    assert waiting == [new]


def test_deferred_appends_stage_report_pending_and_flush_seals(
    store: Store, project_id: str
) -> None:
    tune(store, input_token_budget=PAIR, deferred=True)
    ids = [remember(store, project_id, sentence(i)) for i in range(6)]
    assert node_rows(store) == []
    [status] = tree_recall.status(store.db)["trees"]
    assert status["seal_pending"] and status["waiting_leaves"] == 6
    with store.write() as conn:
        tree = tree_of(store, project_id)
        staged = append_leaf(conn, tree, "mem_extra", 1, now_iso())
        assert staged == nodes.AppendOutcome(True, (), True)
        conn.execute("DELETE FROM tree_leaves WHERE memory_id = 'mem_extra'")
        repair.flush(conn)
    # The backlog drains in budget-sized buckets, in arrival order.
    level1 = {n.child_ids for n in node_rows(store) if n.level == 1}
    assert level1 == {tuple(ids[0:2]), tuple(ids[2:4]), tuple(ids[4:6])}


def test_an_append_below_the_gate_is_not_pending(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR)
    memory_id = remember(store, project_id, sentence(0))
    with store.write() as conn:
        tree = tree_of(store, project_id)
        again = append_leaf(conn, tree, memory_id, 8, now_iso(), deferred=True)
    assert again == nodes.AppendOutcome(False)  # already a leaf: idempotent
    assert store.conn.execute("SELECT count(*) FROM tree_leaves").fetchone()[0] == 1


# ------------------------------------------------------------ membership


def test_only_memories_every_identity_may_read_join_the_tree(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=1_000)
    shared = remember(store, project_id, sentence(0))
    remember(store, project_id, sentence(1), scope="agent", agent_profile="codex", session_id="s")
    remember(store, project_id, sentence(2), sensitivity="health")
    base = make_memory(project_id, sentence(3))
    assert nodes.eligible(base)
    for change in (
        {"trust": "pending"},
        {"scope": "session", "session_id": "s"},
        {"source_type": "consolidation"},
        {"sensitivity": "private"},
        {"expires_at": "2999-01-01T00:00:00.000000Z"},  # a sealed node would outlive it
        {"valid_to": "2999-01-01T00:00:00.000000Z"},
    ):
        assert not nodes.eligible(make_memory(project_id, sentence(3), **change))
    leaves = [r[0] for r in store.conn.execute("SELECT memory_id FROM tree_leaves")]
    assert leaves == [shared]


def test_leaves_that_stop_being_live_before_their_seal_are_left_out(
    store: Store, project_id: str
) -> None:
    tune(store, input_token_budget=24)  # three leaves
    gone, kept = (remember(store, project_id, sentence(i)) for i in range(2))
    with store.write() as conn:
        rows.update(conn, gone, expires_at="2020-01-01T00:00:00.000000Z")
    last = remember(store, project_id, sentence(2))
    [node] = node_rows(store)
    assert node.child_ids == (kept, last)
    assert sentence(1) in node.content and sentence(2) in node.content
    assert sentence(0) not in node.content
    leaves = {r[0] for r in store.conn.execute("SELECT memory_id FROM tree_leaves")}
    assert leaves == {kept, last}


def test_a_memory_that_ends_joins_no_summary(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=16)  # every second leaf seals
    ends = "2999-01-01T00:00:00.000000Z"
    lasting = [remember(store, project_id, sentence(i)) for i in range(2)]
    remember(store, project_id, sentence(2), expires_at=ends)
    remember(store, project_id, sentence(3), valid_to=ends)
    leaves = {r[0] for r in store.conn.execute("SELECT memory_id FROM tree_leaves")}
    assert leaves == set(lasting)
    assert all(
        sentence(2) not in n.content and sentence(3) not in n.content for n in node_rows(store)
    )
    assert repair.rebuild(store.db, project_id) == 2


def test_leaves_an_older_store_gave_memories_that_end_leave_every_summary(
    store: Store, project_id: str, identity: Identity
) -> None:
    # An older store summarised memories with an end: the migration takes their
    # leaves out and hides the nodes over them until a flush rebuilds them.
    from tree_ring.store import leaves

    tune(store, input_token_budget=16, summary_fanout=2)
    ids = [remember(store, project_id, sentence(i)) for i in range(8)]
    ending = ids[2]
    with store.write() as conn:
        rows.update(conn, ending, expires_at="2020-01-01T00:00:00.000000Z")
        # What the tree looked like before: a leaf for a memory that ends.
        assert conn.scalar("SELECT count(*) FROM tree_leaves WHERE memory_id = ?", (ending,)) == 1
        leaves.drop_ended(conn)
    assert (
        store.conn.execute(
            "SELECT count(*) FROM tree_leaves WHERE memory_id = ?", (ending,)
        ).fetchone()[0]
        == 0
    )
    shown = [n for n in node_rows(store) if not n.stale]
    assert shown and all(sentence(2) not in n.content for n in shown)
    assert brief.history_line(store, identity) is None  # the root is over it: hidden
    with store.write() as conn:
        repair.flush(conn, now_iso())
    assert all(not n.stale and sentence(2) not in n.content for n in node_rows(store))
    line = brief.history_line(store, identity)
    assert line is not None and sentence(2) not in line and sentence(3) in line


def test_topic_and_global_trees_share_the_engine(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR)
    ids = [remember(store, project_id, f"{sentence(i)} in src/app.py") for i in range(2)]
    now = now_iso()
    with store.write() as conn:
        world = nodes.get_or_create(conn, "global", nodes.GLOBAL_SCOPE, now)
        topic = nodes.get_or_create(conn, "topic", "code:parse_time", now)
        for tree in (world, topic):
            for memory_id in ids:
                append_leaf(conn, tree, memory_id, 8, now)
        with pytest.raises(ValueError, match="unknown tree kind"):
            nodes.get_or_create(conn, "shelf", "x", now)
        conn.execute("UPDATE tree_trees SET status = 'archived' WHERE id = ?", (topic.id,))
        archived = nodes.tree_by_id(conn, topic.id)
        assert archived is not None
        assert not append_leaf(conn, archived, "mem_x", 8, now).appended
    by_tree = {n.tree_id: n for n in node_rows(store)}
    source = tree_of(store, project_id)
    assert by_tree[source.id].entities == ("path:src/app.py",)  # source trees extract
    assert by_tree[world.id].entities == () and by_tree[world.id].topics == ()  # global: empty
    assert by_tree[world.id].content == by_tree[source.id].content


def test_rebuild_reproduces_the_incremental_tree(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    for i in range(7):
        remember(store, project_id, sentence(i))

    def shape() -> set[tuple[str, int, tuple[str, ...], str]]:
        return {(n.id, n.level, n.child_ids, n.content) for n in node_rows(store)}

    before, root = shape(), tree_of(store, project_id).root_id
    with store.write() as conn:
        assert repair.rebuild(conn, project_id) == 7
    assert shape() == before and tree_of(store, project_id).root_id == root


# ------------------------------------------------------------------ reads


def test_tree_status_shows_levels_counts_fill_and_root(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=3)
    for i in range(5):
        remember(store, project_id, sentence(i))
    result = run_cli("tree", "status", "--json")
    assert result.code == 0, result.err
    [tree] = result.json()["items"]
    assert tree["kind"] == "source" and tree["scope"] == project_id
    assert (tree["leaves"], tree["waiting_leaves"]) == (5, 1)
    level0, level1 = tree["levels"]
    assert level0["buffer"] | {"oldest_at": None} == {
        "items": 1,
        "token_sum": 8,
        "oldest_at": None,
        "fill": 0.5,
        "seal_pending": False,
        "budget_tokens": PAIR,
    }
    assert (level1["nodes"], level1["buffer"]["items"], level1["buffer"]["fanout"]) == (2, 2, 3)
    assert tree["root_id"] == node_rows(store)[-1].id
    text = run_cli("tree", "status")
    assert text.code == 0 and "L0: 1 memories waiting, 8/16 tokens (50%)" in text.out
    assert "L1: 2 nodes, 2/3 waiting (67%)" in text.out


def test_tree_show_expands_the_root_and_a_node(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    assert "no summary sealed yet" in run_cli("tree", "show").out
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    ids = [remember(store, project_id, sentence(i)) for i in range(4)]
    shown = run_cli("tree", "show", "--json").json()
    assert shown["node"]["level"] == 2 and shown["node"]["leaf_count"] == 4
    assert [c["kind"] for c in shown["items"]] == ["node", "node"]
    first = shown["items"][0]["id"]
    expanded = run_cli("tree", "show", first, "--json").json()
    assert [c["id"] for c in expanded["items"]] == ids[:2]
    assert [c["text"] for c in expanded["items"]] == [sentence(0), sentence(1)]
    text = run_cli("tree", "show", first)
    assert text.code == 0 and sentence(1) in text.out
    missing = run_cli("tree", "show", "node_9_nothere")
    assert missing.code == 1 and "no summary node" in missing.err


def test_tree_show_marks_children_that_are_no_longer_live(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    tune(store, input_token_budget=PAIR)
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    newer = remember(store, project_id, sentence(7))
    correct.supersede(store, ids[0], newer, reason="replaced", actor=PERSON)
    [node] = node_rows(store)
    children = run_cli("tree", "show", node.id, "--json").json()["items"]
    assert [(c["id"], c["live"]) for c in children] == [(ids[0], False), (ids[1], True)]


def test_tree_flush_cli(store: Store, project_id: str, run_cli: CliRunner) -> None:
    remember(store, project_id, sentence(0))
    result = run_cli("tree", "flush", "--max-age", "0", "--json")
    assert result.code == 0, result.err
    assert result.json()["sealed"] == 1 and per_level(store) == {1: 1}
    assert run_cli("tree", "flush", "--max-age", "-1").code == 2


def test_tree_rebuild_cli(store: Store, project_id: str, run_cli: CliRunner) -> None:
    tune(store, input_token_budget=PAIR)
    for i in range(4):
        remember(store, project_id, sentence(i))
    result = run_cli("tree", "rebuild", "--json")
    assert result.code == 0, result.err
    assert result.json()["rebuilt_from"] == 4 and per_level(store) == {1: 2}


def test_recall_tree_answers_from_summary_nodes(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    for i in range(4):
        remember(store, project_id, sentence(i))
    target = word(2)  # in memory 2 only: under the second L1, its L2 root
    result = run_cli("recall", "--tree", f"where is {target}?", "--json")
    assert result.code == 0, result.err
    found = result.json()["items"]
    assert [(r["level"], r["memories"]) for r in found] == [(1, 2), (2, 4)]  # specific first
    snippet = found[0]["snippet"].casefold()
    assert target in snippet and word(0) not in snippet
    assert result.json()["tree"] is True
    assert target in run_cli("recall", "--tree", target).out.casefold()
    assert "no summary mentions" in run_cli("recall", "--tree", "nothingsuchword").out


def test_recall_tree_matches_labels(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR)
    remember(store, project_id, "Moved the retry loop into src/net/backoff.py")
    remember(store, project_id, "A nightly vacuum keeps Postgres fast")
    [hit] = tree_recall.search(store.db, project_id, "backoff postgres")
    assert hit.matched == 2 and "path:src/net/backoff.py" in hit.node.entities
    assert "postgres" in hit.node.topics


def test_recall_tree_refuses_flags_it_cannot_honour(run_cli: CliRunner) -> None:
    for flags in (["--as-of", "2026-01-01"], ["--valid-at", "2026-01-01"], ["--scope", "agent"]):
        result = run_cli("recall", "--tree", "anything", *flags)
        assert result.code == 2 and "--tree answers from the summary tree" in result.err


@pytest.mark.parametrize(
    "query", ['"x" OR y*', "NEAR(a b)", ")(", "-- DROP", "col:val", "ünïcödé ÜBER"]
)  # a blank query is bad input (tests/cli/test_exit_codes.py)
def test_recall_tree_takes_hostile_text(
    store: Store, project_id: str, run_cli: CliRunner, query: str
) -> None:
    tune(store, input_token_budget=PAIR)
    for i in range(2):
        remember(store, project_id, f"{sentence(i)} über")
    result = run_cli("recall", "--tree", query, "--json")
    assert result.code == 0, result.err


def test_recall_tree_only_reads_the_callers_project(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR)
    for i in range(2):
        remember(store, project_id, sentence(i))
        remember(store, "other-project", f"{sentence(i + 50)} {word(1)}")
    hits = tree_recall.search(store.db, project_id, word(1))
    assert hits and all(h.node.tree_id == tree_of(store, project_id).id for h in hits)
    other = tree_of(store, "other-project").root_id or ""
    assert tree_recall.node_in_project(store.db, project_id, other) is None


# ------------------------------------------------------------------ brief


def fenced(text: str) -> list[str]:
    return text.split(brief.BEGIN)[1].split(brief.END)[0].strip().splitlines()


def test_the_brief_spends_one_line_on_the_root_summary(store: Store, identity: Identity) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    for i in range(12):
        remember(store, identity.project, sentence(i))
    result = brief.build_brief(store, identity)
    lines = fenced(result.text)
    root = tree_of(store, identity.project).root_id or ""
    assert len(lines) == 8 and len(result.ids) == 7  # the brief's eight lines
    assert lines[-1].startswith("[history] ") and root in lines[-1]
    assert "7 recalled memories" in result.text
    assert len(result.text.encode("utf-8")) <= 6_000


def test_the_history_line_reads_the_root_without_the_tree_modules(
    store: Store, identity: Identity, project_root: Path
) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    for i in range(12):
        remember(store, identity.project, sentence(i))
    root = tree_recall.root_node(store.db, identity.project)
    assert root is not None
    line = fenced(brief.build_brief(store, identity).text)[-1]
    assert line.endswith(
        f" (summary {root.id}: {root.leaf_count} memories, "
        f"{root.time_range_start[:10]} to {root.time_range_end[:10]})"
    )
    assert line.startswith('[history] "' + tree_recall.flat(root.content).split(" | ")[0] + '" | "')
    # The SessionStart hook builds this brief in a fresh process on every
    # session: the summary tree's modules stay off its import path.
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from pathlib import Path\n"
        "from tree_ring.read import brief\n"
        "from tree_ring.model.identity import Identity\n"
        "from tree_ring.store.db import Store\n"
        f"with Store.open(Path({str(project_root)!r})) as store:\n"
        f"    text = brief.build_brief(store, Identity({identity.project!r})).text\n"
        "print(json.dumps([text, sorted(m for m in sys.modules if m.startswith('tree_ring'))]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, check=True
    )
    text, loaded = json.loads(done.stdout)
    assert f"(summary {root.id}:" in text
    assert "tree_ring.read.brief" in loaded
    assert not {"tree_ring.tree.nodes", "tree_ring.tree.seal", "tree_ring.read.tree_recall"} & set(
        loaded
    )


@pytest.mark.parametrize("filler", ["ü" * 1500, "記憶" * 700, "🌲" * 900, "x" * 3000])
def test_the_brief_with_a_history_line_keeps_its_byte_budget(
    store: Store, identity: Identity, filler: str
) -> None:
    tune(store, input_token_budget=1_500, summary_fanout=2)
    for i in range(12):
        remember(
            store, identity.project, f"{sentence(i)} {filler}", ring="scar" if i % 2 else "cambium"
        )
    result = brief.build_brief(store, identity)
    assert tree_of(store, identity.project).root_id is not None
    assert len(result.text.encode("utf-8")) <= 6_000
    lines = fenced(result.text)
    assert len(lines) == 8 and lines[-1].startswith("[history] ")
    assert all(len(line.encode("utf-8")) <= 640 for line in lines)
    result.text.encode("utf-8").decode("utf-8")


def test_no_history_line_without_a_root_or_for_a_past_brief(
    store: Store, identity: Identity
) -> None:
    tune(store, input_token_budget=PAIR)
    remember(store, identity.project, sentence(0))
    assert "[history]" not in brief.build_brief(store, identity).text
    remember(store, identity.project, sentence(1))
    # A root over the two memories the brief shows anyway: no line repeats them.
    assert tree_of(store, identity.project).root_id is not None
    assert "[history]" not in brief.build_brief(store, identity).text
    # Once one of them is no longer shown, the line has something to add.
    with store.write() as conn:
        rows.update(conn, brief.select(store, identity)[0].id, retired_at=now_iso())
    assert "[history]" in brief.build_brief(store, identity).text
    past = View(as_of=now_iso())
    assert "[history]" not in brief.build_brief(store, identity, past).text


def test_a_history_line_alone_still_renders(store: Store, identity: Identity) -> None:
    tune(store, input_token_budget=PAIR)
    ids = [remember(store, identity.project, sentence(i)) for i in range(2)]
    with store.write() as conn:
        for memory_id in ids:
            rows.update(conn, memory_id, expires_at="2020-01-01T00:00:00.000000Z")
    result = brief.build_brief(store, identity)
    assert result.ids == () and fenced(result.text)[0].startswith("[history] ")


# ----------------------------------------------------------------- config


def test_tree_config_shows_and_changes_the_budgets(store: Store, run_cli: CliRunner) -> None:
    shown = run_cli("tree", "config", "--json").json()["config"]
    assert shown["input_token_budget"] == 50_000 and shown["deferred"] is False
    changed = run_cli(
        "tree", "config", "--set", "input_token_budget=2000", "--set", "deferred=true", "--json"
    )
    assert changed.code == 0, changed.err
    assert nodes.config(store.db).input_token_budget == 2_000
    assert nodes.config(store.db).deferred is True
    entry = audit.entries(store.db)[-1]
    assert (entry["action"], entry["target"]) == ("tree-config", "tree.deferred")
    for bad in ("nothing=1", "summary_fanout=1", "input_token_budget=lots", "deferred=maybe", "x"):
        result = run_cli("tree", "config", "--set", bad)
        assert result.code == 2, bad
    # A known key without "=" is told the form, not judged as an empty value.
    bare = run_cli("tree", "config", "--set", "input_token_budget")
    assert bare.code == 2 and "--set takes KEY=VALUE" in bare.err
    assert nodes.config(store.db).summary_fanout == 10


def test_an_approved_memory_joins_the_tree(run_cli: CliRunner, project_root: Path) -> None:
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    pending = run_cli(
        "--json",
        "remember",
        "Heartwood from an agent",
        "--ring",
        "heartwood",
        "--scope",
        "project",
        environ=agent,
    ).json()
    assert pending["trust"] == "pending"
    conn = sqlite3.connect(project.store_path(project_root))
    leaves = "SELECT count(*) FROM tree_leaves WHERE memory_id = ?"
    assert conn.execute(leaves, (pending["id"],)).fetchone()[0] == 0
    assert run_cli("review", "approve", pending["id"], "--reason", "checked").code == 0
    assert conn.execute(leaves, (pending["id"],)).fetchone()[0] == 1
    conn.close()


# ------------------------------------------------------------ batch append


def _tree_tables(store: Store) -> list[list[tuple[object, ...]]]:
    return [
        [tuple(r) for r in store.conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
        for table in ("tree_trees", "tree_nodes", "tree_buffers", "tree_leaves")
    ]


@pytest.mark.parametrize(
    "settings",
    [
        {"input_token_budget": 24, "summary_fanout": 2},
        {"input_token_budget": 20, "summary_fanout": 3, "flush_age_secs": 0},
        {"input_token_budget": PAIR, "deferred": True},
    ],
)
def test_appending_leaves_together_builds_the_tree_one_at_a_time_builds(
    store: Store, project_id: str, tmp_path: Path, settings: dict[str, int]
) -> None:
    """Same `now`, same tables, timestamps included: the seals fall where the
    gates put them whether the leaves come one call each or all in one."""
    twin_root = tmp_path / "twin"
    twin_root.mkdir()
    guidance.init_project(twin_root)
    memories = [make_memory(project_id, sentence(i)) for i in range(23)]
    now = now_iso()
    with Store.open(twin_root) as twin:
        for target in (store, twin):
            tune(target, **settings)
            with target.write() as conn:
                for memory in memories:
                    rows.insert(conn, memory)
                nodes.get_or_create(conn, "source", project_id, now)
        leaves = [(m.id, token_estimate(m.summary)) for m in memories]
        leaves.insert(9, leaves[3])  # already a leaf by then: skipped, as a retry would be
        with store.write() as conn:
            together = seal.append_leaves(conn, tree_of(store, project_id), leaves, now)
        with twin.write() as conn:
            alone = [
                append_leaf(conn, tree_of(twin, project_id), memory_id, tokens, now)
                for memory_id, tokens in leaves
            ]
        assert _tree_tables(store) == _tree_tables(twin)
        assert together.new_summary_ids == tuple(i for a in alone for i in a.new_summary_ids)
        assert together.seal_pending == alone[-1].seal_pending
        assert len(_tree_tables(store)[1]) >= (0 if settings.get("deferred") else 4)
