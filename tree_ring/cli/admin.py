"""Verbs that look after the project: init, status, audit, export, import."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from tree_ring.cli.context import Context, Verb, identity_flags
from tree_ring.govern import coordinator
from tree_ring.model import project
from tree_ring.ops import findings, guidance, receipts, review, transfer
from tree_ring.store import audit
from tree_ring.store.live import View


def cmd_init(ctx: Context) -> int:
    root = project.normalise_root(Path(getattr(ctx.args, "root", None) or _init_target(ctx)))
    report = guidance.init_project(root)
    lines = [f"Tree Ring project {report.project_id} at {report.root}"]
    lines += [f"  created {name}" for name in report.created]
    lines += [f"  kept    {name} (already there)" for name in report.kept]
    ctx.emit(
        {
            "root": str(report.root),
            "project": report.project_id,
            "created": report.created,
            "kept": report.kept,
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
    root = ctx.root()
    project_id = a.project or project.load_project_id(root)
    view = View(
        include_sensitive=a.include_sensitive,
        include_unreviewed=a.include_unreviewed,
        include_superseded=a.include_superseded,
    )
    with ctx.store(root) as store:
        lines = [
            json.dumps(r, ensure_ascii=False, sort_keys=True)
            for r in transfer.export_rows(store, project_id, view)
        ]
    body = "".join(line + "\n" for line in lines)
    if a.output:
        Path(a.output).write_text(body, encoding="utf-8")
        ctx.emit({"path": a.output, "lines": len(lines)}, f"wrote {len(lines)} lines to {a.output}")
    else:
        ctx.out.write(body)
    return 0


def cmd_import(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    # The file is streamed (read twice, a batch at a time); standard input is
    # first spooled to a temporary file, so neither is held in memory.
    with contextlib.ExitStack() as stack:
        if a.path == "-":
            spool = stack.enter_context(tempfile.TemporaryFile())
            shutil.copyfileobj(sys.stdin.buffer, spool)
            lines = transfer.FileLines(spool, "-")
        else:
            lines = transfer.FileLines(Path(a.path), a.path)
        store = stack.enter_context(ctx.store(root))
        report = transfer.import_or_plan(
            store,
            lines,
            project=identity.project,
            actor=ctx.actor(identity),
            dry_run=a.dry_run,
        )
    verb = "would import" if a.dry_run else "imported"
    ctx.emit(
        {
            "dry_run": a.dry_run,
            "lines": report.lines,
            "created": report.created,
            "unchanged": report.unchanged,
            "tombstones": report.tombstones,
            "pending": report.pending,
        },
        f"{verb} {len(report.created)} memories ({report.pending} pending review), "
        f"{len(report.unchanged)} already present, {report.tombstones} tombstones",
    )
    return 0


def cmd_audit(ctx: Context) -> int:
    if ctx.args.action == "verify":
        return cmd_audit_verify(ctx)
    if ctx.args.audit_type:
        return cmd_audit_findings(ctx)
    with ctx.store() as store:
        found = audit.entries(store.db, limit=ctx.args.limit, target=ctx.args.target)
    text = "\n".join(
        f"{e['seq']:>6} {e['at'][:19]}Z {e['action']:<10} {e['target']} "
        f"by {e['actor']} ({e['origin']}) {e['detail']}"
        for e in found
    )
    ctx.emit({"entries": found}, text or "the audit log is empty")
    return 0


def cmd_audit_findings(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    project_id = project.load_project_id(root)
    with ctx.store(root) as store:
        found = findings.report(store.db, project_id, a.audit_type, stale_days=a.stale_days)
    counts: dict[str, int] = {}
    for item in found:
        counts[item.type] = counts.get(item.type, 0) + 1
    lines = [f"{f.type:<15} {f.id}  {f.reason}" for f in found]
    ctx.emit(
        {"audit_type": a.audit_type, "counts": counts, "findings": [f.to_dict() for f in found]},
        "\n".join(lines) or f"nothing to report ({a.audit_type})",
    )
    return 0


def cmd_audit_verify(ctx: Context) -> int:
    with ctx.store() as store:
        result = audit.verify(store.db)
    data = {"ok": result.ok, "checked": result.checked, "first_bad": result.first_bad}
    if result.ok:
        ctx.emit(data, f"audit chain ok: {result.checked} entries")
        return 0
    ctx.emit(
        data | {"problem": result.problem},
        f"audit chain BROKEN at entry {result.first_bad}: {result.problem}",
    )
    return 1


def cmd_status(ctx: Context) -> int:
    root = ctx.root()
    project_id = project.load_project_id(root)
    with ctx.store(root) as store:
        by_ring = {
            r[0]: r[1] for r in store.query("SELECT ring, count(*) FROM memories GROUP BY ring")
        }
        by_trust = {
            r[0]: r[1] for r in store.query("SELECT trust, count(*) FROM memories GROUP BY trust")
        }
        total = sum(by_ring.values())
        # The queue as `review list` shows it: still on record and waiting.
        queue = review.queue_size(store.db, project_id)
        write_policy = coordinator.state(store.db).mode
    harnesses = receipts.receipts(root)
    size = sum(p.stat().st_size for p in project.store_path(root).parent.glob(project.STORE + "*"))
    data: dict[str, Any] = {
        "project": project_id,
        "root": str(root),
        "memories": total,
        "by_ring": by_ring,
        "by_trust": by_trust,
        "review_queue": queue,
        "write_policy": write_policy,
        "store_bytes": size,
        "hooks": harnesses,
    }
    lines = [
        f"project {project_id} at {root}",
        f"memories: {total} ({_counts(by_ring)})",
        f"trust: {_counts(by_trust)}",
        f"review queue: {queue} waiting (`tree-ring review list`)",
        f"write policy: {write_policy}",
        f"store size: {size:,} bytes",
    ]
    if not harnesses:
        lines.append("hooks: none has fired in this project yet")
    for name, receipt in harnesses.items():
        last_brief: dict[str, Any] = receipt.get("last_brief") or {}
        last_stop: dict[str, Any] = receipt.get("last_stop") or {}
        lines.append(
            f"hooks {name}: last brief {last_brief.get('at', 'never')}"
            f" ({last_brief.get('count', 0)} memories), last stop {last_stop.get('at', 'never')}"
        )
    ctx.emit(data, "\n".join(lines))
    return 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in sorted(counts.items())) or "none"


def register(verb: Verb) -> None:
    verb("init", cmd_init, "create .tree-ring/ with the store, project.json and guidance")
    verb("status", cmd_status, "what the store holds and whether the hooks fired")

    p = verb("export", cmd_export, "write the project's memories as JSONL")
    p.add_argument("--project")
    p.add_argument("--include-sensitive", action="store_true")
    p.add_argument("--include-unreviewed", action="store_true", help="also pending, disputed")
    p.add_argument("--include-superseded", action="store_true", help="also retired rows")
    p.add_argument("--output", metavar="FILE", help="write here instead of stdout")

    p = verb("import", cmd_import, "import JSONL (Tree Ring's or the original's); all or nothing")
    p.add_argument("path", help="a JSONL file, or - for stdin")
    p.add_argument("--dry-run", action="store_true", help="check every line, write nothing")
    identity_flags(p)

    p = verb(
        "audit",
        cmd_audit,
        "the audit log: `audit log`, `audit verify`; `--audit-type` reports what needs a person",
    )
    p.add_argument("action", nargs="?", choices=("log", "verify"), default="log")
    p.add_argument(
        "--audit-type",
        choices=("all", *findings.TYPES),
        help="report findings instead of the log: " + ", ".join(("all", *findings.TYPES)),
    )
    p.add_argument(
        "--stale-days",
        type=int,
        default=findings.STALE_DAYS,
        help="stale: not updated in this many days (and low salience)",
    )
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--target", help="only entries about this memory id")
