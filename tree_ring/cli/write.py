"""Verbs that add or correct memories: remember, evidence, capture, forget, supersede."""

from __future__ import annotations

import os
import sys

from tree_ring.api.project import Project
from tree_ring.cli.context import (
    Arguments,
    Context,
    Handler,
    dest,
    flag_fields,
    identity_flags,
    memory_flags,
    sensitive_flag,
    user_flag,
)
from tree_ring.model.errors import UsageError
from tree_ring.model.identity import harness_origin
from tree_ring.model.record import CAPTURE_PAIRS, now_iso, option_time, parse_time
from tree_ring.model.text import file_text
from tree_ring.write import verbs

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any


MAX_STDIN = 1 << 20


def _summary(ctx: Context) -> str:
    summary: str = ctx.args.summary
    if summary == "-":
        data = sys.stdin.buffer.read(MAX_STDIN + 1)
        if len(data) > MAX_STDIN:
            raise UsageError("the summary on stdin is over 1 MiB; a memory is one short statement")
        try:
            # Read as a text file is: a byte-order mark dropped, CRLF read as LF.
            summary = file_text(data).strip()
        except UnicodeDecodeError as exc:
            # Judged as argv is (cli.app refuses bytes that are not UTF-8 there):
            # replacing them would store text nobody wrote. The byte is counted
            # from the start of stdin, a byte-order mark before it included.
            at = exc.start + len(data) - len(exc.object) + 1
            raise UsageError(
                f"the summary on stdin is not valid UTF-8 text (byte {at}); re-encode it and retry"
            ) from None
    return summary


def _draft(ctx: Context, **overrides: Any) -> verbs.Draft:
    """The draft the flags describe: each flag `Memory` declares, as given."""
    a = ctx.args
    said: dict[str, Any] = {}
    for spec in flag_fields():
        value = _summary(ctx) if spec.name == "summary" else getattr(a, dest(spec), None)
        if spec.annotation.startswith("tuple["):
            value = tuple(value or ())
        elif value is None:
            continue  # not a flag of this verb: the draft's default
        elif spec.get("time"):
            option_time(value, spec.get("flag"))  # an empty time is refused, not taken for none
        said[spec.name] = value
    if said.get("source_ref"):
        said["source_type"] = "agent" if harness_origin(ctx.environ).is_agent else "manual"
    supersedes = getattr(a, "supersedes", None)
    if supersedes is not None:
        said["supersedes"] = supersedes
    files: list[str] | None = getattr(a, "file", None)
    if files:
        # A relative path is read from the folder the command runs in when
        # that is inside the project, else from the project's root.
        said["files"] = tuple(files)
        said["files_from"] = os.getcwd()
    said.update(overrides)
    return verbs.Draft(**said)


def _report_write(ctx: Context, project: str, result: verbs.WriteResult) -> int:
    anchored = result.anchors
    text = result.said("hidden unless --include-sensitive")
    if result.created:
        for old in result.contradicts if result.trust == "accepted" else ():
            text += (
                f"\ncontradicts {old}: run `tree-ring supersede {old} {result.id} "
                '--reason "..."` to retire it'
            )
        if anchored:
            text += f"\nanchored to {', '.join(a.path for a in anchored)}"
        starts = getattr(ctx.args, "valid_from", None)
        if starts and parse_time(starts, "valid-from") > now_iso():
            text += (
                f"\nit holds from {starts}: reads of now leave it out until then, and "
                "`recall --valid-at TIME` from then finds it"
            )
        ended = getattr(ctx.args, "valid_to", None)
        if ended and parse_time(ended, "valid-to") <= now_iso():
            text += (
                f"\nit held until {ended}: reads of now leave it out, and "
                "`recall --valid-at TIME` within its window finds it"
            )
    ctx.emit(
        {
            "project": project,
            "id": result.id,
            "created": result.created,
            "readmitted": result.readmitted,
            "trust": result.trust,
            "sensitivity": result.sensitivity,
            "review_reason": result.review_reason,
            "contradicts": list(result.contradicts),
            "disputes": list(result.disputes),
            "anchors": [a.to_dict() for a in anchored] if result.created else [],
        },
        text,
    )
    return 0


def cmd_remember(ctx: Context) -> int:
    a = ctx.args
    if a.reason is not None and not a.override_tombstone:
        raise UsageError("--reason goes with --override-tombstone; remember takes no other reason")
    draft = _draft(ctx)
    if a.file and a.override_tombstone:
        raise UsageError("--file anchors a new memory; a re-admission names no files")
    ctx.global_outside(draft.scope)  # a person's note of their own, run in no project
    with ctx.project() as project:
        if not a.override_tombstone:
            return _report_write(ctx, _written_to(project, draft), project.remember(draft))
        if a.supersedes is not None:
            raise UsageError("--override-tombstone takes no --supersedes; supersede after review")
        written = project.remember_over_tombstone(draft, a.reason)
        return _report_write(ctx, _written_to(project, draft), written)


