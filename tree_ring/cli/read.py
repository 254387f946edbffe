"""Verbs that read memories: recall, brief, list, show."""

from __future__ import annotations

import sys

from tree_ring.cli.context import (
    Arguments,
    Context,
    Handler,
    identity_flags,
    limit_flag,
    listing,
    offset_flag,
    sensitive_flag,
    showing,
    user_flag,
    view_flags,
)
from tree_ring.model import jsontext
from tree_ring.model.errors import UsageError
from tree_ring.model.record import ORIGINS, RINGS, SCOPES, TRUST_STATES, option_time
from tree_ring.model.text import error_safe, in_quotes
from tree_ring.read import disputes, withheld
from tree_ring.read.meaning import MATCH as MEANING
from tree_ring.read.recall import DEFAULT_LIMIT, Hit
from tree_ring.store.live import View

# The end of a plain recall line found through related words only.
RELATED = "related words"

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any


def _hit_line(label: str, memory: Any, extra: str = "") -> str:
    """One memory, one line, its summary quoted (`in_quotes`): a line break
    in it (a row edited in the database) is written out as `\\n`, so it
    cannot show as a row of its own."""
    flag = f"[{label}] " if label else ""
    return f"{memory.id}  [{memory.ring}] {flag}{in_quotes(memory.summary)}{extra}"


# Said under hits none of which holds a word of the question: what recall
# found is only related to it, or near it in meaning, however it scores.
UNWORDED = "(none of these holds a word of the question: only related or near in meaning)"


def cmd_recall(ctx: Context) -> int:
    a = ctx.args
    if not a.query.strip():
        raise UsageError("the query is blank; give the words to search for")
    if a.tree:
        from tree_ring.cli import compress  # the summary tree's modules, only when asked

        return compress.cmd_recall_tree(ctx)
    # A person recalls over every partition, unless they name one: then they
    # see what that partition's agent sees.
    named = (getattr(a, name, None) for name in ("agent_profile", "workflow_id", "session_id"))
    person = ctx.whole_project and not any(named)
    with ctx.project() as project:
        hits = project.recall(
            a.query, limit=a.limit, view=ctx.view(), scope=a.scope, whole_project=person
        )
        # What the project's hits' anchored files are now (the user store's name none).
        judged = project.anchors([h.memory.id for h in hits if h.store == "project"], ctx.view())
        disputed = project.disputes(hits, ctx.view())
    data: dict[str, Any] = {
        "query": a.query,
        "project": project.project_id,
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
                    "partition": h.partition,
                    "store": h.store,
                    "source": {"type": h.memory.source_type, "ref": h.memory.source_ref},
                    "score": h.score,
                    "score_parts": h.hit.parts,
                    "literal": h.hit.literal and not h.hit.related,
                    "match": h.hit.query,
                    **anchor_fields(judged.get(h.memory.id)),
                    "disputed": disputed.get(h.memory.id, []),
                }
                for h in hits
            ]
        ),
    }
    text = "\n".join(
        _hit_line(
            h.label,
            h.memory,
            f"  ({h.partition}; {h.score:.3f}{_found_by(h.hit)})"
            + stale_words(judged.get(h.memory.id))
            + "".join(f"  ({note})" for note in disputed.get(h.memory.id, [])),
        )
        for h in hits
    )
    if hits and all(_found_by(h.hit) for h in hits):
        text += "\n" + UNWORDED
    ctx.emit(data, text or "no memories match")
    # The project's hits in its usage log, so `show` can say how often each was recalled.
    problem = project.note_usage(
        "recall", [h.memory.id for h in hits if h.store == "project"], len(text.encode("utf-8"))
    )
    if problem is not None:
        sys.stderr.write(f"tree-ring: {problem}\n")
    return 0


def anchor_fields(judged: list[Any] | None) -> dict[str, Any]:
    """A result's `anchors` (each with its `state`) and `stale`, for `--json`."""
    from tree_ring.read import staleness

    return {
        "anchors": staleness.as_dicts(judged or []),
        "stale": any(c.stale for c in judged or []),
    }


def stale_words(judged: list[Any] | None) -> str:
    """`  (stale: src/x.py changed since 2026-11-30)` for a stale result, else ''."""
    from tree_ring.read import staleness

    changed = [c for c in judged or [] if c.stale]
    return f"  ({staleness.mark(changed)})" if changed else ""


def cmd_brief(ctx: Context) -> int:
    with ctx.project() as project:
        result = project.brief(ctx.view(), strict=True)
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
    a = ctx.args
    view = ctx.view()
    if a.trust and a.trust != "accepted":
        view = View(view.as_of, view.valid_at, view.include_sensitive, True, a.trust == "rejected")
    with ctx.project() as project:
        # What the other store forgot is left out before the page is cut (`Project.list`).
        page = project.list(
            view,
            limit=a.limit,
            offset=a.offset,
            scope=a.scope,
            ring=a.ring,
            trust=a.trust,
            origin="person" if a.mine else a.origin,
            since=option_time(a.since, "--since"),
            # A person's whole-project list, narrowed to what was written by one
            # session or agent; an agent's partitions are already its own.
            session=a.session_id if ctx.whole_project else None,
            agent_profile=a.agent_profile if ctx.whole_project else None,
        )
        identity = project.identity
        disputed = disputes.notes(project.store, page.memories, view)
    from tree_ring.read.labels import row_label

    found = page.memories
    data = {
        "project": identity.project,
        **listing([m.to_dict() for m in found], total=page.total, offset=a.offset, limit=a.limit),
    }
    if page.more_than is not None:
        # Counted no further (`listing.COUNTED_PAST_PAGE`): `total` is a floor.
        data["total"], data["total_is_floor"] = page.more_than + 1, True
    lines = [
        _hit_line(
            "" if m.trust == "accepted" else m.trust.upper(),
            m,
            f"  ({row_label(m)})" + "".join(f"  ({note})" for note in disputed.get(m.id, [])),
        )
        for m in found
    ]
    if found and (a.offset or len(found) < page.total):
        more = a.offset + len(found) < page.total
        lines.append(
            f"{showing(len(found), page.total, page.more_than)}"
            + (f" from {a.offset + 1:,}" if a.offset else "")
            + (f" (--offset {a.offset + len(found)} shows the next)" if more else "")
        )
    elif not found and page.total:
        lines.append(f"no memories past --offset {a.offset:,} ({page.total:,} in all)")
    ctx.emit(data, "\n".join(lines) or "no memories")
    return 0


