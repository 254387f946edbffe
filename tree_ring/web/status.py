"""The summary tree page and the status page.

The tree page reads the library's own views of the project's source tree
(`read/tree_recall`): the levels with their buffers, a node with its
children, and the path from one memory's leaf up to the root. Stale nodes
are never shown, and a node's children are read through the liveness
predicate, as `tree-ring tree show` reads them (`Project.tree_node`): a node
quoting what the person forgot in their user store is hidden, as its rows are.

The status page is `tree-ring status`, the one answer every client gives
(`Project.status`, `api/status.py`): the project's rows by state (live,
pending, disputed, retired by reason, live by ring, by the census's one
definition of live), the review queue, the inbox, the person's user store,
the write policy, the store's size on disk and the hook receipts per harness
(counts and digests, never memory text). The doctor runs only when asked,
since its integrity and index checks read the whole file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast
from urllib.parse import urlencode

from tree_ring.api.status import tombstones_said
from tree_ring.model.errors import TreeRingError
from tree_ring.read import tree_recall
from tree_ring.store import leaves
from tree_ring.tree import nodes
from tree_ring.web import markup
from tree_ring.web.frame import NotFoundPage, frame, memory_link
from tree_ring.web.markup import attr, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

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
    parent = leaves.parent_of(db, tree.id, memory_id)
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
    with site.opened() as project:
        db = project.store.db
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
        node: Node | None = None
        kids: Sequence[tree_recall.Child] = ()
        withheld = False
        if node_id or not memory_id:
            # A node quoting what the person forgot is hidden as its rows are.
            shown = project.tree_node(node_id or None)
            node, kids, withheld = shown.node, shown.children, shown.withheld
            if node is None and node_id:
                raise NotFoundPage(f"no summary node {node_id[:80]!r} in this project")
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
    elif withheld:
        body.append('<p id="node">The root summary quotes forgotten content; it is not shown.</p>')
    return frame(site, session, "/tree", "Summary tree", "\n".join(body))


def _node(node: Node, kids: Sequence[tree_recall.Child]) -> str:
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
    with site.opened() as project:
        try:
            mine = project.user_store()
        except TreeRingError:  # a damaged user store: `status` reports it, see below
            mine = None
        # The counts read every row of the project (and of the user store):
        # cached until either store changes (`Site.cached`).
        data = site.cached(
            [project.store.db, mine.db if mine is not None else None], ("status",), project.status
        )
        cfg = nodes.config(project.store.db)
    counts: dict[str, Any] = data["memories"]
    retired: dict[str, int] = counts["retired_by_reason"]
    sensitive = counts["sensitive"]
    rows_ = [
        ["project", text(site.project)],
        [
            "live memories",
            f'<span id="live">{counts["live"]}</span>'
            + (f" ({sensitive} sensitive)" if sensitive else ""),
        ],
        ["by ring (live)", f'<span id="by-ring">{text(_counts(counts["by_ring"]))}</span>'],
        [
            "upcoming (valid from a later time)",
            f'<span id="upcoming">{counts["upcoming"]}</span>',
        ],
        [
            "waiting for review",
            f'<span id="pending">{counts["pending"]}</span> pending, '
            f'<span id="disputed">{counts["disputed"]}</span> disputed',
        ],
        [
            "retired",
            f'<span id="retired">{counts["retired"]}</span>'
            + (f" ({text(_counts(retired))})" if retired else ""),
        ],
        ["memories (every state)", f'<span id="total">{counts["total"]}</span>'],
        [
            "review queue",
            f'<a href="/review" id="queue">{data["review_queue"]} waiting</a>'
            + _requests(data["review_requests"]),
        ],
        ["inbox", f'<a href="/inbox" id="inbox">{data["inbox"]} new from agents</a>'],
        [
            "forgotten content (tombstones)",
            text(tombstones_said(counts)),
        ],
    ]
    if counts["other_projects"]:
        rows_.append(["rows of other projects in this store", str(counts["other_projects"])])
    rows_ += [
        ["user store", _user_store(data["user_store"])],
        ["write policy", text(data["write_policy"])],
        ["store size", f"{data['store_bytes']:,} bytes"],
        [
            "summary tree",
            text(f"fan-out {cfg.summary_fanout}, L0 budget {cfg.input_token_budget} tokens"),
        ],
    ]
    body = [
        "<h1>Status</h1>",
        markup.table(["", ""], rows_),
        "<h2>Hooks</h2>",
        _hooks(_receipts(site)),
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


def _receipts(site: Site) -> dict[str, dict[str, Any]]:
    """The hooks' receipts as `status` reports them, read now: a hook's firing
    need not change the store, so they are not among the cached counts."""
    from tree_ring.api.status import hook_view
    from tree_ring.harness import receipts

    return {name: hook_view(r) for name, r in receipts.receipts(Path(site.root)).items()}


def _user_store(mine: Mapping[str, Any]) -> str:
    """The person's user store as `status` counts it: its live and waiting rows."""
    where = text(mine["path"] or "no home folder")
    if "error" in mine:
        return f'<span class="error" id="user-store">{where}: {text(mine["error"])}</span>'
    if not mine["exists"]:
        return (
            f'<span id="user-store">none yet at {where} '
            "(a person's <code>tree-ring remember --scope global</code> creates it)</span>"
        )
    return (
        f'<span id="user-store"><span id="user-live">{mine["live"]}</span> live of '
        f'<span id="user-memories">{mine["memories"]}</span>, '
        + (
            f'<span id="user-upcoming">{mine["upcoming"]}</span> upcoming, '
            if mine.get("upcoming")
            else ""
        )
        + f'<span id="user-queue">{mine["review_queue"]}</span> waiting for review</span>'
        f' <span class="note">{where}</span>'
    )


def _requests(waiting: int) -> str:
    """Requests to forget or confirm, which the review page lists after the rows."""
    if not waiting:
        return ""
    noun = "request" if waiting == 1 else "requests"
    return f' and <span id="requests">{waiting}</span> {noun} to forget or confirm'


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
