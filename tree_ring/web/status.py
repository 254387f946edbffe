"""The summary tree page and the status page.

The tree page reads the library's own views of the project's source tree
(`read/tree_recall`): the levels with their buffers, a node with its
children, and the path from one memory's leaf up to the root. Stale nodes
are never shown, and a node's children are read through the liveness
predicate, as `tree-ring tree show` reads them.

The status page is `tree-ring status`: counts, the review queue, the write
policy, the store's size on disk and the hook receipts per harness (counts
and digests, never memory text). The doctor runs only when asked, since its
integrity and index checks read the whole file.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast
from urllib.parse import urlencode

from tree_ring.govern import coordinator
from tree_ring.harness import receipts
from tree_ring.model import project
from tree_ring.read import tree_recall
from tree_ring.review import queue as review
from tree_ring.tree import nodes
from tree_ring.web import markup
from tree_ring.web.frame import NotFoundPage, frame, memory_link
from tree_ring.web.markup import attr, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.store.sql import Db
    from tree_ring.tree.nodes import Node
    from tree_ring.web.site import Session, Site

MAX_DEPTH = 64  # a path longer than this is a loop in a hand-edited store


def _node_link(node_id: str) -> str:
    return "/tree?" + urlencode({"node": node_id})


def _path(db: Db, project_id: str, memory_id: str) -> list[Node]:
    """The nodes from the memory's L1 node up to the root, lowest first."""
    tree = tree_recall.source_tree(db, project_id)
    if tree is None:
        return []
    parent = db.scalar(
        "SELECT parent_id FROM tree_leaves WHERE tree_id = ? AND memory_id = ?",
        (tree.id, memory_id),
    )
    path: list[Node] = []
    while parent and len(path) < MAX_DEPTH:
        found = tree_recall.node_in_project(db, project_id, str(parent))
        if found is None:
            break
        path.append(found)
        parent = found.parent_id
    return path


def tree_page(site: Site, session: Session, query: Mapping[str, str]) -> str:
    node_id = (query.get("node") or "").strip()
    memory_id = (query.get("memory") or "").strip()
    body: list[str] = ["<h1>Summary tree</h1>"]
    with site.store() as store:
        db = store.db
        status = tree_recall.status(db)
        source = tree_recall.source_tree(db, site.project)
        if memory_id:
            path = _path(db, site.project, memory_id)
            body.append(f"<h2>From {text(memory_id)} to the root</h2>")
            if path:
                steps = [f'<a href="{attr(memory_link(memory_id))}">{text(memory_id)}</a>']
                steps += [
                    f'<a href="{attr(_node_link(n.id))}">{text(n.id)}</a> (L{n.level}, '
                    f"{n.leaf_count} memories)"
                    for n in path
                ]
                body.append(
                    '<ol class="path" id="path">'
                    + "".join(f"<li>{s}</li>" for s in steps)
                    + "</ol>"
                )
            else:
                body.append(
                    '<p id="path">Not sealed into a summary yet (or not a leaf: only accepted, '
                    "normal, shared memories are).</p>"
                )
        node = None
        if node_id:
            node = tree_recall.node_in_project(db, site.project, node_id)
            if node is None:
                raise NotFoundPage(f"no summary node {node_id[:80]!r} in this project")
        elif not memory_id:
            node = tree_recall.root_node(db, site.project)
        kids = tree_recall.children(db, node, site.identity) if node is not None else []
    if source is not None:
        mine = [t for t in status["trees"] if t["id"] == source.id]
        for tree in mine:
            levels = [
                [
                    f"L{lv['level']}",
                    str(lv["nodes"]),
                    str(lv["buffer"]["items"]),
                    f"{lv['buffer']['fill']:.0%}",
                ]
                for lv in tree["levels"]
            ]
            body.append(
                f"<p>{tree['leaves']} memories in the tree, {tree['waiting_leaves']} waiting to "
                f"seal; root {text(tree['root_id'] or 'none yet')}.</p>"
            )
            body.append(
                markup.table(["level", "sealed nodes", "waiting", "fill"], levels, (1, 2, 3))
            )
    else:
        body.append("<p>No summary tree yet: the history is still short.</p>")
    if node is not None:
        body.append(_node(node, kids))
    return frame(site, session, "/tree", "Summary tree", "\n".join(body))


