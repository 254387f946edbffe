"""Verbs that compress long histories: consolidate, and the summary tree.

`tree status | show [NODE_ID] | flush [--max-age SECONDS] | rebuild | config`, and the
handler behind `recall --tree QUERY`.
"""

from __future__ import annotations

from typing import Any

from tree_ring.cli import progress
from tree_ring.cli.context import (
    Arguments,
    Context,
    Handler,
    listing,
    nested,
    once,
    project_flag,
    reshaped,
    sensitive_flag,
    writes_project,
)
from tree_ring.govern import coordinator
from tree_ring.model.errors import NotFound, UsageError
from tree_ring.model.record import now_iso
from tree_ring.model.text import PREVIEW, cluster_end
from tree_ring.read import tree_recall, withheld
from tree_ring.store import audit
from tree_ring.tree import nodes, repair
from tree_ring.upkeep import consolidate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from tree_ring.model.record import Memory
    from tree_ring.store.live import View


def _clip(text: str, limit: int = PREVIEW) -> str:
    return text if len(text) <= limit else text[: cluster_end(text, limit - 3)] + "..."


# ------------------------------------------------------------- consolidate


def _group_line(group: consolidate.Group) -> str:
    key = group.key
    owner = key.agent_profile or key.workflow_id or key.session_id  # private scopes only
    where = f"{key.scope}/{owner}" if owner else key.scope
    head = (
        f"  {group.status:<9} {len(group.sources)} x {key.event_type} "
        f"({where}, {key.ring}, {key.bucket})"
    )
    if group.written:
        head += f" -> {group.written}"
        if group.trust != "accepted":
            head += f" [{group.trust}]"
    if group.reason:
        head += f": {group.reason}"
    if group.retired:
        head += (
            f"; {'would retire' if not group.written else 'retired'} {len(group.retired)} sources"
        )
    return head


def _withheld(summary: Memory | None, view: View) -> dict[str, Any]:
    """A group's summary text as `--json` may give it, and whether it was withheld."""
    if summary is None:
        return {"withheld": False}
    return {"summary": withheld.summary(summary, view), "withheld": withheld.hidden(summary, view)}


def cmd_consolidate(ctx: Context) -> int:
    a = ctx.args
    with ctx.project() as opened, progress.Reporter() as reporter:
        report = opened.consolidate(
            a.period_type,
            a.period_key,
            dry_run=a.dry_run,
            force=a.force,
            retire_sources=a.retire_sources,
            progress=reporter,
        )
    verb = "plan for" if report.dry_run else "consolidated"
    lines = [
        f"{verb} {report.period.label}: {report.candidates} candidate memories, "
        f"{len(report.groups)} groups"
    ]
    # A summary over sensitive sources is as sensitive: its text only when asked.
    view = ctx.view()
    for group in report.groups:
        lines.append(_group_line(group))
        if report.dry_run and group.summary is not None:
            lines.append(f"            {_clip(withheld.summary(group.summary, view))}")
            if withheld.hidden(group.summary, view):
                lines.append(f"            {withheld.note(group.summary)}")
    if report.dry_run:
        lines.append("dry run: nothing was written")
    data = report.to_dict()
    groups = [
        {("summary_id" if key == "written" else key): value for key, value in group_data.items()}
        | _withheld(group.summary, view)
        for group, group_data in zip(report.groups, data["groups"], strict=True)
    ]
    data = {key: value for key, value in data.items() if key not in ("groups", "written")}
    data["consolidated"] = sum(1 for group in groups if group["summary_id"])
    ctx.emit(data | listing(groups), "\n".join(lines))
    return 0


# -------------------------------------------------------------------- tree


