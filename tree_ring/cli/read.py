"""Verbs that read memories: recall, brief, list, show."""

from __future__ import annotations

from tree_ring.cli.context import (
    Arguments,
    Context,
    Handler,
    identity_flags,
    listing,
    showing,
    user_flag,
    view_flags,
)
from tree_ring.model import jsontext
from tree_ring.model.errors import UsageError
from tree_ring.model.record import ORIGINS, RINGS, SCOPES, TRUST_STATES, parse_time
from tree_ring.read.recall import DEFAULT_LIMIT, recall
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any


def _hit_line(label: str, memory: Any, extra: str = "") -> str:
    flag = f"[{label}] " if label else ""
    return f"{memory.id}  [{memory.ring}] {flag}{memory.summary}{extra}"


def cmd_recall(ctx: Context) -> int:
    a = ctx.args
    if not a.query.strip():
        raise UsageError("the query is blank; give the words to search for")
    if a.tree:
        from tree_ring.cli import compress  # the summary tree's modules, only when asked

        return compress.cmd_recall_tree(ctx)
    from tree_ring.cli.flows import hit_label, user_hits

    root = ctx.root()
    identity = ctx.identity(root)
    view = ctx.view()
    # A person recalls over every partition, unless they name one: then they
    # see what that partition's agent sees.
    named = (getattr(a, name, None) for name in ("agent_profile", "workflow_id", "session_id"))
    person = ctx.whole_project and not any(named)
    with ctx.store(root) as store:
        hits = recall(
            store, identity, a.query, limit=a.limit, view=view, scope=a.scope, whole_project=person
        )
    # The person's own store beside the project's, best first together.
    mine = user_hits(ctx, identity, a.query, limit=a.limit, view=view, scope=a.scope)
    from_user = {id(h) for h in mine}
    hits = sorted([*hits, *mine], key=lambda h: h.key, reverse=True)[: a.limit]
    labels = {id(h): hit_label(h, id(h) in from_user) for h in hits}
    data: dict[str, Any] = {
        "query": a.query,
        "project": identity.project,
        "limit": a.limit,
        **listing(
            [
                {
                    "id": h.memory.id,
                    "summary": h.memory.summary,
                    "ring": h.memory.ring,
                    "scope": h.memory.scope,
                    "trust": h.memory.trust,
                    "label": h.label,
                    "origin": h.memory.origin,
                    "partition": labels[id(h)],
                    "store": "user" if id(h) in from_user else "project",
                    "source": {"type": h.memory.source_type, "ref": h.memory.source_ref},
                    "score": h.score,
                    "score_parts": h.parts,
                    "literal": h.literal,
                    "match": h.query,
                }
                for h in hits
            ]
        ),
    }
    text = "\n".join(
        _hit_line(h.label, h.memory, f"  ({labels[id(h)]}; {h.score:.3f})") for h in hits
    )
    ctx.emit(data, text or "no memories match")
    return 0


def cmd_brief(ctx: Context) -> int:
    # Here, not at the top: recall, the verb people run most, needs neither.
    from tree_ring.cli.flows import open_user_quietly
    from tree_ring.read import brief

    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store:
        mine = open_user_quietly(ctx)
        try:
            result = brief.build_brief(store, identity, ctx.view(), user_store=mine)
        finally:
            if mine is not None:
                mine.close()
    # No receipt: a brief asked for by hand is not a hook firing, and `status`
    # reports receipts as the hooks' own.
    size = len(result.text.encode("utf-8"))
    data = {
        "project": result.project,
        "text": result.text,
        "bytes": size,
        "tokens": round(size / 4),
        **listing(list(result.ids)),
    }
    ctx.emit(data, result.text)
    return 0