def _node(node: Node, kids: list[tree_recall.Child]) -> str:
    parts = [
        f'<h2 id="node">{text(node.id)} · L{node.level} · {node.leaf_count} memories</h2>',
        f'<p class="note">{text(node.time_range_start[:19])}Z .. '
        f"{text(node.time_range_end[:19])}Z; sealed {text(node.sealed_at[:19])}Z</p>",
        f"<pre>{text(node.content)}</pre>",
    ]
    if node.parent_id:
        parts.append(
            f'<p>Parent: <a href="{attr(_node_link(node.parent_id))}">'
            f"{text(node.parent_id)}</a></p>"
        )
    listed: list[list[str]] = []
    for child in kids:
        if child.kind == "node":
            link = f'<a href="{attr(_node_link(child.id))}">{text(child.id)}</a>'
            listed.append(
                [link, f"L{child.level} ({child.leaf_count})", text(markup.clip(child.text, 200))]
            )
        elif child.live:
            link = f'<a href="{attr(memory_link(child.id))}">{text(child.id)}</a>'
            listed.append([link, "memory", text(markup.clip(child.text, 200))])
        else:
            listed.append([text(child.id), "memory", "(not live now)"])
    parts.append(markup.table(["child", "kind", "text"], listed))
    return "\n".join(parts)


def status_page(site: Site, session: Session, query: Mapping[str, str]) -> str:
    with site.store() as store:
        db = store.db

        def counts() -> tuple[dict[str, int], dict[str, int], int]:
            # Every row in every state is counted, so this reads the whole
            # table: once, both splits from the one pass.
            by_ring: dict[str, int] = {}
            by_trust: dict[str, int] = {}
            for ring, trust, n in db.query(
                "SELECT ring, trust, count(*) FROM memories GROUP BY ring, trust"
            ):
                by_ring[ring] = by_ring.get(ring, 0) + n
                by_trust[trust] = by_trust.get(trust, 0) + n
            return by_ring, by_trust, review.queue_size(db, site.project)

        # Cached until the store changes.
        by_ring, by_trust, waiting = site.cached(db, ("status",), counts)
        policy = coordinator.state(db).mode
        cfg = nodes.config(db)
    harnesses = receipts.receipts(Path(site.root))
    body = [
        "<h1>Status</h1>",
        markup.table(
            ["", ""],
            [
                ["project", text(site.project)],
                ["memories (every state)", str(sum(by_ring.values()))],
                ["by ring", text(_counts(by_ring))],
                ["by trust", text(_counts(by_trust))],
                ["review queue", f'<a href="/review">{waiting} waiting</a>'],
                ["write policy", text(policy)],
                ["store size", f"{project.store_bytes(project.store_path_str(site.root)):,} bytes"],
                [
                    "summary tree",
                    text(
                        f"fan-out {cfg.summary_fanout}, L0 budget {cfg.input_token_budget} tokens"
                    ),
                ],
            ],
        ),
        "<h2>Hooks</h2>",
        _hooks(harnesses),
        "<h2>Doctor</h2>",
    ]
    if query.get("doctor") == "1":
        body.append(_doctor(site))
    else:
        body.append(
            '<form method="get" action="/status"><input type="hidden" name="doctor" value="1">'
            '<button type="submit" id="run-doctor">Run the doctor</button> '
            '<span class="note">checks the whole file; read-only</span></form>'
        )
    return frame(site, session, "/status", "Status", "\n".join(body))


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in sorted(counts.items())) or "none"


def _hooks(harnesses: Mapping[str, Mapping[str, object]]) -> str:
    if not harnesses:
        return "<p>No hook has fired in this project yet.</p>"
    listed: list[list[str]] = []
    for name, receipt in harnesses.items():
        brief = receipt.get("last_brief")
        stop = receipt.get("last_stop")
        b = cast("dict[str, object]", brief) if isinstance(brief, dict) else {}
        s = cast("dict[str, object]", stop) if isinstance(stop, dict) else {}
        listed.append(
            [
                text(name),
                text(b.get("at", "never")),
                text(b.get("count", 0)),
                text(s.get("at", "never")),
            ]
        )
    return markup.table(["harness", "last brief", "memories shown", "last stop"], listed, [2])


def _doctor(site: Site) -> str:
    from tree_ring.upkeep import doctor

    with site.opening:  # the doctor opens the file too (see `Site.store`)
        report = doctor.diagnose(Path(site.root))
    listed = [
        [text(c.name), "ok" if c.ok else '<span class="error">problem</span>', text(c.detail)]
        for c in report.checks
    ]
    verdict = (
        "The store is healthy."
        if report.ok
        else "Run `tree-ring doctor --repair` or restore a backup."
    )
    return f'<p id="doctor">{text(verdict)}</p>' + markup.table(["check", "", "detail"], listed)
