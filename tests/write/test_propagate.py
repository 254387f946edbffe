"""Forgetting propagates: no summary node, consolidation or FTS row keeps the text."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PERSON, CliRunner
from tree_support import all_text, remember, sentence, tune

from tree_ring.model import project
from tree_ring.model.record import now_iso
from tree_ring.read import tree_recall
from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.tree import nodes, repair
from tree_ring.upkeep import consolidate
from tree_ring.write import correct

SECRET_WORD = "zebracorn"
NEEDLE = f"{SECRET_WORD}-7731"
PAIR = 16  # two memories per L1 node (see test_tree.py)


def node_rows(store: Store) -> dict[str, nodes.Node]:
    return {r["id"]: nodes.node_from_row(r) for r in store.conn.execute("SELECT * FROM tree_nodes")}


def forget(store: Store, memory_id: str, mode: str = "delete") -> None:
    correct.forget(store, memory_id, mode=mode, reason="asked to forget", actor=PERSON)


# -------------------------------------------------------------- tree nodes


def test_forgetting_a_leaf_rebuilds_every_node_above_it(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2)
    ids = [remember(store, project_id, sentence(i)) for i in range(8)]
    before = node_rows(store)
    root_id = tree_recall.root_node(store.db, project_id)
    assert root_id is not None
    forget(store, ids[2])
    after = node_rows(store)
    assert set(after) == set(before)  # same nodes, rebuilt in place
    changed = {i for i in after if after[i].content != before[i].content}
    # The L1 over memories 2-3, its L2 parent, and the L3 root: the chain, no more.
    assert len(changed) == 3 and root_id.id in changed
    assert all(after[i].resealed_at is not None and not after[i].stale for i in changed)
    assert all(after[i].resealed_at is None for i in set(after) - changed)
    for node in after.values():
        assert sentence(2) not in node.content and ids[2] not in node.child_ids
    l1 = next(n for n in after.values() if n.level == 1 and ids[3] in n.child_ids)
    assert l1.child_ids == (ids[3],) and l1.content == f"— {sentence(3)}" and l1.leaf_count == 1
    assert after[root_id.id].leaf_count == 7
    assert all(sentence(i) in after[root_id.id].content for i in range(8) if i != 2)


def test_forgetting_a_waiting_leaf_takes_it_out_of_the_buffer(
    store: Store, project_id: str
) -> None:
    tune(store, input_token_budget=1_000)
    ids = [remember(store, project_id, sentence(i)) for i in range(3)]
    forget(store, ids[1])
    tree = tree_recall.source_tree(store.db, project_id)
    assert tree is not None
    l0 = nodes.buffer(store.db, tree.id, 0)
    assert (l0.item_count, l0.token_sum) == (2, 16)
    with store.write() as conn:
        repair.flush(conn, max_age_secs=0)
    [node] = node_rows(store).values()
    assert node.child_ids == (ids[0], ids[2])


def test_a_node_left_empty_is_dropped_and_the_root_recomputed(
    store: Store, project_id: str
) -> None:
    tune(store, input_token_budget=8, summary_fanout=3)  # one memory per L1 node
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    tree = tree_recall.source_tree(store.db, project_id)
    assert tree is not None and tree.max_level == 1
    forget(store, ids[1])
    [node] = node_rows(store).values()
    assert node.child_ids == (ids[0],)
    tree = tree_recall.source_tree(store.db, project_id)
    assert tree is not None and tree.root_id == node.id
    assert nodes.buffer(store.db, tree.id, 1).item_ids == (node.id,)
    forget(store, ids[0])
    tree = tree_recall.source_tree(store.db, project_id)
    assert node_rows(store) == {} and tree is not None and tree.root_id is None
    assert nodes.buffer(store.db, tree.id, 1).item_count == 0


def test_an_emptied_child_leaves_its_parent(store: Store, project_id: str) -> None:
    tune(store, input_token_budget=8, summary_fanout=2)
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    [root] = [n for n in node_rows(store).values() if n.level == 2]
    forget(store, ids[0])
    rebuilt = node_rows(store)[root.id]
    assert len(rebuilt.child_ids) == 1 and rebuilt.leaf_count == 1
    assert rebuilt.content == f"— — {sentence(1)}"


def test_the_tree_change_rolls_back_with_a_failed_forget(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tune(store, input_token_budget=PAIR)
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    before = node_rows(store)

    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError("disk went away")

    monkeypatch.setattr(audit, "append", broken)
    with pytest.raises(RuntimeError):
        forget(store, ids[0])
    monkeypatch.undo()
    assert node_rows(store) == before and rows.find(store.db, ids[0]) is not None


def test_every_removal_path_through_forget_in_propagates(store: Store, project_id: str) -> None:
    """What `maintain` (expiry) needs: a call to correct.forget_in, nothing else."""
    tune(store, input_token_budget=PAIR)
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    with store.write() as conn:
        expired = rows.get(conn, ids[0])
        correct.forget_in(conn, expired, "delete", "expired", PERSON, now_iso())
    [node] = node_rows(store).values()
    assert node.child_ids == (ids[1],) and sentence(0) not in node.content
    assert sentence(1) in node.content


# ----------------------------------------------------------- consolidations


def test_a_consolidation_is_rewritten_without_a_forgotten_source(
    store: Store, project_id: str
) -> None:
    ids = [remember(store, project_id, sentence(i), event_type="decision") for i in range(3)]
    report = consolidate.consolidate(store, project_id, "manual", actor=PERSON)
    summary_id = report.groups[0].written or ""
    forget(store, ids[1])
    summary = rows.get(store.db, summary_id)
    assert sentence(1) not in summary.summary
    assert summary.summary.startswith("Consolidated 2 decision memories")
    assert [link.target for link in summary.links] == [ids[0], ids[2]]
    entry = audit.entries(store.db, target=summary_id)[-1]
    assert entry["action"] == "update" and ids[1] in entry["detail"]
    forget(store, ids[0], "redact")
    forget(store, ids[2])
    assert rows.find(store.db, summary_id) is None  # nothing left to summarise
    assert audit.entries(store.db, target=summary_id)[-1]["action"] == "forget"


def test_superseded_consolidations_are_rewritten_too(store: Store, project_id: str) -> None:
    ids = [remember(store, project_id, sentence(i)) for i in range(2)]
    [old] = [
        g.written for g in consolidate.consolidate(store, project_id, "manual", actor=PERSON).groups
    ]
    ids.append(remember(store, project_id, sentence(2)))
    consolidate.consolidate(store, project_id, "manual", actor=PERSON, force=True)
    assert rows.get(store.db, old or "").superseded_by is not None
    forget(store, ids[0])
    for summary_id in (old or "",):
        text = rows.get(store.db, summary_id).summary
        assert sentence(1) in text and sentence(0) not in text


# ------------------------------------------------------- the forgetting scan


def raw_bytes(root: Path) -> bytes:
    path = project.store_path(root)
    data = b""
    for suffix in ("", "-wal", "-shm"):
        candidate = Path(str(path) + suffix)
        if candidate.exists():
            data += candidate.read_bytes()
    return data


def places(store: Store, root: Path) -> list[str]:
    """Everywhere the distinctive string still is: tables, FTS, the files."""
    found = [
        f"{table}.{column}"
        for table, column, text in all_text(store)
        if SECRET_WORD in text.casefold()
    ]
    fts = store.conn.execute("SELECT * FROM memory_fts").fetchall()
    found += [
        "memory_fts (read)" for row in fts if SECRET_WORD in " ".join(map(str, row)).casefold()
    ]
    matched = store.conn.execute(
        "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?", (f'"{SECRET_WORD}"',)
    ).fetchall()
    found += ["memory_fts MATCH"] * len(matched)
    if SECRET_WORD.encode() in raw_bytes(root).lower():
        found.append("database files")
    return found


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_forgotten_text_is_gone_from_every_table_index_and_file(
    store: Store, project_id: str, project_root: Path, mode: str
) -> None:
    tune(store, input_token_budget=PAIR, summary_fanout=2, output_token_budget=500)
    memory_ids: list[str] = []
    for i in range(8):
        if i == 5:  # the text, a tag, a source: everything a memory can carry
            memory_ids.append(
                remember(
                    store,
                    project_id,
                    f"The cache key is {NEEDLE} for the nightly build",
                    event_type="decision",
                    details=f"Rotate {NEEDLE} weekly",
                    tags=(NEEDLE,),
                    source_ref=f"docs/{NEEDLE}.md",
                )
            )
        else:
            memory_ids.append(remember(store, project_id, sentence(i), event_type="decision"))
    report = consolidate.consolidate(store, project_id, "manual", actor=PERSON)
    summary_id = report.groups[0].written or ""
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # The control: before forgetting, the scan finds it everywhere it was put.
    before = places(store, project_root)
    assert {"memories.summary", "tree_nodes.content", "memory_fts MATCH", "database files"} <= set(
        before
    )
    assert sum(1 for p in before if p == "memories.summary") == 2  # the memory and the summary
    assert sum(1 for p in before if p == "memories.tags") == 2  # the summary keeps top tags

    forget(store, memory_ids[5], mode)

    assert places(store, project_root) == []
    summary = rows.get(store.db, summary_id)
    assert len(summary.links) == 7 and memory_ids[5] not in {x.target for x in summary.links}
    tree = tree_recall.source_tree(store.db, project_id)
    assert tree is not None and tree.root_id is not None
    assert store.conn.execute("SELECT count(*) FROM tree_nodes WHERE stale = 1").fetchone()[0] == 0
    assert tree_recall.search(store.db, project_id, SECRET_WORD) == []
    assert tree_recall.search(store.db, project_id, "nightly") == []
    if mode == "redact":
        assert rows.get(store.db, memory_ids[5]).summary == "[REDACTED]"
    else:
        assert rows.find(store.db, memory_ids[5]) is None


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_a_deep_tree_rebuilt_above_a_forgotten_memory_leaves_no_bytes_of_it(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    """A summary node laid out again above the forgotten memory can keep the
    old row's bytes in its page's unused space, which `secure_delete` does not
    reach (these writes, each its own command, left them on a `tree_nodes`
    page): the forget finds them in the file and rebuilds it without them."""
    tuned = run_cli("tree", "config", "--set", "input_token_budget=20", "--set", "summary_fanout=2")
    assert tuned.code == 0, tuned.err
    texts = [f"Filler item number {i} concerns the widget pipeline stage w{i}" for i in range(24)]
    texts.insert(12, "Xylophone oracle token rotates every fortnight")
    ids = [run_cli("--json", "remember", text).json()["id"] for text in texts]
    with Store.open(project_root) as store:
        assert store.conn.execute("SELECT max(level) FROM tree_nodes").fetchone()[0] >= 3
    assert b"xylophone" in raw_bytes(project_root).lower()

    done = run_cli("forget", ids[12], "--mode", mode, "--reason", "rotated")
    assert done.code == 0, done.err

    assert b"xylophone" not in raw_bytes(project_root).lower()
    with Store.open(project_root) as store:
        assert {m.id for m in rows.by_ids(store.db, ids).values()} == set(ids) - (
            {ids[12]} if mode == "delete" else set()
        )


def plant(root: Path, text: bytes) -> None:
    """`text` written into the unused space of one of the file's b-tree leaf
    pages, between its cell pointers and its cells, where SQLite never reads:
    what a page laid out again may leave of a row."""
    path = project.store_path(root)
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big") or 65536
    for start in range(size, len(data), size):  # page 1 holds the file header
        page = data[start : start + size]
        if page[0] not in (0x0A, 0x0D):  # a leaf of an index or a table
            continue
        cells = int.from_bytes(page[3:5], "big")
        content = int.from_bytes(page[5:7], "big") or 65536
        gap = 8 + 2 * cells
        if content - gap >= len(text) + 16 and not any(page[gap:content]):
            at = start + gap + 8
            data[at : at + len(text)] = text
            path.write_bytes(bytes(data))
            return
    raise AssertionError("no leaf page with room to plant the text")


def test_a_forget_takes_the_forgotten_text_out_of_a_pages_unused_space(
    run_cli: CliRunner, project_root: Path
) -> None:
    kept = run_cli("--json", "remember", "The staging cluster runs in the blue region").json()["id"]
    text = f"The oracle token {NEEDLE} rotates every fortnight"
    gone = run_cli("--json", "remember", text).json()["id"]
    with Store.open(project_root) as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    plant(project_root, text.encode())
    assert raw_bytes(project_root).count(text.encode()) >= 2  # the row and the planted copy
    assert run_cli("doctor").code == 0  # the page is as sound as before

    done = run_cli("forget", gone, "--mode", "delete", "--reason", "rotated")
    assert done.code == 0, done.err

    assert SECRET_WORD.encode() not in raw_bytes(project_root).lower()
    assert {
        hit["id"] for hit in run_cli("--json", "recall", "staging cluster").json()["items"]
    } == {kept}
