"""Verbs that look after the project: init, status, audit, export, import."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from tree_ring.cli import progress, status
from tree_ring.cli.context import (
    SKIPPED_SHOWN,
    SUPPRESS,
    Arguments,
    Context,
    Handler,
    identity_flags,
    limit_flag,
    listing,
    nested,
    no_arguments,
    showing,
    user_flag,
)
from tree_ring.govern import admission
from tree_ring.harness import guidance
from tree_ring.model import outputs, project
from tree_ring.model.errors import Denied, NoStore, UsageError
from tree_ring.model.identity import harness_origin
from tree_ring.review import findings
from tree_ring.store import audit, user
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.transfer import export, original
from tree_ring.transfer import jsonl as transfer
from tree_ring.transfer.lines import open_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def cmd_init(ctx: Context) -> int:
    root = project.normalise_root(Path(getattr(ctx.args, "root", None) or _init_target(ctx)))
    report = guidance.init_project(root, ctx.environ)
    lines = [f"Tree Ring project {report.project_id} at {report.root}"]
    lines += [f"  created {name}" for name in report.created]
    lines += [f"  updated {name} (as this version writes it)" for name in report.updated]
    lines += [f"  kept    {name} (already there)" for name in report.kept]
    lines += [f"  note:   {note}" for note in report.notes]
    ctx.emit(
        {
            "root": str(report.root),
            "project": report.project_id,
            "written": [*report.created, *report.updated],
            "kept": list(report.kept),
            "notes": list(report.notes),
        },
        "\n".join(lines),
    )
    return 0


def _init_target(ctx: Context) -> Path:
    env_root = ctx.environ.get("TREE_RING_ROOT")
    if env_root:
        return Path(env_root)
    return project.git_root(Path.cwd()) or Path.cwd()


def cmd_export(ctx: Context) -> int:
    a = ctx.args
    if a.output:
        outputs.check_file(a.output, ctx.environ)  # before any work: a mistyped path costs nothing
    root = ctx.root()
    identity = ctx.identity(root)
    view = View(
        include_sensitive=a.include_sensitive,
        include_unreviewed=a.include_unreviewed,
        include_superseded=a.include_superseded,
    )
    # A person's export covers every partition, an agent's what it sees; neither
    # carries what the other store forgot (`Project.export`), nor a row a hand
    # edit damaged, which is named (`left_out`).
    left_out: list[str] = []
    hidden: list[str] = []
    with ctx.project(root) as opened:
        exported = list(opened.export(view, left_out, hidden))
        omitted = opened.omitted(view, exported, hidden)
    if a.format == "original":
        body = original.export_text(exported, sensitive_included=a.include_sensitive)
    else:
        body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in exported)
    lines = body.splitlines()
    named = ({"left_out": left_out} if left_out else {}) | ({"omitted": omitted} if omitted else {})
    if a.output:
        outputs.write_text(a.output, body, ctx.environ, export.FILE_MODE)
        # `--output /dev/stdout`: the lines went where the status would go.
        ctx.emit(
            {"project": identity.project, "written": [a.output], "lines": len(lines), **named},
            export.wrote(len(lines), a.output),
            to=sys.stderr if outputs.same_file(a.output, ctx.out) else None,
        )
    elif ctx.as_json:
        # One object holding the lines, as every --json is; plain export stays JSONL.
        items = [json.loads(line) for line in lines]
        ctx.emit({"project": identity.project, "format": a.format, **listing(items), **named}, "")
    else:
        ctx.out.write(body)
    if omitted:
        print(export.narrowed_message(omitted), file=sys.stderr)
    if left_out:
        # The sound rows are written, and a script is told the file is not whole.
        return ctx.warn(export.left_out_message(left_out), code="store_fault")
    return 0


def _global_to(ctx: Context) -> bool:
    """`--global-to user`: the file's `global` rows go to the person's user
    store (a person's first one creates it), not the project."""
    value = ctx.args.global_to
    if value not in ("user", "project"):
        raise UsageError(f"--global-to takes user or project, not {value[:40]!r}")
    if value == "project":
        return False
    if harness_origin(ctx.environ).is_agent:
        # As with an agent's global write, the person's store is the person's
        # to fill: an agent proposes one memory at a time, never a file of them.
        raise Denied(
            "an agent cannot import into a person's user store; "
            "a person runs `tree-ring import FILE --global-to user`"
        )
    return True


def _user_store(ctx: Context, dry_run: bool, stack: contextlib.ExitStack) -> Store:
    """The user store the global rows go to; a dry run without one checks
    them against an empty store of its own, so nothing is created."""
    if dry_run and not user.exists(ctx.environ):
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="tree-ring-"))
        return Store.open_file(os.path.join(folder, "user.sqlite"), create=True, name=user.NAME)
    opened = user.open_user(ctx.environ, create=True)
    if opened is None:  # `create` opens one or raises; said for the type checker
        raise NoStore(f"no user store at {user.user_store_path(ctx.environ)}")
    return opened