def cmd_tree_status(ctx: Context) -> int:
    with ctx.store() as store:
        data = tree_recall.status(store.db)
    lines: list[str] = []
    for tree in data["trees"]:
        root = tree["root_id"] or "none yet"
        lines.append(
            f"{tree['kind']} tree {tree['scope']} ({tree['status']}): root {root}, "
            f"{tree['leaves']} memories, {tree['waiting_leaves']} waiting"
            + (", seal pending (run `tree-ring tree flush`)" if tree["seal_pending"] else "")
        )
        for level in tree["levels"]:
            buf = level["buffer"]
            if level["level"] == 0:
                lines.append(
                    f"  L0: {buf['items']} memories waiting, "
                    f"{buf['token_sum']:,}/{buf['budget_tokens']:,} tokens ({buf['fill']:.0%})"
                )
            else:
                lines.append(
                    f"  L{level['level']}: {level['nodes']} nodes, "
                    f"{buf['items']}/{buf['fanout']} waiting ({buf['fill']:.0%})"
                )
    ctx.emit(reshaped(data, "trees"), "\n".join(lines) or "no summary trees yet")
    return 0


def cmd_tree_show(ctx: Context) -> int:
    with ctx.project() as project:
        identity = project.identity
        # A node quoting what the person forgot is hidden as its rows are (`Project.tree_node`).
        shown = project.tree_node(ctx.args.node_id or None)
    node, kids = shown.node, shown.children
    if node is None and ctx.args.node_id:
        raise NotFound(
            f"no summary node {ctx.args.node_id[:80]!r} in project {identity.project}; "
            "`tree-ring tree show` starts at the root"
        )
    if node is None:
        ctx.emit(
            {"project": identity.project, "node": None, **listing([])},
            "the root summary quotes forgotten content; `tree-ring recall --tree QUERY` "
            "finds the other summaries"
            if shown.withheld
            else "no summary sealed yet: the history is still short "
            "(`tree-ring tree status` shows the buffers)",
        )
        return 0
    data: dict[str, Any] = {
        "project": identity.project,
        "node": node.to_dict(),
        **listing([child.to_dict() for child in kids]),
    }
    lines = [
        f"{node.id}  L{node.level}  {node.leaf_count} memories  "
        f"{node.time_range_start[:19]}Z .. {node.time_range_end[:19]}Z",
        node.content,
        f"children ({len(kids)}):",
    ]
    for child in kids:
        if child.kind == "node":
            lines.append(f"  {child.id}  L{child.level} ({child.leaf_count}): {_clip(child.text)}")
        elif child.live:
            lines.append(f"  {child.id}  {_clip(child.text)}")
        else:
            lines.append(f"  {child.id}  (not live now)")
    ctx.emit(data, "\n".join(lines))
    return 0


def cmd_tree_flush(ctx: Context) -> int:
    max_age = ctx.args.max_age
    if max_age is not None and not nodes.in_bounds("flush_age_secs", max_age):
        low, high = nodes.BOUNDS["flush_age_secs"]
        raise UsageError(f"--max-age is a whole number of seconds from {low} to {high}")
    root = ctx.root()
    ctx.identity(root)  # refuses a --project naming another than the store's own
    with ctx.store(root) as store, store.write() as db:
        flushed = repair.flush(db, now_iso(), max_age_secs=max_age)
    sealed = sum(len(f.sealed) for f in flushed)
    data = {
        "sealed": sealed,
        **listing(
            [
                {"tree": f.tree_id, "kind": f.kind, "scope": f.scope, "sealed": list(f.sealed)}
                | {"forced": f.forced}
                for f in flushed
            ]
        ),
    }
    ctx.emit(data, f"sealed {sealed} summary nodes in {len(flushed)} trees")
    return 0


def cmd_tree_rebuild(ctx: Context) -> int:
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store, progress.Reporter() as reporter, store.write() as db:
        count = repair.rebuild(db, identity.project, progress=reporter)
        tree = tree_recall.source_tree(db, identity.project)
    data = {"project": identity.project, "rebuilt_from": count, "root_id": tree and tree.root_id}
    ctx.emit(data, f"rebuilt the summary tree of {identity.project} from {count} memories")
    return 0


