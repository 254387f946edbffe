"""Verbs that govern what is believed: review, and the coordinated write policy."""

from __future__ import annotations

from typing import Any

from tree_ring.cli.context import (
    Arguments,
    Context,
    Handler,
    limit_flag,
    listing,
    nested,
    once,
    sensitive_flag,
    showing,
    user_flag,
)
from tree_ring.govern import admission, coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.errors import UsageError
from tree_ring.model.record import ORIGINS, RINGS, SCOPES, Memory, option_time
from tree_ring.model.text import in_quotes, preview
from tree_ring.model.user_home import USER_PROJECT
from tree_ring.read import withheld
from tree_ring.review import queue as review
from tree_ring.write import requests

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def _actor(ctx: Context) -> Actor:
    return ctx.actor(ctx.identity(ctx.root()))


def _memory_id(ctx: Context) -> str:
    memory_id: str | None = ctx.args.id
    if not memory_id:
        raise UsageError(
            "review approve needs the memory id (`review list` shows them), "
            "or --all to approve every pending row a filter names"
        )
    return memory_id


def decision_data(decision: review.Decision) -> dict[str, Any]:
    """A decision as `--json` reports it (one item of `review approve --all`)."""
    data: dict[str, Any] = {
        "id": decision.id,
        "decision": decision.decision,
        "trust": decision.trust,
        "decision_reason": decision.reason,
        "reviewed_by": decision.reviewed_by,
        "reviewed_at": decision.reviewed_at,
        "superseded": list(decision.superseded),
        "copies": list(decision.copies),
        "shared": decision.shared,
        "disputes": list(decision.disputes),
    }
    if decision.request is not None:
        data["request"] = decision.request.to_dict()
        data["lingering"] = decision.lingering
        if decision.forgotten is not None:
            data["tombstoned"] = decision.forgotten.tombstoned
    return data


def _decision(ctx: Context, decision: review.Decision) -> int:
    data = decision_data(decision)
    data["project"] = ctx.project_id(ctx.root())
    ctx.emit(data, "\n".join(decision.said()))
    if decision.request is not None and decision.lingering is not None:
        return ctx.warn(decision.lingering, code="store_fault")
    return 0


