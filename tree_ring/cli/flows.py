"""Verbs that move memory to where it is needed: inbox and promote."""

from __future__ import annotations

from tree_ring.cli.context import Arguments, Context, Handler, limit_flag, sensitive_flag
from tree_ring.cli.govern import user_waiting_line
from tree_ring.govern import admission
from tree_ring.model.errors import UsageError
from tree_ring.model.record import PRIVATE_SCOPES, RINGS, Memory, option_time
from tree_ring.model.text import in_quotes
from tree_ring.read import withheld

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from tree_ring.api.project import Project
    from tree_ring.review.inbox import Item

ORIGINS = ("claude-code", "codex", "agent")
PROMOTE_SCOPES = ("project", "global")


# ---- inbox


def _item_data(item: Item) -> dict[str, Any]:
    m = item.memory
    return {
        "id": m.id,
        "summary": m.summary,
        "ring": m.ring,
        "scope": m.scope,
        "trust": m.trust,
        "origin": m.origin,
        "session_id": m.session_id,
        "agent_profile": m.agent_profile,
        "event_type": m.event_type,
        "created_at": m.created_at,
        "expires_at": m.expires_at,
        "partition": item.partition,
        "origin_label": item.origin,
        "why": item.why,
        "why_label": item.why_label,
        "actions": list(item.actions),
    }


def _item_lines(item: Item) -> list[str]:
    from tree_ring.review.inbox import expiry_note, source

    m = item.memory
    state = "" if m.trust == "accepted" else f" [{m.trust.upper()}]"
    why = item.why
    if item.why_label == "reviewed":
        decided = {"accepted": "approved"}.get(m.trust, m.trust)
        why += f" ({decided} by {m.reviewed_by or '-'})"
    lines = [
        f"{m.id}  [{m.ring}]{state} {in_quotes(m.summary)}",
        f"    from {source(m, item.origin)}, {m.created_at[:19]}Z",
        f"    {item.why_label}: {why}",
    ]
    if m.expires_at:
        lines.append(f"    {expiry_note(m.expires_at)}")
    if "promote" in item.actions:
        lines.append(f'    promote: tree-ring promote {m.id} --reason "..."')
    if "review" in item.actions:
        lines.append(
            f'    review: tree-ring review approve {m.id} --reason "..." '
            f'(or `tree-ring review reject {m.id} --reason "..."`)'
        )
    shared = m.scope not in PRIVATE_SCOPES
    if shared and m.trust != "accepted":
        kept = "it stays waiting; no session sees it until it is approved"
    else:
        kept = "it is already shared with the project" if shared else "it stays in its partition"
    lines.append(f"    keep: nothing to do ({kept})")
    lines.append(f'    forget: tree-ring forget {m.id} --mode delete --reason "..."')
    return lines


def cmd_inbox(ctx: Context) -> int:
    a = ctx.args
    actions = [name for name in ("promote", "keep", "forget") if getattr(a, name)]
    if len(actions) > 1:
        raise UsageError("choose one of --promote, --keep, --forget")
    action = actions[0] if actions else None
    if action and not a.all:
        raise UsageError(
            f"--{action} acts on every listed item with --all; "
            f"for one memory run `tree-ring {action} ID`"
        )
    if a.all and not action:
        raise UsageError("--all needs what to do: --promote, --keep or --forget")
    if action in ("promote", "forget") and not a.reason:
        raise UsageError(f"--{action} needs --reason; it is kept in the audit log")
    since = option_time(a.since, "--since")
    with ctx.project() as opened:
        project_id = opened.project_id
        narrow: dict[str, Any] = {
            "origin": a.origin,
            "session_id": a.session_id,
            "since": since,
            "agent_profile": a.agent_profile,
            "include_sensitive": a.include_sensitive,
        }
        found = opened.inbox(limit=a.limit, **narrow)
        if action is not None:
            found = opened.inbox(limit=found.total, **narrow)
            return _batch(ctx, opened, found, action)
        if not a.peek and found.items:
            shown_ids = [i.memory.id for i in found.items]
            opened.mark_seen([*shown_ids, *found.forgotten])
        mine = opened.user_waiting()
    shown = len(found.items)
    listable = found.total - found.withheld
    lines = [
        f"inbox: {found.total} new since you last looked (newest first"
        + (f"; showing {shown} of {listable}" if shown < listable else "")
        + ("" if a.peek or not shown else "; now marked seen")
        + ")"
    ]
    if found.withheld:
        lines.append(withheld.left_out(found.withheld))
    for item in found.items:
        lines += _item_lines(item)
    if not found.total:
        lines = ["inbox: nothing new since you last looked"]
    if mine:
        lines.append(user_waiting_line(mine))
    ctx.emit(
        {
            "command": "inbox",
            "project": project_id,
            "items": [_item_data(i) for i in found.items],
            "total": found.total,
            "shown": shown,
            "withheld": found.withheld,
            "offset": 0,
            "limit": a.limit,
            "marked_seen": bool(found.items) and not a.peek,
            "user_store_waiting": mine,
        },
        "\n".join(lines),
    )
    return 0