def _written_to(project: Project, draft: verbs.Draft) -> str:
    """The project a write lands in, as its report names it."""
    if draft.scope == "global":
        from tree_ring.store.user import USER_PROJECT

        return USER_PROJECT
    return project.project_id


def cmd_evidence(ctx: Context) -> int:
    a = ctx.args
    draft = _draft(ctx)
    ctx.global_outside(draft.scope)
    with ctx.project() as project:
        result = project.evidence(
            draft, outcome=a.outcome, evidence_ref=a.evidence_ref, score=a.score
        )
        return _report_write(ctx, _written_to(project, draft), result)


def cmd_capture(ctx: Context) -> int:
    a = ctx.args
    draft = _draft(ctx, ring=a.ring)
    root = ctx.root()
    # As every write's: the flags, then TREE_RING_*, then the harness; the
    # root's own project, which the stop hook's command names by its --root.
    identity = ctx.identity(root)
    # Without --file, the files the turn changed, as the stop hook found them.
    with Project(root, identity, environ=ctx.environ) as project:
        result = project.capture(draft)
    return _report_write(ctx, identity.project, result)


def cmd_forget(ctx: Context) -> int:
    a = ctx.args
    # A note of the user store forgotten in a project takes the copies agents wrote there.
    around = ctx.project_around() if ctx.on_user_store else None
    try:
        with ctx.project() as project:
            done = project.forget(a.id, mode=a.mode, reason=a.reason, copies_in=around)
            identity = project.identity
    finally:
        if around is not None:
            around.close()
    data = {
        "project": identity.project,
        "id": done.id,
        "mode": done.mode,
        "decision_reason": done.reason,
        "request": done.request,
        "lingering": done.lingering,
        "twins": list(done.twins),
        "tombstoned": done.tombstoned,
        "withdrawn": done.withdrawn,
        "copies_project": done.copies_in,
        "copies": list(done.copies),
    }
    if done.request is not None:
        ctx.emit(
            data,
            f"requested {done.request}: forgetting {done.id} is a person's decision, since it "
            "is not a row of this agent's own partition that no one has vouched for (a shared "
            "or global row, its own proposals among them); it stays as it is until a person "
            f"approves (`tree-ring review list{' --user' if ctx.on_user_store else ''}`)",
        )
        return 0
    ctx.emit(data, "\n".join(done.said()))
    if done.lingering is not None:
        return ctx.warn(done.lingering, code="store_fault")
    return 0


def cmd_refute(ctx: Context) -> int:
    a = ctx.args
    with ctx.project() as project:
        done = project.refute(a.id, reason=a.reason, include_sensitive=a.include_sensitive)
        identity = project.identity
    data = {
        "project": identity.project,
        "id": done.id,
        "trust": done.trust,
        "reason": done.reason,
        "by": done.by,
        "retired": done.retired,
        "store": "user" if done.user_store else "project",
    }
    where = " in your user store" if done.user_store else ""
    if done.retired:
        text = f"retired {done.id}{where} (refuted: {done.reason})"
    else:
        queue = "tree-ring review list --user" if done.user_store else "tree-ring review list"
        text = (
            f"disputed {done.id}: it waits for a person (`{queue}`); "
            "the brief shows it marked disputed until they decide"
        )
    ctx.emit(data, text)
    return 0


def cmd_supersede(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    with ctx.project(root) as opened:
        done = opened.supersede(a.old_id, a.new_id, reason=a.reason)
    applied = done.applied
    text = f"{a.old_id} is superseded by {a.new_id}"
    if done.approved:
        text += f" ({a.new_id} approved: the contradiction is settled)"
    if done.shared is not None:
        text += f"; {a.new_id} moved into the shared {done.shared} scope, where {a.old_id} was"
    if not applied:
        text = f"{a.old_id} will be superseded by {a.new_id} when {a.new_id} is approved"
    data = {
        "project": identity.project,
        "id": a.old_id,
        "superseded_by": a.new_id,
        "decision_reason": a.reason,
        "applied": applied,
        "approved": done.approved,
        "shared": done.shared,
    }
    ctx.emit(data, text)
    return 0


def _file_flag(p: argparse.ArgumentParser, helps: str) -> None:
    p.add_argument("--file", action="append", metavar="PATH", help=helps)


def _remember_arguments(p: argparse.ArgumentParser) -> None:
    memory_flags(p)
    _file_flag(
        p,
        "a file inside the project this memory is about (repeatable, at most 64); when it "
        "changes, the brief and recall mark the memory stale",
    )
    p.add_argument("--supersedes", metavar="ID", help="this memory replaces ID")
    p.add_argument(
        "--override-tombstone",
        action="store_true",
        help="a person only: store forgotten content again, as pending review (needs "
        "--reason); words a memory here holds re-admit that memory as it stands",
    )
    p.add_argument("--reason", help="why the forgotten content comes back; kept in the audit log")


def _evidence_arguments(p: argparse.ArgumentParser) -> None:
    memory_flags(p, ring=False)
    p.add_argument("--outcome", required=True, choices=sorted(verbs.EVIDENCE_OUTCOMES))
    p.add_argument("--evidence-ref", required=True, help="the run, eval or incident")
    p.add_argument("--score", type=float, help="confidence from the evaluation, 0..1")


def _capture_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The stop hook's narrow write. It stores one memory in the calling agent's own "
        "partition (scope agent, under the --agent-profile and --session-id the hook's "
        "command names; the session is its workflow too, unless --workflow-id says "
        "otherwise), never in the project's shared scopes; only the event "
        f"type and ring pairs {', '.join(f'{e}/{r}' for e, r in CAPTURE_PAIRS.items())}; "
        "normal sensitivity only. Copy the command the stop hook gave; to store for the "
        "project, use `remember`."
    )
    memory_flags(
        p,
        helps={
            "--scope": "agent only (the default here): capture writes the agent's own partition",
            "--operation-id": "required: the stop hook's auto-CHECKPOINT-N id, so a retry "
            "stores nothing twice",
            "--source-ref": "where the outcome happened (default: session:SESSION_ID)",
        },
    )
    _file_flag(
        p,
        "a file inside the project the memory is about (repeatable); without it, the files "
        "the session's turn changed, as the stop hook found them (those the note names, "
        "when it names any)",
    )