def cmd_import(ctx: Context) -> int:
    a = ctx.args
    if ctx.on_user_store:
        return _import_user(ctx)
    root = ctx.root()
    identity = ctx.identity(root)
    projects = transfer.Projects.parse(
        a.project_map or (), identity.project, take_all=a.all_projects
    )
    to_user = _global_to(ctx)
    # The file is streamed (read twice, a batch at a time); standard input or
    # a pipe is first spooled to a temporary file, so neither is held in memory.
    skip = a.skip_invalid
    with contextlib.ExitStack() as stack:
        lines = open_lines(a.path, sys.stdin.buffer, stack, skip_long=skip)
        store = stack.enter_context(ctx.store(root))
        reporter = stack.enter_context(progress.Reporter())
        # What the person forgot in either store stays out of both (`store/user.py`).
        own = None if ctx.on_user_store else user.open_user(ctx.environ)
        if own is not None:
            stack.enter_context(own)
            user.answers_to_user(store.db, lambda: own)
        run = functools.partial(
            transfer.import_lines,
            lines=lines,
            project=identity.project,
            actor=ctx.actor(identity),
            replace_existing=a.replace_existing,
            skip_invalid=skip,
            projects=projects,
            progress=reporter,
            restore=a.restore,
            reader=identity,
        )
        into = None
        if to_user:
            user_store = stack.enter_context(_user_store(ctx, a.dry_run, stack))
            user.answers_to_project(user_store.db, store, identity.project)
            into = functools.partial(run, user_store, into=user.USER_PROJECT, global_rows="only")
            # Two stores, two transactions: the user store's part is checked
            # first, so a bad line refuses the import before either is written.
            if not a.dry_run:
                into(dry_run=True)
        report = run(store, dry_run=a.dry_run, global_rows="none" if to_user else "all")
        mine = None if into is None else into(dry_run=a.dry_run)
    verb = "would import" if a.dry_run else "imported"
    text = (
        f"{verb} {len(report.created)} memories ({report.pending} waiting for review), "
        f"{len(report.unchanged)} already present, {report.tombstones} tombstones"
        + (f" ({report.tombstones_held} already held)" if report.tombstones_held else "")
        + (f", {len(report.replaced)} replacing stored rows" if report.replaced else "")
        + (f", {len(report.skipped)} lines skipped" if report.skipped else "")
    )
    if report.pending and not a.restore and ctx.whole_project:  # a person's import
        text += (
            "\nan import's rows wait for review as any import's do; a file you exported "
            "yourself comes back as it was with `--restore`"
        )
    if report.disputes:
        text += "\n" + "\n".join(admission.disputes_said(report.disputes))
    if report.differing:
        text += (
            f"\n{len(report.differing)} of the rows already present are stored in another "
            "state than the file's (trust, ring, review or validity, changed since the export); "
            "`--replace-existing` restores them as the file says"
        )
    if report.requested:
        text += (
            f"\n{len(report.requested)} tombstone lines name stored memories: requests to "
            "forget them wait for a person (`tree-ring review list`): "
            + ", ".join(report.requested)
        )
    if report.forgotten_here:
        text += (
            f"\nforgot {len(report.forgotten_here)} stored memories the file's tombstones "
            "name as forgotten: " + ", ".join(report.forgotten_here)
        )
    if report.personal:
        text += (
            f"\n{report.personal} of the file's tombstones are your user store's forgets: not "
            "taken into this project or its team ledger (`tree-ring import FILE --user` "
            "restores them with your notes)"
        )
    if report.spared:
        text += (
            f"\n{len(report.spared)} of your global notes hold words the file's tombstones "
            "name as forgotten: those lines are not recorded (`tree-ring forget ID --user` "
            "forgets a note): " + ", ".join(report.spared)
        )
    if report.merged:
        merged = ", ".join(f"{p} ({n})" for p, n in sorted(report.merged.items()))
        text += f"\nmerged rows of other projects into {identity.project}: {merged}"
    if report.folded:
        text += (
            f"\nfolded whitespace (newlines, runs of spaces) in the summary, source ref, tags "
            f"or review reason of {report.folded} of the original's rows"
        )
    if a.restore:
        text += "\nrestored as the file says: trust states, origins and reviews (--restore)"
    if report.created and a.dry_run:
        # A dry run writes no batch: the import names its own when it runs.
        text += "\nbatch: named when the import runs (`review approve --all --batch` takes it)"
    elif report.created:
        text += f"\nbatch: {report.batch}"
    if mine is not None:
        text += (
            f"\n{verb} {len(mine.created)} global memories into your user store "
            f"({mine.pending} waiting for review), {len(mine.unchanged)} already there"
        )
    if not ctx.as_json:
        for number, reason in report.skipped[:SKIPPED_SHOWN]:
            print(f"skipped line {number}: {reason}", file=sys.stderr)
        if len(report.skipped) > SKIPPED_SHOWN:
            rest = len(report.skipped) - SKIPPED_SHOWN
            print(f"... and {rest} more skipped lines (--json lists them all)", file=sys.stderr)
    ctx.emit(
        _reported(identity.project, a.restore, report)
        | ({} if mine is None else {"user": _user_part(mine)}),
        text,
    )
    return 0