def _batch(ctx: Context, opened: Project, found: Any, action: str) -> int:

    a = ctx.args
    project_id = opened.project_id
    ids = [i.memory.id for i in found.items]
    done: list[str] = []
    also: list[str] = []  # copies of a forgotten claim the listing did not show (retired ones)
    skipped: dict[str, str] = {}  # what a promote leaves, and why
    if ids and action == "promote":
        skipped = _not_promotable([i.memory for i in found.items])
        ids = [memory_id for memory_id in ids if memory_id not in skipped]
        promoted = opened.promote(ids, reason=a.reason, scope=a.scope, ring=a.ring) if ids else []
        done = [p.id for p in promoted]
    elif ids and action == "keep":
        opened.keep(ids)
        done = ids
    elif ids:
        for memory_id in ids:
            if memory_id in done:
                continue  # forgotten with a copy of the same claim listed before it
            forgot = opened.forget(memory_id, mode=a.mode, reason=a.reason)
            done += [memory_id, *(t for t in forgot.twins if t in ids and t not in done)]
            also += [t for t in forgot.twins if t not in ids and t not in also]
    if done and action != "keep":
        opened.mark_seen(done)
    verb = {"promote": "promoted", "keep": "kept", "forget": "forgot"}[action]
    ctx.emit(
        {
            "command": "inbox",
            "project": project_id,
            "action": action,
            "items": [_item_data(i) for i in found.items],
            "total": found.total,
            "shown": len(found.items),
            "withheld": found.withheld,
            verb: done,
            **({"also_forgot": also} if action == "forget" else {}),
            **({"skipped": [{"id": k, "why": v} for k, v in skipped.items()]} if skipped else {}),
        },
        f"inbox: {verb} {len(done)} of {found.total}"
        + (_nothing_unseen(action) if not found.total and not found.withheld else "")
        + (f"\n{withheld.left_out(found.withheld)}" if found.withheld else "")
        + "".join(f"\n{memory_id}" for memory_id in done)
        + (f"\nalso forgot {len(also)} of the same claims: {', '.join(also)}" if also else "")
        + (f"\nleft {len(skipped)}, each as it is:" if skipped else "")
        + "".join(f"\n{memory_id}: {why}" for memory_id, why in skipped.items()),
    )
    return 0


# What acts on one item a listing showed, once it is seen (`--all` acts on
# unseen items only).
ONE_BY_ONE = {
    "promote": "tree-ring promote ID --reason WHY",
    "forget": "tree-ring forget ID --mode delete --reason WHY",
}


def _nothing_unseen(action: str) -> str:
    """Why `--all` found nothing, when a listing just marked it all seen."""
    if action not in ONE_BY_ONE:
        return ""
    return (
        "\nnothing unseen: a listing without --peek marks what it shows seen; "
        f"`{ONE_BY_ONE[action]}` acts on one of those, "
        "and `inbox --peek` looks without marking"
    )


