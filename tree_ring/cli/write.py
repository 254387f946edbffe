"""Verbs that add or correct memories: remember, evidence, capture, forget, supersede."""

from __future__ import annotations

import sys
from typing import Any

from tree_ring.cli.context import Context, Verb, memory_flags
from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Identity, harness_origin
from tree_ring.write import correct, verbs

MAX_STDIN = 1 << 20


def _summary(ctx: Context) -> str:
    summary: str = ctx.args.summary
    if summary == "-":
        data = sys.stdin.buffer.read(MAX_STDIN + 1)
        if len(data) > MAX_STDIN:
            raise UsageError("the summary on stdin is over 1 MiB; a memory is one short statement")
        summary = data.decode("utf-8", "replace").strip()
    return summary


def _draft(ctx: Context, **overrides: Any) -> verbs.Draft:
    a = ctx.args
    fields: dict[str, Any] = {
        "summary": _summary(ctx),
        "event_type": getattr(a, "event_type", None) or "note",
        "ring": getattr(a, "ring", None) or "cambium",
        "scope": getattr(a, "scope", None),
        "details": getattr(a, "details", None) or "",
        "source_ref": getattr(a, "source_ref", None) or "",
        "source_quote": getattr(a, "source_quote", None) or "",
        "tags": tuple(getattr(a, "tag", None) or ()),
        "salience": getattr(a, "salience", 0.5),
        "confidence": getattr(a, "confidence", 0.5),
        "sensitivity": getattr(a, "sensitivity", None) or "normal",
        "retention": getattr(a, "retention", None) or "normal",
        "expires_at": getattr(a, "expires_at", None),
        "valid_from": getattr(a, "valid_from", None),
        "valid_to": getattr(a, "valid_to", None),
        "operation_id": getattr(a, "operation_id", None),
        "supersedes": getattr(a, "supersedes", None),
    }
    if fields["source_ref"]:
        fields["source_type"] = "agent" if harness_origin(ctx.environ).is_agent else "manual"
    fields.update(overrides)
    return verbs.Draft(**fields)


def _report_write(ctx: Context, result: verbs.WriteResult) -> int:
    if not result.created:
        text = f"unchanged {result.id} (exact retry of the same operation)"
    else:
        text = f"stored {result.id}"
        if result.trust != "accepted":
            text += f" as {result.trust}: {result.review_reason or 'waiting for review'}"
        if result.sensitivity != "normal":
            text += f" (sensitivity {result.sensitivity}: hidden unless --include-sensitive)"
    ctx.emit(
        {
            "id": result.id,
            "created": result.created,
            "trust": result.trust,
            "sensitivity": result.sensitivity,
            "review_reason": result.review_reason,
        },
        text,
    )
    return 0


def cmd_remember(ctx: Context) -> int:
    draft = _draft(ctx)
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store:
        return _report_write(ctx, verbs.remember(store, draft, identity, ctx.actor(identity)))


def cmd_evidence(ctx: Context) -> int:
    a = ctx.args
    draft = _draft(ctx)
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store:
        result = verbs.evidence(
            store,
            draft,
            identity,
            ctx.actor(identity),
            outcome=a.outcome,
            evidence_ref=a.evidence_ref,
            score=a.score,
        )
    return _report_write(ctx, result)


def cmd_capture(ctx: Context) -> int:
    a = ctx.args
    if not a.project:
        raise UsageError("capture needs --project; copy the command the stop hook gave")
    draft = _draft(ctx, ring=a.ring)
    root = ctx.root()
    identity = Identity(a.project, a.agent_profile, a.workflow_id, a.session_id)
    with ctx.store(root) as store:
        return _report_write(ctx, verbs.capture(store, draft, identity, ctx.actor(identity)))


def cmd_forget(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store:
        done = correct.forget(store, a.id, mode=a.mode, reason=a.reason, actor=ctx.actor(identity))
    data = {
        "id": done.id,
        "mode": done.mode,
        "reason": done.reason,
        "request": done.request,
        "lingering": done.lingering,
    }
    if done.request is not None:
        ctx.emit(
            data,
            f"requested {done.request}: forgetting {done.id} is a person's decision, since this "
            "agent did not write it; it stays as it is until a person approves "
            "(`tree-ring review list`)",
        )
        return 0
    verb = "deleted" if done.mode == "delete" else "redacted"
    ctx.emit(data, f"{verb} {done.id}; its content is tombstoned and will not be stored again")
    if done.lingering is not None:
        print(f"error: {done.lingering}", file=sys.stderr)
        return 1
    return 0


def cmd_supersede(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.store(root) as store:
        applied = correct.supersede(
            store, a.old_id, a.new_id, reason=a.reason, actor=ctx.actor(identity)
        )
    text = f"{a.old_id} is superseded by {a.new_id}"
    if not applied:
        text = f"{a.old_id} will be superseded by {a.new_id} when {a.new_id} is approved"
    ctx.emit({"old": a.old_id, "new": a.new_id, "reason": a.reason, "applied": applied}, text)
    return 0


def register(verb: Verb) -> None:
    p = verb("remember", cmd_remember, "store a memory")
    memory_flags(p)
    p.add_argument("--supersedes", metavar="ID", help="this memory replaces ID")

    p = verb("evidence", cmd_evidence, "store the outcome of an evaluation, run or incident")
    memory_flags(p, ring=False)
    p.add_argument("--outcome", required=True, choices=sorted(verbs.EVIDENCE_OUTCOMES))
    p.add_argument("--evidence-ref", required=True, help="the run, eval or incident")
    p.add_argument("--score", type=float, help="confidence from the evaluation, 0..1")

    p = verb("capture", cmd_capture, "the stop hook's narrow write: agent scope, fixed pairs")
    memory_flags(p)

    p = verb("forget", cmd_forget, "delete or redact a memory; its content never comes back")
    p.add_argument("id")
    p.add_argument("--mode", choices=("delete", "redact"), required=True)
    p.add_argument("--reason", required=True, help="why; kept in the audit log")

    p = verb("supersede", cmd_supersede, "mark OLD_ID as replaced by NEW_ID")
    p.add_argument("old_id")
    p.add_argument("new_id")
    p.add_argument("--reason", required=True)