def _reported(project_id: str, restore: bool, report: transfer.ImportReport) -> dict[str, Any]:
    """An import's JSON: what it wrote, line by line."""
    items: list[dict[str, Any]] = [{"id": i, "result": "imported"} for i in report.created]
    items += [{"id": i, "result": "unchanged"} for i in report.unchanged]
    items += [{"line": n, "reason": r, "result": "skipped"} for n, r in report.skipped]
    return {
        "project": project_id,
        "dry_run": report.dry_run,
        "lines": report.lines,
        "imported": len(report.created),
        "unchanged": len(report.unchanged),
        "tombstones": report.tombstones,
        "tombstones_held": report.tombstones_held,
        "pending": report.pending,
        "replaced": len(report.replaced),
        "differing": report.differing,
        "disputes": report.disputes,
        "restore": restore,
        "batch": report.batch,
        "merged": report.merged,
        "folded": report.folded,
        "skipped": len(report.skipped),
        "requested": report.requested,
        "forgotten_here": report.forgotten_here,
        "spared_notes": report.spared,
        "personal_tombstones": report.personal,
        **listing(items),
    }


def _import_user(ctx: Context) -> int:
    """`import FILE --user`: an export of the user store (`export --user`)
    back into it, its notes and its forgets, in a project or outside one; a
    person's first creates the store. What the project it is run in forgot
    stays out, as for any write there."""
    a = ctx.args
    if a.global_to != "project" or a.project_map or a.all_projects:
        raise UsageError(
            "--user imports into your user store only: drop --global-to, --project-map "
            "and --all-projects"
        )
    if harness_origin(ctx.environ).is_agent:
        raise Denied(
            "an agent cannot import into a person's user store; "
            "a person runs `tree-ring import FILE --user`"
        )
    with contextlib.ExitStack() as stack:
        lines = open_lines(a.path, sys.stdin.buffer, stack, skip_long=a.skip_invalid)
        identity = user.user_identity(ctx.identity(ctx.root()))
        around = ctx.project_around()
        if around is not None:
            stack.enter_context(around)
        reporter = stack.enter_context(progress.Reporter())

        def run(dry_run: bool) -> transfer.ImportReport:
            store = stack.enter_context(_user_store(ctx, dry_run, stack))
            if around is not None:
                user.answers_to_project(store.db, around.store, around.project_id)
            return transfer.import_lines(
                store,
                lines=lines,
                project=user.USER_PROJECT,
                actor=ctx.actor(identity),
                replace_existing=a.replace_existing,
                skip_invalid=a.skip_invalid,
                restore=a.restore,
                reader=identity,
                global_rows="user",
                dry_run=dry_run,
                progress=reporter,
            )

        if not a.dry_run and not user.exists(ctx.environ):
            run(dry_run=True)  # on an empty store of its own: a bad file creates none
        report = run(a.dry_run)
    verb = "would import" if a.dry_run else "imported"
    text = (
        f"{verb} {len(report.created)} memories into your user store ({report.pending} "
        f"waiting for review), {len(report.unchanged)} already there, "
        f"{report.tombstones} tombstones"
        + (f", {len(report.skipped)} lines skipped" if report.skipped else "")
        + ("\nrestored as the file says: trust states, origins and reviews" if a.restore else "")
    )
    ctx.emit(_reported(user.USER_PROJECT, a.restore, report), text)
    return 0