def _not_promotable(memories: list[Memory]) -> dict[str, str]:
    """The listed memories a batch promote leaves, with why (waiting for a
    decision, shared already, ended): the rest are promoted."""
    from tree_ring.model.errors import TreeRingError
    from tree_ring.model.record import now_iso
    from tree_ring.review import promote

    now, found = now_iso(), dict[str, str]()
    for memory in memories:
        try:
            promote.check(memory, now)
        except TreeRingError as why:
            found[memory.id] = str(why).removeprefix(f"{memory.id} ")
    return found


# ---- promote


def cmd_promote(ctx: Context) -> int:
    a = ctx.args
    with ctx.project() as project:
        done = project.promote(a.ids, reason=a.reason, scope=a.scope, ring=a.ring)
        identity = project.identity
    items = [
        {
            "id": p.id,
            "scope": p.scope,
            "ring": p.ring,
            "store": p.store,
            "from_scope": p.from_scope,
            "decision_reason": p.reason,
            "promoted_at": p.at,
            "disputes": list(p.disputes),
        }
        for p in done
    ]
    lines: list[str] = []
    for p in done:
        where = (
            "your user store (every project's brief can show it)"
            if p.store == "user"
            else f"the shared {p.scope} scope (every harness's next brief here can show it)"
        )
        lines.append(f"promoted {p.id} from {p.from_scope} to {where}; ring {p.ring}")
        lines += admission.disputes_said(p.disputes)
    ctx.emit(
        {
            "command": "promote",
            "project": identity.project,
            "items": items,
            "total": len(items),
            "shown": len(items),
        },
        "\n".join(lines),
    )
    return 0


def _inbox_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--origin", choices=ORIGINS, help="only what this harness wrote")
    p.add_argument("--session-id", help="only what this session wrote")
    p.add_argument("--agent-profile", help="only this agent partition (a subagent's, say)")
    p.add_argument("--since", metavar="TIME", help="only what was written at or after TIME")
    limit_flag(p, 50, "list at most this many (default 50)")
    p.add_argument("--peek", action="store_true", help="list without marking anything seen")
    sensitive_flag(p, "also list sensitive memories (counted and withheld otherwise)")
    p.add_argument("--all", action="store_true", help="act on every unseen item the filters match")
    p.add_argument("--promote", action="store_true", help="with --all: promote them")
    p.add_argument("--keep", action="store_true", help="with --all: keep them in their partitions")
    p.add_argument("--forget", action="store_true", help="with --all: forget them")
    p.add_argument("--reason", help="why (--promote, --forget); kept in the audit log")
    p.add_argument("--scope", choices=PROMOTE_SCOPES, default="project", help="--promote to")
    p.add_argument("--ring", choices=RINGS, help="--promote with this ring")
    p.add_argument("--mode", choices=("delete", "redact"), default="delete", help="--forget mode")


def _promote_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "ids", nargs="+", metavar="ID", help="the memory to promote (`inbox` lists them)"
    )
    p.add_argument(
        "--scope",
        choices=PROMOTE_SCOPES,
        default="project",
        help="project: every harness in this project; global: your user store, every project",
    )
    p.add_argument("--ring", choices=RINGS, help="give it this ring (heartwood: durable truth)")
    p.add_argument("--reason", required=True, help="why it is shared; kept in the audit log")


EXAMPLES: dict[str, tuple[str, ...]] = {
    "inbox": (
        "tree-ring inbox",
        "tree-ring inbox --peek --origin codex",
        'tree-ring inbox --all --promote --origin claude-code --reason "reviewed"',
    ),
    "promote": (
        'tree-ring promote mem_20261201_090615_b1e33a6acd85 --reason "every harness needs it"',
        'tree-ring promote mem_20261201_090615_b1e33a6acd85 --ring heartwood --reason "a rule"',
        'tree-ring promote mem_20261201_090615_b1e33a6acd85 --scope global --reason "mine"',
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "inbox": (cmd_inbox, _inbox_arguments),
    "promote": (cmd_promote, _promote_arguments),
}