def _refute_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the memory that proved wrong (`recall` or the brief shows ids)")
    p.add_argument("--reason", required=True, help="why it is wrong, in one line")
    sensitive_flag(p, "an agent's ask to refute a sensitive memory (as to read its text)")
    identity_flags(p, writes=True)


def _forget_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Forget a memory for good. Either mode records a tombstone of its content, so the "
        "same claim cannot be stored again (by remember, capture or import), keeps your "
        "reason in the audit log, and scrubs the words from the search index. Other "
        "memories of the same claim go with it, live or retired: the copies agents wrote, in "
        "any spelling the tombstone refuses, and a shared memory's exact copies (for an agent, "
        "those in its own partition); what an accepted memory left standing also holds (a "
        "retired one of yours too) stays writable. "
        "With --user, a note of your user store: run in a project, the copies agents wrote "
        "of it there go too (not one a person approved or promoted), and every project's brief "
        "and recall leave out its other copies."
    )
    p.add_argument("id", help="the memory to forget (`list` or `recall` shows ids)")
    p.add_argument(
        "--mode",
        choices=("delete", "redact"),
        required=True,
        help="delete: remove the row (its id stays forgotten: no write reuses it). "
        "redact: keep the row as a "
        "[redacted] placeholder (its id, times and the reason stay, so links and the history "
        "still point somewhere); its text, tags and source are erased",
    )
    p.add_argument("--reason", required=True, help="why; kept in the audit log")
    user_flag(p)


def _supersede_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("old_id", help="the memory that is no longer current")
    p.add_argument("new_id", help="the memory that replaces it")
    p.add_argument("--reason", required=True, help="why; kept in the audit log")


EXAMPLES: dict[str, tuple[str, ...]] = {
    "remember": (
        'tree-ring remember "Retries back off to 30 s" --ring heartwood '
        "--file src/billing/retry.py",
        'tree-ring remember "The cache moved to SQLite" '
        "--supersedes mem_20261129_134645_2d7a81bd6071",
        'echo "Tests need Redis running" | tree-ring remember - --tag tests',
    ),
    "evidence": (
        'tree-ring evidence "Cache warmup halves p95" --outcome promoted '
        "--evidence-ref evals/run-42 --score 0.9",
    ),
    "capture": (
        'tree-ring capture "The flaky test needed a fixed seed" --event-type lesson '
        "--ring cambium --agent-profile claude-code --session-id SESSION "
        "--operation-id auto-CHECKPOINT-1",
    ),
    "refute": (
        'tree-ring refute mem_20261129_134645_2d7a81bd6071 --reason "retries moved to the queue"',
    ),
    "forget": (
        'tree-ring forget mem_20261129_134645_2d7a81bd6071 --mode redact --reason "wrong"',
        'tree-ring forget mem_20261129_134645_2d7a81bd6071 --mode delete --reason "noise"',
    ),
    "supersede": (
        "tree-ring supersede mem_20261129_134645_2d7a81bd6071 "
        'mem_20261130_091200_5c1e0b7f2a44 --reason "moved to SQLite"',
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "remember": (cmd_remember, _remember_arguments),
    "evidence": (cmd_evidence, _evidence_arguments),
    "capture": (cmd_capture, _capture_arguments),
    "forget": (cmd_forget, _forget_arguments),
    "refute": (cmd_refute, _refute_arguments),
    "supersede": (cmd_supersede, _supersede_arguments),
}