def cmd_review_list(ctx: Context) -> int:
    root = ctx.root()
    project_id = ctx.project_id(root)
    limit = ctx.args.limit
    # Sensitive rows only with --include-sensitive, as recall and list show them:
    # left out and counted, and a shown row's contradicted sensitive ones withheld.
    view = ctx.view()
    # An agent's queue is of the rows its recall reads (`live.visible`); a person's, all.
    reader = None if ctx.whole_project else ctx.identity(root)
    with ctx.project() as project:
        store = project.store
        # A row whose content the other store forgot waits with its words withheld.
        every = project.review_queue()
        total = review.queue_size(store.db, project_id, reader)
        kept = [w for w in every if not withheld.hidden(w.memory, view)]
        hidden_rows = len(every) - len(kept)
        waiting = kept[:limit]
        # Each reason as this read may show it (`review.waiting_requests`).
        asked = review.waiting_requests(store.db, project_id, view, reader)
        about = review.asked_about(store.db, asked, view, project.forgotten_elsewhere())
        # Who put a line there, for what a team ledger line made (`team/provenance.py`).
        from tree_ring.team import provenance

        came = provenance.of(store.db, [w.memory.id for w in waiting] + [r.id for r in asked])
        # A person's queue points at their user store's, as `inbox` does.
        mine = project.user_waiting() if reader is None and project_id != USER_PROJECT else 0
    items: list[dict[str, Any]] = []
    lines = [f"review queue: {total} waiting (oldest first)"]
    if hidden_rows:
        lines.append(withheld.left_out(hidden_rows))
    for w in waiting:
        m = w.memory
        items.append(
            {
                "kind": "memory",
                "id": m.id,
                "trust": m.trust,
                "review_reason": m.review_reason,
                "summary": m.summary,
                "ring": m.ring,
                "scope": m.scope,
                "event_type": m.event_type,
                "origin": m.origin,
                "origin_session": m.origin_session,
                "created_at": m.created_at,
                "expires_at": m.expires_at,
                "provenance": came.get(m.id),
                "contradicts": [
                    {
                        "id": o.id,
                        "summary": withheld.summary(o, view),
                        "trust": o.trust,
                        "retired_at": o.retired_at,
                        "superseded_by": o.superseded_by,
                    }
                    for o in w.contradicts
                ],
                "supersedes": list(m.supersedes),
            }
        )
        lines.append(f"{m.id}  [{m.trust.upper()}] [{m.ring}] {in_quotes(m.summary)}")
        lines.append(f"    why: {preview(m.review_reason or 'waiting for review')}")
        lines.append(f"    from {m.origin} at {m.created_at[:19]}Z ({m.scope})")
        if m.expires_at:
            from tree_ring.review.inbox import expiry_note

            lines.append(f"    {expiry_note(m.expires_at)}")
        if m.id in came:
            lines.append(f"    put there by: {came[m.id]['label']}")
        lines += [
            f"    contradicts {o.id} [{_standing(o)}]: {withheld.summary(o, view)}"
            for o in w.contradicts
        ]
        lines += [f"    approving it retires {old}" for old in m.supersedes]
    if not total:
        lines = ["review queue: empty"]
    if asked:
        lines.append(f"requests to forget or confirm: {len(asked)} waiting")
    for r in asked:
        lines.append(f"{r.id}  {requests.asked_for(r)}: {about[r.id]}")
        lines.append(f"    why: {preview(r.reason)}")
        lines.append(f"    asked by {r.actor} ({r.origin}) at {r.created_at[:19]}Z")
        if r.id in came:
            lines.append(f"    put there by: {came[r.id]['label']}")
        lines.append(
            f"    decide: `tree-ring review approve {r.id}`"
            f" or `tree-ring review reject {r.id} --reason WHY`"
        )
    if len(waiting) < len(kept):
        lines.append(f"{showing(len(waiting), len(kept))} waiting (--limit shows more)")
    if mine:
        lines.append(user_waiting_line(mine))
    items += [
        {
            "kind": "forget_request",
            **r.to_dict(),
            "summary": about[r.id],
            "provenance": came.get(r.id),
        }
        for r in asked
    ]
    data = listing(items, total=len(kept) + len(asked), limit=ctx.args.limit)
    ctx.emit(
        {
            "project": project_id,
            "waiting": total,
            "withheld": hidden_rows,
            "requests": len(asked),
            "user_store_waiting": mine,
            **data,
        },
        "\n".join(lines),
    )
    return 0


def _standing(memory: Memory) -> str:
    """What a contradicted row is now, in a word or three: a retired value
    weighs nothing against the one waiting."""
    if memory.superseded_by:
        return f"superseded by {memory.superseded_by}"
    return "retired" if memory.retired_at else memory.trust


def user_waiting_line(mine: int) -> str:
    """The line that points a person at what waits in their user store."""
    return (
        f"your user store: {mine} waiting for you (agents' proposals about you, or your "
        "notes an agent refuted): `tree-ring review list --user`"
    )


def cmd_review_approve(ctx: Context) -> int:
    a = ctx.args
    if a.all:
        return cmd_review_approve_all(ctx)
    filters = [f"--{name.replace('_', '-')}" for name in FILTERS if getattr(a, name) is not None]
    if filters or a.dry_run:
        raise UsageError(
            f"{', '.join(filters) or '--dry-run'} goes with --all; to approve one memory, "
            "name only its id"
        )
    memory_id = _memory_id(ctx)
    with ctx.project() as project:
        decision = project.review(
            "approve", memory_id, reason=a.reason, supersede=a.supersede_contradicted
        )
    return _decision(ctx, decision)


FILTERS = ("origin", "since", "scope", "ring", "batch")