def _user_part(report: transfer.ImportReport) -> dict[str, Any]:
    """What `--global-to user` wrote to the user store, as the project's part says it."""
    return {
        "imported": len(report.created),
        "unchanged": len(report.unchanged),
        "tombstones": report.tombstones,
        "pending": report.pending,
        "batch": report.batch,
        "skipped": len(report.skipped),
    }


def cmd_audit(ctx: Context) -> int:
    """`audit` alone: the log, or the findings when --audit-type names a kind."""
    if getattr(ctx.args, "audit_type", None):
        ctx.args.command_name = "audit findings"
        return cmd_audit_findings(ctx)
    ctx.args.command_name = "audit log"
    return cmd_audit_log(ctx)


def cmd_audit_log(ctx: Context) -> int:
    a = ctx.args
    limit = a.limit
    with ctx.project() as opened:
        found, total = opened.audit_log(limit=limit, target=a.target)
    items = [{**e, "detail": _detail(e["detail"])} for e in found]
    text = "\n".join(
        f"{e['seq']:>6} {e['at'][:19]}Z {e['action']:<10} {e['target']} "
        f"by {e['actor']} ({e['origin']}) {e['detail']}"
        for e in found
    )
    if text and len(found) < total:
        text += f"\n{showing(len(found), total)} entries (--limit shows more)"
    ctx.emit(listing(items, total=total, limit=limit), text or "the audit log is empty")
    return 0