def cmd_show(ctx: Context) -> int:
    from tree_ring.govern import reasons
    from tree_ring.store import refutations
    from tree_ring.team import provenance
    from tree_ring.upkeep import usage

    with ctx.project() as project:
        memory = project.show(ctx.args.id)
        # A note of the user store the brief gave has its refutation there.
        db = project.holder(memory).db
        came = provenance.of(db, [memory.id]).get(memory.id)
        refuted = refutations.find(db, [memory.id]).get(memory.id)
        if refuted is not None:
            # Its quote of content forgotten since is withheld, as in the review reason.
            refuted = refuted.replace(
                reason=reasons.shown(db, memory.project or "", refuted.reason)
            )
        judged = project.anchors([memory.id]).get(memory.id)
        root, identity = project.root, project.identity
        # A row retired here as it moved to the user store says where it went.
        moved = memory.retired_at is not None and project.also_in_user_store(memory.id)
    # The user store's rows have no project log; the project's log counts its own.
    used = None if ctx.on_user_store else usage.memory_usage(root, memory.id)
    # A sensitive row's text only when asked, as recall and list show it.
    view = ctx.view()
    withheld_text = withheld.hidden(memory, view)
    data = withheld.shown(memory, view).to_dict()
    if refuted is not None and withheld_text:
        # A refutation's reason is an agent's words about the row: withheld with its text.
        refuted = refuted.replace(reason=withheld.marker(memory))
    # Who refuted it and how often it was used, aligned with the fields above them.
    extra: dict[str, str] = {}
    if refuted is not None:
        when = refuted.created_at[:19]
        extra["disputed_by"] = f"{refuted.origin} ({when}Z): {refuted.reason}"
    if used is not None:
        extra["usage"] = used.line()
    lines = field_lines(data | extra)
    if withheld_text:
        lines.append(withheld.note(memory))
    if came is not None:
        lines.append(f"provenance: {came['label']}")
    if moved:
        lines.append(
            "moved: to your user store, where every project's brief reads it "
            f"(`tree-ring show {memory.id} --user`)"
        )
    for c in judged or []:
        lines.append(f"anchor: {c.anchor.path} ({c.state}; {c.anchor.blob[:12]}, {c.anchor.at})")
    document = {
        "project": identity.project,
        "memory": data,
        "withheld": withheld_text,
        "provenance": came,
        "refuted": None if refuted is None else refuted.to_dict(),
        "usage": None if used is None else used.to_dict(),
        **anchor_fields(judged),
    }
    ctx.emit(document, "\n".join(lines))
    return 0


# The fields a memory may write on several lines; each of their continuation
# lines is shown indented under the value's first.
MULTILINE_FIELDS = frozenset({"details", "source.quote"})


def field_lines(data: dict[str, Any]) -> list[str]:
    """Aligned `field: value` lines, nested values flattened (`source.type: manual`,
    `tags[0]: x`); empty values left out. A line break in any other field (a
    row edited in the database) is written out as `\\n`: no value can show
    as a field line of its own."""
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
            flat.append((prefix, text if prefix in MULTILINE_FIELDS else error_safe(text)))

    walk("", data)
    width = max((len(name) for name, _ in flat), default=0) + 1
    under = "\n" + " " * (width + 1)
    return [f"{name + ':':<{width}} {value.replace(chr(10), under)}" for name, value in flat]


def _recall_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    p.add_argument("--tree", action="store_true", help="answer from summary-tree nodes")
    limit_flag(p, DEFAULT_LIMIT, f"at most this many (default: {DEFAULT_LIMIT})")
    p.add_argument("--scope", choices=SCOPES)
    view_flags(p)
    identity_flags(p)
    user_flag(p)


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
    limit_flag(p, 100, "at most this many (default: 100)")
    offset_flag(p)
    view_flags(p)
    identity_flags(p)
    user_flag(p)


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    sensitive_flag(p, "show a sensitive memory's text (withheld otherwise)")
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
    "show": (
        "tree-ring show mem_20261129_134645_2d7a81bd6071",
        "tree-ring show mem_20261129_134645_2d7a81bd6071 --include-sensitive",
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "recall": (cmd_recall, _recall_arguments),
    "brief": (cmd_brief, _brief_arguments),
    "list": (cmd_list, _list_arguments),
    "show": (cmd_show, _show_arguments),
}


def _found_by(hit: Hit) -> str:
    """How a hit the question's own words did not find was found, as its
    line ends: near in meaning, or through related words only. Such a hit
    ranks below every hit holding the question's words, whatever its score
    (docs/RECALL-RANKING.md, "Literal first")."""
    if hit.query == MEANING or hit.near:
        return f"; {MEANING}"
    return "" if hit.literal and not hit.related else f"; {RELATED}"