def cmd_review_approve_all(ctx: Context) -> int:
    a = ctx.args
    if a.id:
        raise UsageError("review approve takes an id or --all, not both")
    if a.supersede_contradicted:
        raise UsageError(
            "--supersede-contradicted is decided one memory at a time; approve those by id"
        )
    since = option_time(a.since, "--since")
    selection = review.Selection(
        origin=a.origin, since=since, scope=a.scope, ring=a.ring, batch=a.batch
    )
    with ctx.project() as project:
        decisions = project.approve_all(selection, reason=a.reason, dry_run=a.dry_run)
        project_id, actor = project.project_id, project.actor
    # A dry run names the rows the batch would refuse: then it approves none.
    refused = sum(d.decision == "refuse" for d in decisions)
    verb = "would approve" if a.dry_run else "approved"
    lines = [
        f"{verb} {len(decisions)} pending memories"
        + (" (dry run: nothing was written)" if a.dry_run else f" by {actor.name}")
    ]
    if refused:
        lines = [
            f"would refuse {refused} of {len(decisions)} pending memories, so would approve "
            "none (dry run: nothing was written); reject the refused ones or narrow the filters"
        ]
    lines += [
        f"  {d.id}"
        + (f"; it supersedes {', '.join(d.superseded)}" if d.superseded else "")
        + (f"; it takes the {d.shared} scope of what it replaces" if d.shared else "")
        + (f"; refused: {d.reason}" if d.decision == "refuse" else "")
        for d in decisions
    ]
    data = {
        "project": project_id,
        "dry_run": a.dry_run,
        "filters": {name: getattr(selection, name) for name in FILTERS},
        "approved": 0 if a.dry_run else len(decisions),
        "refused": refused,
        **listing([decision_data(d) for d in decisions]),
    }
    ctx.emit(data, "\n".join(lines))
    # A dry run answers as the batch would: it fails when a row is refused.
    return 1 if refused else 0


def cmd_review_reject(ctx: Context) -> int:
    memory_id = _memory_id(ctx)
    with ctx.project() as project:
        decision = project.review("reject", memory_id, reason=ctx.args.reason)
    return _decision(ctx, decision)


def cmd_review_dispute(ctx: Context) -> int:
    memory_id = _memory_id(ctx)
    with ctx.project() as project:
        decision = project.review("dispute", memory_id, reason=ctx.args.reason)
    return _decision(ctx, decision)


def cmd_review_readmit(ctx: Context) -> int:
    with ctx.project() as project:
        result = project.readmit(ctx.args.id, ctx.args.reason)
    data = {
        "project": project.project_id,
        "id": result.id,
        "readmitted": result.readmitted,
        "trust": result.trust,
    }
    ctx.emit(data, result.said("hidden unless --include-sensitive"))
    return 0


def _parse_setting(text: str) -> tuple[str, bool]:
    key, sep, value = text.partition("=")
    flag = {"true": True, "false": False}.get(value.strip().lower())
    if not sep or flag is None or not key.strip():
        raise UsageError(f"--set takes KEY=true or KEY=false, not {text[:60]!r}")
    return key.strip(), flag


def _settings(items: list[str]) -> dict[str, bool]:
    """Every --set, each key once (`once`); an earlier name of a key counts as the key."""
    changes: dict[str, bool] = {}
    for item in items:
        key, flag = _parse_setting(item)
        name = admission.RENAMED.get(key, key)
        once(name, changes, "review policy --set", f"--set {name}=VALUE")
        changes[name] = flag
    return changes


def cmd_review_policy(ctx: Context) -> int:
    changes = _settings(ctx.args.set or [])
    with ctx.store() as store:
        if changes:
            settings = review.set_policy(store, changes, _actor(ctx))
        else:
            settings = review.show_policy(store)
    lines = [f"{key} = {'true' if value else 'false'}" for key, value in settings.items()]
    ctx.emit({"review_policy": settings, "changed": changes}, "\n".join(lines))
    return 0


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
        project = ctx.project_id(store.root_str)
        minted = coordinator.rotate(
            store, ctx.args.coordinator, actor, ctx.args.reason, project=project
        )
    return _minted(ctx, minted, "rotated")


def cmd_policy_disable(ctx: Context) -> int:
    actor = _actor(ctx)
    with ctx.store() as store:
        coordinator.disable(store, actor, ctx.args.reason, project=ctx.project_id(store.root_str))
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
    with ctx.project() as opened:
        found = opened.policy_audit(limit=ctx.args.limit)
    text = "\n".join(
        f"{e['seq']:>6} {e['at'][:19]}Z {e['decision']:<5} {e['action']:<18} "
        f"by {e['actor']} ({e['origin']}, capability {e['capability']}) {e['reason']}"
        for e in found
    )
    ctx.emit(listing(found, limit=ctx.args.limit), text or "no policy decisions recorded")
    return 0


