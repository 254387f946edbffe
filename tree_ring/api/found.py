"""Recall over both stores a caller reads: the project's and the person's own.

Every client's recall is this one: the project's hits (without what the
person forgot in their user store) and the user store's (read as the
caller's identity there, without what the project forgot), best first
together, each marked with the store it came from and who wrote it: `you`
only for what a person wrote in the user store, never for an agent's or an
import's row there. What either store forgot stays out of both
(`read/forgotten_here.py`).
"""

from __future__ import annotations

from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.read.recall import Hit, Scale
    from tree_ring.read.tree_recall import Child, TreeHit
    from tree_ring.store.db import Store
    from tree_ring.store.live import View
    from tree_ring.tree.nodes import Node

PROJECT = "project"
USER = "user"


class Found(Frozen):
    hit: Hit
    store: str  # PROJECT or USER
    # Who wrote it and where it lives (`read/labels.py`): a project row's origin
    # and partition; a user-store row's `you` (a person's own) or origin.
    partition: str

    @property
    def memory(self) -> Memory:
        return self.hit.memory

    @property
    def score(self) -> float:
        return self.hit.score

    @property
    def label(self) -> str:
        return self.hit.label


def recall(
    store: Store,
    identity: Identity,
    mine: Store | None,
    query: str,
    *,
    limit: int,
    view: View | None,
    scope: str | None,
    whole_project: bool,
    elsewhere: ForgottenHere | None = None,
) -> list[Found]:
    """`mine`: the person's user store, when there is one. Its rows are read
    for a recall of every scope or of `global` (it holds only global memory);
    its tombstones bind the project's rows whatever the scope. `elsewhere`:
    without `mine`, what the store read beside `store` forgot (the project a
    recall of the user store itself is run in)."""
    from tree_ring.read import forgotten_here
    from tree_ring.read.labels import row_label, user_row_label

    theirs = elsewhere
    if mine is not None:
        from tree_ring.store.user import USER_PROJECT

        # What the person forgot stays out, whichever copy of it this project holds.
        theirs = forgotten_here.of(mine, USER_PROJECT, store)

    def project_hits(outer: Scale | None) -> tuple[list[Hit], Scale]:
        return forgotten_here.recall(
            store,
            identity,
            query,
            limit=limit,
            view=view,
            forgotten=theirs,
            scope=scope,
            whole_project=whole_project,
            outer=outer,
        )

    if mine is None or scope not in (None, "global"):
        hits, _ = project_hits(None)
        own: list[Hit] = []
    else:
        from tree_ring.store.user import user_identity

        # What this project forgot stays out, whichever project wrote it there.
        forgotten = forgotten_here.of(store, identity.project, mine)

        def user_hits(outer: Scale | None) -> tuple[list[Hit], Scale]:
            return forgotten_here.recall(
                mine,
                user_identity(identity),
                query,
                limit=limit,
                view=view,
                forgotten=forgotten,
                outer=outer,
            )

        # Both stores' hits are ranked on one scale of meaning. The user
        # store, a person's notes, is the small one: it is read first, the
        # project once against both scales, and the user store again only
        # when the project's leads.
        own, mine_scale = user_hits(None)
        hits, scale = project_hits(mine_scale)
        if mine_scale.joined(scale) != mine_scale:
            own, _ = user_hits(scale)
    found = [Found(hit=h, store=PROJECT, partition=row_label(h.memory)) for h in hits]
    found += [Found(hit=h, store=USER, partition=user_row_label(h.memory)) for h in own]
    # Literal hits before related ones, then by score (`Hit.key`), as each store
    # ranks its own; stable, so the project's hit comes first where two tie.
    return sorted(found, key=lambda f: f.hit.key, reverse=True)[:limit]


def recall_tree(
    store: Store, project: str, mine: Store | None, query: str, limit: int
) -> list[TreeHit]:
    """`recall --tree`: summary nodes, best first; `mine`: the person's user
    store, whose forgets hide a node that quotes them as they hide a row."""
    from tree_ring.read import forgotten_here, tree_recall
    from tree_ring.store.user import USER_PROJECT

    theirs = None if mine is None else forgotten_here.of(mine, USER_PROJECT, store)
    wanted = limit if theirs is None else max(limit, forgotten_here.MOST)
    hits = tree_recall.search(store.db, project, query, limit=wanted)
    if theirs is not None:
        hits = [hit for hit in hits if not theirs.quoted_in(hit.node.content)]
    return hits[:limit]


class TreeNode(Frozen):
    """A summary node as `tree show` and the web view's tree page show it."""

    node: Node | None  # None: no such node (or none sealed yet), or `withheld`
    children: tuple[Child, ...]
    # The node asked for quotes what the other store forgot: hidden as a row is.
    withheld: bool = False


def tree_node(
    store: Store, identity: Identity, forgotten: ForgottenHere | None, node_id: str | None
) -> TreeNode:
    """The node `node_id` of the project's tree (the root when None) and its
    children; with `forgotten`, a node that quotes what it holds is withheld,
    as `recall --tree` leaves it out, and so are the children that quote it
    (a child node by its entries, a memory as the listing hides it)."""
    from tree_ring.read import tree_recall
    from tree_ring.store import rows
    from tree_ring.tree import nodes

    db = store.db
    if node_id:
        node = tree_recall.node_in_project(db, identity.project, node_id)
    else:
        node = tree_recall.root_node(db, identity.project)
    if node is None:
        return TreeNode(node=None, children=())
    if forgotten is not None and forgotten.quoted_in(node.content):
        return TreeNode(node=None, children=(), withheld=True)
    kids = tree_recall.children(db, node, identity)
    if forgotten is None:
        return TreeNode(node=node, children=tuple(kids))
    held = rows.by_ids(db, [k.id for k in kids if k.kind == "memory" and k.live])
    gone = forgotten.hidden(list(held.values()))
    kept: list[Child] = []
    for kid in kids:
        if kid.kind == "node":
            child = nodes.node(db, kid.id)
            if child is not None and forgotten.quoted_in(child.content):
                continue
        elif kid.id in gone:
            continue
        kept.append(kid)
    return TreeNode(node=node, children=tuple(kept))