def _detail(raw: Any) -> Any:
    """An entry's detail as the object it is, not the JSON text the log keeps."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return {"text": raw}


def cmd_audit_findings(ctx: Context) -> int:
    a = ctx.args
    kind = a.audit_type or "all"  # `audit findings` alone reports every kind
    # An agent's report covers the rows its recall reads; a person's, every partition.
    with ctx.project() as opened:
        every = opened.findings(kind, stale_days=a.stale_days)
        project_id = opened.project_id
    # Findings about sensitive rows only when asked, as recall and list show them.
    shown = findings.listed(every, ctx.view())
    found = shown.findings
    counts: dict[str, int] = {}
    for item in found:
        counts[item.type] = counts.get(item.type, 0) + 1
    lines = [f"{f.type:<15} {f.id}  {f.reason}" for f in found]
    if shown.withheld:
        lines.append(
            f"{shown.withheld} about sensitive memories withheld: --include-sensitive lists them"
        )
    ctx.emit(
        {
            "project": project_id,
            "audit_type": kind,
            "counts": counts,
            "withheld": shown.withheld,
            **listing([f.to_dict() for f in found]),
        },
        "\n".join(lines) or f"nothing to report ({kind})",
    )
    return 0


def cmd_audit_verify(ctx: Context) -> int:
    with ctx.store() as store:
        result = audit.verify(store.db)
    data = {
        "ok": result.ok,
        "checked": result.checked,
        "first_bad": result.first_bad,
        "problem": result.problem or None,
        "unanchored": result.unanchored,
        **listing(list(result.problems)),
    }
    if result.ok:
        text = f"audit ok: {result.checked} entries; every row and tombstone matches them"
        if result.unanchored:
            text += (
                f" ({result.unanchored} row(s) last changed before entries recorded row "
                "states: checked for presence only)"
            )
        ctx.emit(data, text)
        return 0
    lines = [f"audit BROKEN: {len(result.problems)} problem(s)"]
    lines += [f"  {problem}" for problem in result.problems]
    ctx.emit(data, "\n".join(lines))
    return 1


def _export_arguments(p: argparse.ArgumentParser) -> None:
    identity_flags(p)
    user_flag(p)
    p.add_argument("--include-sensitive", action="store_true")
    p.add_argument("--include-unreviewed", action="store_true", help="also pending, disputed")
    p.add_argument(
        "--include-superseded",
        action="store_true",
        help="also retired rows (superseded, rejected, ended or expired)",
    )
    p.add_argument(
        "--output",
        metavar="FILE",
        help="write here instead of stdout (whole; never inside .tree-ring/)",
    )
    p.add_argument(
        "--format",
        choices=("tree-ring", "original"),
        default="tree-ring",
        help="original: the original Tree Ring's header and memory_event lines",
    )


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="a JSONL file, or - for stdin")
    user_flag(p)
    p.add_argument("--dry-run", action="store_true", help="check every line, write nothing")
    p.add_argument(
        "--replace-existing",
        action="store_true",
        help="a row whose id is stored replaces that row (a person's decision, audited)",
    )
    p.add_argument(
        "--restore",
        action="store_true",
        help="your own export: keep the trust states, origins and reviews it names "
        "(a person's decision; otherwise they are claims and authority waits for review)",
    )
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="import the valid lines and report each skipped one (default: all or nothing)",
    )
    p.add_argument(
        "--project-map",
        action="append",
        metavar="OLD=NEW",
        help="take rows of project OLD into this project NEW (repeatable)",
    )
    p.add_argument(
        "--all-projects",
        action="store_true",
        help="take rows of every other project into this one (said in the output)",
    )
    p.add_argument(
        "--global-to",
        default="project",
        metavar="user|project",
        help="where rows with scope global go: this project (default) or your user store",
    )
    identity_flags(p, writes=True)


def _audit_arguments(p: argparse.ArgumentParser) -> None:
    # `audit` alone is `audit log` (or the findings with --audit-type), as it always was.
    limit_flag(p, 50, "log: the newest N entries (default: 50)")
    p.add_argument("--target", help="log: only entries about this memory id")
    _findings_flags(p, SUPPRESS)
    user_flag(p)
    p.set_defaults(audit_type=None, stale_days=findings.STALE_DAYS)
    action = nested(p, "audit_action", "audit", required=False)
    s = action("log", cmd_audit_log, "the newest entries of the hash-chained audit log")
    limit_flag(s, SUPPRESS, "the newest N (default: 50)")
    s.add_argument("--target", default=SUPPRESS, help="only entries about this memory id")
    user_flag(s, SUPPRESS)
    s = action(
        "verify", cmd_audit_verify, "check the chain and that every row and tombstone matches it"
    )
    user_flag(s, SUPPRESS)
    s = action(
        "findings", cmd_audit_findings, "what needs a person: contradictions, stale rows, ..."
    )
    _findings_flags(s, SUPPRESS)
    user_flag(s, SUPPRESS)


def _findings_flags(p: argparse.ArgumentParser, default: Any) -> None:
    p.add_argument(
        "--include-sensitive",
        action="store_true",
        default=default,
        help="findings: also list those about sensitive memories (withheld otherwise)",
    )
    p.add_argument(
        "--audit-type",
        choices=("all", *findings.TYPES),
        default=default,
        help="report findings instead of the log: " + ", ".join(("all", *findings.TYPES)),
    )
    p.add_argument(
        "--stale-days",
        type=int,
        default=default,
        help="stale: not updated in this many days, and low salience "
        f"(default: {findings.STALE_DAYS})",
    )


EXAMPLES: dict[str, tuple[str, ...]] = {
    "init": ("tree-ring init", "tree-ring init --root ~/src/app"),
    "status": ("tree-ring status", "tree-ring --json status"),
    "export": (
        "tree-ring export > memories.jsonl",
        "tree-ring export --include-superseded --output backup.jsonl",
        "tree-ring export --format original --output for-the-original.jsonl",
    ),
    "import": (
        "tree-ring import memories.jsonl --dry-run",
        "tree-ring import backup.jsonl --restore",
        "tree-ring review approve --all --batch import-20261201T091208Z-1a2b3c4d",
    ),
    "audit": (
        "tree-ring audit log --target mem_20261129_134645_2d7a81bd6071",
        "tree-ring audit verify",
        "tree-ring audit findings --audit-type contradictions",
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "init": (cmd_init, no_arguments),
    "status": (status.cmd_status, no_arguments),
    "export": (cmd_export, _export_arguments),
    "import": (cmd_import, _import_arguments),
    "audit": (cmd_audit, _audit_arguments),
}