def cmd_tree_config(ctx: Context) -> int:
    """Show the tree settings, or change them (`--set input_token_budget=2000`)."""
    changes: list[tuple[str, str]] = []
    pairs: list[str] = list(ctx.args.set or [])
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--set takes KEY=VALUE, e.g. input_token_budget=2000; got {item!r}")
        key = key.strip().removeprefix("tree.")  # `nodes.set_config` takes either name
        once(key, (seen for seen, _ in changes), "tree config --set", f"--set {key}=VALUE")
        changes.append((key, value.strip()))
    root = ctx.root()
    identity = ctx.identity(root)
    actor = ctx.actor(identity)
    with ctx.store(root) as store:
        if not changes:
            cfg = nodes.config(store.db)
        else:
            with store.write() as db:
                coordinator.authorize(db, "tree.config", actor, "tree settings")
                for key, value in changes:
                    cfg = nodes.set_config(db, key, value)
                    audit.append(db, actor, "tree-config", f"tree.{key}", {"value": value})
            cfg = nodes.config(store.db)
    data = dict(cfg.__dict__)
    ctx.emit(
        {"config": data, "changed": dict(changes)},
        "\n".join(f"{key} = {value}" for key, value in data.items()),
    )
    return 0


def cmd_recall_tree(ctx: Context) -> int:
    """`recall --tree QUERY`: answer from summary nodes, not raw memories."""
    a = ctx.args
    for flag in ("as_of", "valid_at", "scope"):
        if getattr(a, flag, None):
            raise UsageError(
                f"--tree answers from the summary tree as it is now, across the project's "
                f"shared scopes; drop --{flag.replace('_', '-')} or drop --tree"
            )
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.project(root) as project:
        hits = project.recall_tree(a.query, limit=a.limit)
    data = {"query": a.query, "project": identity.project, "tree": True, "limit": a.limit}
    data |= listing([hit.to_dict() for hit in hits])
    text = "\n".join(
        f"{h.node.id}  L{h.node.level} ({h.node.leaf_count} memories, "
        f"{h.node.time_range_start[:10]}..{h.node.time_range_end[:10]}): {h.snippet}"
        for h in hits
    )
    ctx.emit(data, text or "no summary mentions that (plain `recall` searches every memory)")
    return 0


def _nested(parent: argparse.ArgumentParser) -> Any:
    add = nested(parent, "tree_command", "tree")

    def action(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        p = add(name, handler, help_text)
        project_flag(p)
        return p

    return action


def _consolidate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--period-type", choices=consolidate.PERIOD_TYPES, default="manual", help="default: manual"
    )
    p.add_argument(
        "--period-key",
        help="2026-11-29, 2026-W48, 2026-11 or 2026, in ASCII digits "
        "(default: the current period; manual covers all time and takes none)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the plan; write nothing")
    sensitive_flag(p, "show the text of summaries over sensitive memories (withheld otherwise)")
    p.add_argument("--force", action="store_true", help="replace existing summaries (supersede)")
    p.add_argument(
        "--retire-sources",
        action="store_true",
        help="retire the sources of each accepted summary written (audited; their text stays "
        "on record, `--as-of` finds them); brief and recall then show the summary alone",
    )
    project_flag(p)
    writes_project(p)


def _tree_arguments(p: argparse.ArgumentParser) -> None:
    action = _nested(p)
    action("status", cmd_tree_status, "per tree: levels, node counts, buffer fill, root")
    s = action("show", cmd_tree_show, "a summary node and its children (default: the root)")
    s.add_argument("node_id", nargs="?", help="a node id from `tree status` or `recall --tree`")
    f = action("flush", cmd_tree_flush, "seal pending buffers and L0 buffers older than max age")
    f.add_argument(
        "--max-age", type=int, metavar="SECONDS", help="default: the tree.flush_age_secs setting"
    )
    writes_project(f)
    writes_project(
        action(
            "rebuild", cmd_tree_rebuild, "build the project's tree from scratch from its memories"
        )
    )
    c = action("config", cmd_tree_config, "show the tree's budgets, or change one with --set")
    c.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="input_token_budget, output_token_budget, summary_fanout, flush_age_secs, deferred",
    )
    writes_project(c)


EXAMPLES: dict[str, tuple[str, ...]] = {
    "consolidate": (
        "tree-ring consolidate --dry-run",
        "tree-ring consolidate --period-type weekly --period-key 2026-W48",
    ),
    "tree": (
        "tree-ring tree status",
        "tree-ring tree show",
        "tree-ring tree config --set input_token_budget=2000",
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "consolidate": (cmd_consolidate, _consolidate_arguments),
    "tree": (cmd_tree_status, _tree_arguments),
}
