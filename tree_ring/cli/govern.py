"""Verbs that govern what is believed: review, and the coordinated write policy."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tree_ring.cli.context import Arguments, Context, Handler, user_flag
from tree_ring.govern import coordinator
from tree_ring.model.errors import UsageError
from tree_ring.ops import review
from tree_ring.store.audit import Actor
from tree_ring.write import requests


def _actor(ctx: Context) -> Actor:
    return ctx.actor(ctx.identity(ctx.root()))


def _memory_id(ctx: Context) -> str:
    memory_id: str | None = ctx.args.id
    if not memory_id:
        raise UsageError(
            f"review {ctx.args.review_action} needs the memory id: `review list` shows them"
        )
    return memory_id


def _decision(ctx: Context, decision: review.Decision) -> int:
    data: dict[str, Any] = {
        "id": decision.id,
        "decision": decision.decision,
        "trust": decision.trust,
        "reason": decision.reason,
        "reviewed_by": decision.reviewed_by,
        "reviewed_at": decision.reviewed_at,
        "superseded": list(decision.superseded),
    }
    done = {"approve": "approved", "reject": "rejected", "dispute": "disputed"}[decision.decision]
    request = decision.request
    if request is not None:
        data["request"] = request.to_dict()
        data["lingering"] = decision.lingering
        if decision.decision == "approve":
            text = (
                f"approved {request.id}: {request.memory_id} is forgotten ({request.mode}) "
                f"by {decision.reviewed_by}; its content is tombstoned"
            )
        else:
            text = f"rejected {request.id}: {request.memory_id} stays as it is"
        ctx.emit(data, text)
        if decision.lingering is not None:
            print(f"error: {decision.lingering}", file=sys.stderr)
            return 1
        return 0
    text = f"{done} {decision.id} (now {decision.trust}) by {decision.reviewed_by}"
    if decision.decision == "reject":
        text += "; its content is tombstoned and will not be stored again"
    if decision.superseded:
        text += f"; it supersedes {', '.join(decision.superseded)}"
    ctx.emit(data, text)
    return 0


def cmd_review_list(ctx: Context) -> int:
    root = ctx.root()
    project_id = ctx.project_id(root)
    with ctx.store(root) as store:
        waiting = review.queue(store.db, project_id)[: ctx.args.limit]
        total = review.queue_size(store.db, project_id)
        asked = requests.waiting(store.db, project_id)
    items: list[dict[str, Any]] = []
    lines = [f"review queue: {total} waiting (oldest first)"]
    for w in waiting:
        m = w.memory
        items.append(
            {
                "id": m.id,
                "trust": m.trust,
                "reason": m.review_reason,
                "summary": m.summary,
                "ring": m.ring,
                "scope": m.scope,
                "event_type": m.event_type,
                "origin": m.origin,
                "origin_session": m.origin_session,
                "created_at": m.created_at,
                "contradicts": [
                    {"id": o.id, "summary": o.summary, "trust": o.trust} for o in w.contradicts
                ],
            }
        )
        lines.append(f"{m.id}  [{m.trust.upper()}] [{m.ring}] {m.summary}")
        lines.append(f"    why: {m.review_reason or 'waiting for review'}")
        lines.append(f"    from {m.origin} at {m.created_at[:19]}Z ({m.scope})")
        lines += [f"    contradicts {o.id} [{o.trust}]: {o.summary}" for o in w.contradicts]
    if not waiting:
        lines = ["review queue: empty"]
    if asked:
        lines.append(f"requests to forget: {len(asked)} waiting")
    for r in asked:
        lines.append(f"{r.id}  forget {r.memory_id} ({r.mode})")
        lines.append(f"    why: {r.reason}")
        lines.append(f"    asked by {r.actor} ({r.origin}) at {r.created_at[:19]}Z")
    ctx.emit(
        {
            "project": project_id,
            "total": total,
            "waiting": items,
            "requests": [r.to_dict() for r in asked],
        },
        "\n".join(lines),
    )
    return 0


def cmd_review_approve(ctx: Context) -> int:
    a = ctx.args
    actor = _actor(ctx)
    with ctx.store() as store:
        decision = review.approve(
            store, _memory_id(ctx), actor=actor, reason=a.reason, supersede=a.supersede_contradicted
        )
    return _decision(ctx, decision)


def cmd_review_reject(ctx: Context) -> int:
    actor = _actor(ctx)
    with ctx.store() as store:
        decision = review.reject(store, _memory_id(ctx), actor=actor, reason=ctx.args.reason)
    return _decision(ctx, decision)


def cmd_review_dispute(ctx: Context) -> int:
    actor = _actor(ctx)
    with ctx.store() as store:
        decision = review.dispute(store, _memory_id(ctx), actor=actor, reason=ctx.args.reason)
    return _decision(ctx, decision)


def _parse_setting(text: str) -> tuple[str, bool]:
    key, sep, value = text.partition("=")
    flag = {"true": True, "false": False}.get(value.strip().lower())
    if not sep or flag is None or not key.strip():
        raise UsageError(f"--set takes KEY=true or KEY=false, not {text[:60]!r}")
    return key.strip(), flag


def cmd_review_policy(ctx: Context) -> int:
    changes = dict(_parse_setting(item) for item in ctx.args.set or ())
    with ctx.store() as store:
        if changes:
            settings = review.set_policy(store, changes, _actor(ctx))
        else:
            settings = review.show_policy(store)
    lines = [f"{key} = {'true' if value else 'false'}" for key, value in settings.items()]
    ctx.emit({"review_policy": settings, "changed": changes}, "\n".join(lines))
    return 0


def cmd_review(ctx: Context) -> int:
    handlers = {
        "list": cmd_review_list,
        "approve": cmd_review_approve,
        "reject": cmd_review_reject,
        "dispute": cmd_review_dispute,
        "policy": cmd_review_policy,
    }
    return handlers[ctx.args.review_action](ctx)


def _minted(ctx: Context, minted: coordinator.Minted, verb: str) -> int:
    state = minted.state
    ctx.emit(
        {
            "mode": state.mode,
            "coordinator": state.coordinator,
            "capability": minted.token,
            "env": coordinator.TOKEN_VAR,
        },
        f"write policy {verb}: coordinated, coordinator {state.coordinator}\n"
        f"capability (shown once; give it to the coordinator as {coordinator.TOKEN_VAR}, "
        "never to workers, never on a command line or in memory):\n"
        f"{minted.token}",
    )
    return 0


def cmd_policy_enable(ctx: Context) -> int:
    if not ctx.args.coordinator:
        raise UsageError("policy enable needs --coordinator NAME")
    actor = _actor(ctx)
    with ctx.store() as store:
        minted = coordinator.enable(store, ctx.args.coordinator, actor)
    return _minted(ctx, minted, "enabled")


def cmd_policy_rotate(ctx: Context) -> int:
    actor = _actor(ctx)
    with ctx.store() as store:
        minted = coordinator.rotate(store, ctx.args.coordinator, actor)
    return _minted(ctx, minted, "rotated")


def cmd_policy_disable(ctx: Context) -> int:
    actor = _actor(ctx)
    with ctx.store() as store:
        coordinator.disable(store, actor)
    ctx.emit({"mode": "open"}, "write policy disabled: open mode")
    return 0


def cmd_policy_status(ctx: Context) -> int:
    with ctx.store() as store:
        state = coordinator.state(store.db)
        counts = coordinator.counts(store.db)
        held = coordinator.holds(store.db, _actor(ctx)) if state.mode == "coordinated" else False
    data: dict[str, Any] = {
        "mode": state.mode,
        "coordinator": state.coordinator,
        "enabled_at": state.enabled_at,
        "rotated_at": state.rotated_at,
        "capability_present": held,
        "decisions": counts,
    }
    lines = [f"write policy: {state.mode}"]
    if state.mode == "coordinated":
        lines.append(f"coordinator: {state.coordinator} (since {(state.enabled_at or '')[:19]}Z)")
        if state.rotated_at:
            lines.append(f"capability rotated at {state.rotated_at[:19]}Z")
        lines.append(
            f"{coordinator.TOKEN_VAR} in this environment: "
            + ("the current capability" if held else "absent or not current")
        )
    lines.append(
        f"decisions recorded: {counts.get('allow', 0)} allowed, {counts.get('deny', 0)} denied"
    )
    ctx.emit(data, "\n".join(lines))
    return 0


def cmd_policy_audit(ctx: Context) -> int:
    with ctx.store() as store:
        found = coordinator.audit_entries(store.db, limit=ctx.args.limit)
    text = "\n".join(
        f"{e['seq']:>6} {e['at'][:19]}Z {e['decision']:<5} {e['action']:<18} "
        f"by {e['actor']} ({e['origin']}, capability {e['capability']}) {e['reason']}"
        for e in found
    )
    ctx.emit({"entries": found}, text or "no policy decisions recorded")
    return 0


def cmd_policy(ctx: Context) -> int:
    handlers = {
        "enable": cmd_policy_enable,
        "status": cmd_policy_status,
        "rotate": cmd_policy_rotate,
        "disable": cmd_policy_disable,
        "audit": cmd_policy_audit,
    }
    return handlers[ctx.args.policy_action](ctx)


def _review_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "review_action",
        choices=("list", "approve", "reject", "dispute", "policy"),
        metavar="ACTION",
        help="list | approve ID | reject ID --reason | dispute ID --reason | policy [--set K=V]",
    )
    p.add_argument("id", nargs="?", help="the memory to decide on")
    p.add_argument("--reason", help="why (required to reject or dispute); kept on the row")
    p.add_argument(
        "--supersede-contradicted",
        action="store_true",
        help="approve: also supersede the live memories this one contradicts",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=true|false",
        help="policy: change what waits for review (repeatable)",
    )
    p.add_argument("--limit", type=int, default=100, help="list: show at most this many")
    p.add_argument("--agent-profile", help="who decides (TREE_RING_AGENT_PROFILE)")
    user_flag(p)


def _policy_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "policy_action",
        choices=("enable", "status", "rotate", "disable", "audit"),
        metavar="ACTION",
        help="enable --coordinator NAME | status | rotate | disable | audit",
    )
    p.add_argument("--coordinator", help="enable/rotate: who holds the capability")
    p.add_argument("--limit", type=int, default=50, help="audit: the newest N decisions")
    p.add_argument("--agent-profile", help="who is acting (TREE_RING_AGENT_PROFILE)")


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "review": (cmd_review, _review_arguments),
    "policy": (cmd_policy, _policy_arguments),
}