def _decider(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent-profile", help="who decides (TREE_RING_AGENT_PROFILE)")
    user_flag(p)


def _review_arguments(p: argparse.ArgumentParser) -> None:
    action = nested(p, "review_action", "review")
    s = action("list", cmd_review_list, "the rows waiting for review, oldest first, and requests")
    limit_flag(s, 100, "show at most this many (default: 100)")
    sensitive_flag(s, "also list sensitive rows (withheld otherwise)")
    _decider(s)
    s = action(
        "approve",
        cmd_review_approve,
        "accept one waiting memory (or a request to forget), or --all that a filter names",
    )
    s.add_argument("id", nargs="?", help="the memory or request to approve")
    s.add_argument("--reason", help="why; kept on the row (default: approved)")
    s.add_argument(
        "--supersede-contradicted",
        action="store_true",
        help="also supersede the live memories this one contradicts",
    )
    g = s.add_argument_group(
        "approve --all (a migration in one step; each row audited as a single approve)"
    )
    g.add_argument("--all", action="store_true", help="every pending row the filters name")
    g.add_argument("--origin", choices=ORIGINS, help="only rows of this origin (import, ...)")
    g.add_argument("--since", metavar="TIME", help="only rows created at or after TIME")
    g.add_argument("--scope", choices=SCOPES, help="only rows of this scope")
    g.add_argument("--ring", choices=RINGS, help="only rows of this ring")
    g.add_argument(
        "--batch", metavar="BATCH", help="only rows of this import (`import` prints its batch)"
    )
    g.add_argument("--dry-run", action="store_true", help="count and list them; approve nothing")
    _decider(s)
    for name, verb in (("reject", "reject"), ("dispute", "dispute")):
        handler = cmd_review_reject if name == "reject" else cmd_review_dispute
        what = (
            "retire a waiting memory and tombstone its content (or refuse a request to forget)"
            if name == "reject"
            else "keep a memory on record but stop believing it"
        )
        s = action(name, handler, what)
        s.add_argument("id", help=f"the memory to {verb}")
        s.add_argument("--reason", required=True, help="why; kept on the row and in the audit log")
        _decider(s)
    s = action(
        "readmit",
        cmd_review_readmit,
        "a memory this store keeps that the team's tombstones refuse (`doctor` names it): "
        "re-admit it as it stands, so every clone takes it",
    )
    s.add_argument("id", help="the memory to re-admit")
    s.add_argument("--reason", required=True, help="why it stays; kept in the audit log")
    _decider(s)
    s = action("policy", cmd_review_policy, "what waits for review; change it with --set")
    s.add_argument(
        "--set",
        action="append",
        metavar="KEY=true|false",
        help="change what waits for review (repeatable)",
    )
    _decider(s)


RECOVER_HELP = (
    "why; kept in the audit log. A person at the terminal who lost the capability recovers with it"
)


def _policy_arguments(p: argparse.ArgumentParser) -> None:
    action = nested(p, "policy_action", "policy")
    s = action("enable", cmd_policy_enable, "coordinated mode: protected writes need a capability")
    s.add_argument("--coordinator", required=True, help="who holds the capability")
    _decider(s)
    s = action("status", cmd_policy_status, "the mode, the coordinator and the decisions counted")
    _decider(s)
    s = action("rotate", cmd_policy_rotate, "mint a new capability; the old one stops working")
    s.add_argument("--coordinator", help="hand the capability to someone else")
    s.add_argument("--reason", help=RECOVER_HELP)
    _decider(s)
    s = action("disable", cmd_policy_disable, "back to open mode")
    s.add_argument("--reason", help=RECOVER_HELP)
    _decider(s)
    s = action("audit", cmd_policy_audit, "the newest policy decisions, allowed and denied")
    limit_flag(s, 50, "the newest N decisions (default: 50)")
    _decider(s)


EXAMPLES: dict[str, tuple[str, ...]] = {
    "review": (
        "tree-ring review list",
        "tree-ring review approve mem_20261129_134645_2d7a81bd6071",
        "tree-ring review approve --all --batch import-20261201T091208Z-1a2b3c4d --dry-run",
    ),
    "policy": (
        "tree-ring policy enable --coordinator lead",
        "tree-ring policy status",
        "tree-ring policy audit --limit 20",
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "review": (cmd_review_list, _review_arguments),
    "policy": (cmd_policy_status, _policy_arguments),
}