def cmd_list(ctx: Context) -> int:
    from tree_ring.read import listing as reading

    a = ctx.args
    if a.limit < 1:
        raise UsageError(f"--limit takes a count of 1 or more, not {a.limit}")
    if a.offset < 0:
        raise UsageError(f"--offset takes 0 or more, not {a.offset}")
    root = ctx.root()
    identity = ctx.identity(root)
    view = ctx.view()
    if a.trust and a.trust != "accepted":
        view = View(view.as_of, view.valid_at, view.include_sensitive, True, a.trust == "rejected")
    with ctx.store(root) as store:
        page = reading.list_page(
            store,
            identity,
            view,
            whole_project=ctx.whole_project,
            limit=a.limit,
            offset=a.offset,
            scope=a.scope,
            ring=a.ring,
            trust=a.trust,
            origin="person" if a.mine else a.origin,
            since=parse_time(a.since, "--since") if a.since else None,
            # A person's whole-project list, narrowed to what was written by one
            # session or agent; an agent's partitions are already its own.
            session=a.session_id if ctx.whole_project else None,
            agent_profile=a.agent_profile if ctx.whole_project else None,
        )
    from tree_ring.read.labels import row_label

    found = page.memories
    data = {
        "project": identity.project,
        **listing([m.to_dict() for m in found], total=page.total, offset=a.offset, limit=a.limit),
    }
    lines = [
        _hit_line("" if m.trust == "accepted" else m.trust.upper(), m, f"  ({row_label(m)})")
        for m in found
    ]
    if found and (a.offset or len(found) < page.total):
        more = a.offset + len(found) < page.total
        lines.append(
            f"{showing(len(found), page.total)}"
            + (f" from {a.offset + 1:,}" if a.offset else "")
            + (f" (--offset {a.offset + len(found)} shows the next)" if more else "")
        )
    elif not found and page.total:
        lines.append(f"no memories past --offset {a.offset:,} ({page.total:,} in all)")
    ctx.emit(data, "\n".join(lines) or "no memories")
    return 0


def cmd_show(ctx: Context) -> int:
    from tree_ring.read import listing as reading
    from tree_ring.team import provenance

    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store:
        memory = reading.show(store.db, identity, ctx.args.id, whole_project=ctx.whole_project)
        came = provenance.of(store.db, [memory.id]).get(memory.id)
    data = memory.to_dict()
    lines = field_lines(data)
    if came is not None:
        lines.append(f"provenance: {came['label']}")
    ctx.emit({"project": identity.project, "memory": data, "provenance": came}, "\n".join(lines))
    return 0


def field_lines(data: dict[str, Any]) -> list[str]:
    """Aligned `field: value` lines, nested values flattened (`source.type: manual`,
    `tags[0]: x`); empty values left out."""
    flat: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any) -> None:
        table = jsontext.as_object(value)
        if table is not None:
            for key, inner in table.items():
                walk(f"{prefix}.{key}" if prefix else key, inner)
        elif isinstance(value, list | tuple):
            items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
            for index, inner in enumerate(items):
                walk(f"{prefix}[{index}]", inner)
        elif value is not None and value != "":
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            flat.append((prefix, text.replace("\n", "\n" + " " * 2)))

    walk("", data)
    width = max((len(name) for name, _ in flat), default=0) + 1
    return [f"{name + ':':<{width}} {value}" for name, value in flat]


def _recall_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    p.add_argument("--tree", action="store_true", help="answer from summary-tree nodes")
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT)
    p.add_argument("--scope", choices=SCOPES)
    view_flags(p)
    identity_flags(p)


def _brief_arguments(p: argparse.ArgumentParser) -> None:
    view_flags(p)
    identity_flags(p)


def _list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--ring", choices=RINGS)
    p.add_argument("--trust", choices=TRUST_STATES)
    p.add_argument("--origin", choices=ORIGINS, help="only rows this writer wrote")
    p.add_argument("--mine", action="store_true", help="only rows you wrote (origin person)")
    p.add_argument("--since", metavar="TIME", help="only rows recorded at or after TIME")
    p.add_argument("--limit", type=int, default=100, help="at most this many (default: 100)")
    p.add_argument("--offset", type=int, default=0, help="skip this many first (default: 0)")
    view_flags(p)
    identity_flags(p)
    user_flag(p)


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    identity_flags(p)
    user_flag(p)


EXAMPLES: dict[str, tuple[str, ...]] = {
    "recall": (
        'tree-ring recall "cache backend"',
        "tree-ring recall deploy --limit 3 --include-unreviewed",
        'tree-ring recall "what changed in November" --tree',
    ),
    "brief": ("tree-ring brief", "tree-ring --json brief"),
    "list": (
        "tree-ring list",
        "tree-ring list --ring heartwood --limit 20",
        "tree-ring list --limit 100 --offset 100",
    ),
    "show": ("tree-ring show mem_20261129_134645_2d7a81bd6071",),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "recall": (cmd_recall, _recall_arguments),
    "brief": (cmd_brief, _brief_arguments),
    "list": (cmd_list, _list_arguments),
    "show": (cmd_show, _show_arguments),
}
