"""The `tree-ring` command: argparse in, library calls, one place for errors.

Every verb takes `--json` (one JSON document on stdout) and `--root DIR`.
Library errors become `error: ...` on stderr with the error's exit code here
and nowhere else.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from tree_ring import (
    __version__,
    audit,
    brief,
    correct,
    guidance,
    live,
    project,
    rows,
    transfer,
    verbs,
)
from tree_ring.audit import Actor
from tree_ring.errors import TreeRingError, UsageError
from tree_ring.identity import Identity, harness_origin, resolve
from tree_ring.live import View
from tree_ring.record import RETENTIONS, RINGS, SCOPES, SENSITIVITIES, TRUST_STATES, parse_time
from tree_ring.recall import DEFAULT_LIMIT, recall
from tree_ring.store import Store

MAX_STDIN = 1 << 20


class Context:
    """What every command handler gets: parsed args, environment, output."""

    def __init__(self, args: argparse.Namespace, environ: Mapping[str, str], out: TextIO) -> None:
        self.args = args
        self.environ = environ
        self.out = out

    @property
    def as_json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    def root(self) -> Path:
        return project.locate(getattr(self.args, "root", None))

    def store(self) -> Store:
        return Store.open(self.root())

    def identity(self, root: Path) -> Identity:
        a = self.args
        return resolve(
            getattr(a, "project", None) or project.load_project_id(root),
            self.environ,
            agent_profile=getattr(a, "agent_profile", None),
            workflow_id=getattr(a, "workflow_id", None),
            session_id=getattr(a, "session_id", None),
        )

    def actor(self, identity: Identity) -> Actor:
        origin = harness_origin(self.environ)
        return Actor(identity.agent_profile or origin.kind, origin)

    def view(self) -> View:
        a = self.args
        as_of = getattr(a, "as_of", None)
        valid_at = getattr(a, "valid_at", None)
        return View(
            as_of=parse_time(as_of, "--as-of") if as_of else None,
            valid_at=parse_time(valid_at, "--valid-at") if valid_at else None,
            include_sensitive=bool(getattr(a, "include_sensitive", False)),
            include_unreviewed=bool(getattr(a, "include_unreviewed", False)),
        )

    def emit(self, data: Any, text: str) -> None:
        if self.as_json:
            self.out.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")
        elif text:
            self.out.write(text if text.endswith("\n") else text + "\n")


# ---------------------------------------------------------------- handlers


def cmd_init(ctx: Context) -> int:
    root = project.normalise_root(Path(getattr(ctx.args, "root", None) or _init_target()))
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


def _init_target() -> Path:
    env_root = os.environ.get("TREE_RING_ROOT")
    if env_root:
        return Path(env_root)
    return project.git_root(Path.cwd()) or Path.cwd()


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
    with Store.open(root) as store:
        return _report_write(ctx, verbs.remember(store, draft, identity, ctx.actor(identity)))


def cmd_evidence(ctx: Context) -> int:
    a = ctx.args
    draft = _draft(ctx)
    root = ctx.root()
    identity = ctx.identity(root)
    with Store.open(root) as store:
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
    with Store.open(root) as store:
        return _report_write(ctx, verbs.capture(store, draft, identity, ctx.actor(identity)))


def _hit_line(label: str, memory: Any, extra: str = "") -> str:
    flag = f"[{label}] " if label else ""
    return f"{memory.id}  [{memory.ring}] {flag}{memory.summary}{extra}"


def cmd_recall(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    with Store.open(root) as store:
        hits = recall(store, identity, a.query, limit=a.limit, view=ctx.view(), scope=a.scope)
    data: dict[str, Any] = {
        "query": a.query,
        "project": identity.project,
        "results": [
            {
                "id": h.memory.id,
                "summary": h.memory.summary,
                "ring": h.memory.ring,
                "scope": h.memory.scope,
                "trust": h.memory.trust,
                "label": h.label,
                "source": {"type": h.memory.source_type, "ref": h.memory.source_ref},
                "score": h.score,
                "score_parts": h.parts,
                "match": h.query,
            }
            for h in hits
        ],
    }
    text = "\n".join(_hit_line(h.label, h.memory, f"  ({h.score:.3f})") for h in hits)
    ctx.emit(data, text or "no memories match")
    return 0


def cmd_brief(ctx: Context) -> int:
    root = ctx.root()
    identity = ctx.identity(root)
    with Store.open(root) as store:
        result = brief.build_brief(store, identity, ctx.view())
    brief.write_receipt(root, harness=ctx.args.harness, event="brief", brief=result)
    ctx.emit({"project": result.project, "ids": list(result.ids), "text": result.text}, result.text)
    return 0


def cmd_list(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    project_id = a.project or project.load_project_id(root)
    view = ctx.view()
    if a.trust and a.trust != "accepted":
        view = View(view.as_of, view.valid_at, view.include_sensitive, True, a.trust == "rejected")
    clause = live.live(view)
    sql = f"SELECT m.* FROM memories m WHERE m.project = :project AND {clause.sql}"
    params: dict[str, Any] = {**clause.params, "project": project_id}
    for column in ("scope", "ring", "trust"):
        value = getattr(a, column)
        if value:
            sql += f" AND m.{column} = :{column}"
            params[column] = value
    sql += " ORDER BY m.created_at DESC LIMIT :limit"
    params["limit"] = a.limit
    with Store.open(root) as store:
        found = [rows.from_row(r) for r in store.query(sql, params)]
    data = [m.to_dict() for m in found]
    text = "\n".join(
        _hit_line("" if m.trust == "accepted" else m.trust.upper(), m, f"  ({m.scope})")
        for m in found
    )
    ctx.emit({"project": project_id, "memories": data}, text or "no memories")
    return 0


def cmd_show(ctx: Context) -> int:
    with ctx.store() as store:
        memory = rows.get(store.conn, ctx.args.id)
    data = memory.to_dict()
    text = "\n".join(f"{key}: {value}" for key, value in data.items() if value not in (None, "", []))
    ctx.emit(data, text)
    return 0


def cmd_forget(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    with Store.open(root) as store:
        done = correct.forget(store, a.id, mode=a.mode, reason=a.reason, actor=ctx.actor(identity))
    verb = "deleted" if done.mode == "delete" else "redacted"
    ctx.emit(
        {"id": done.id, "mode": done.mode, "reason": done.reason},
        f"{verb} {done.id}; its content is tombstoned and will not be stored again",
    )
    return 0


def cmd_supersede(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    identity = ctx.identity(root)
    with Store.open(root) as store:
        correct.supersede(store, a.old_id, a.new_id, reason=a.reason, actor=ctx.actor(identity))
    ctx.emit(
        {"old": a.old_id, "new": a.new_id, "reason": a.reason},
        f"{a.old_id} is superseded by {a.new_id}",
    )
    return 0


def cmd_export(ctx: Context) -> int:
    a = ctx.args
    root = ctx.root()
    project_id = a.project or project.load_project_id(root)
    view = View(
        include_sensitive=a.include_sensitive,
        include_unreviewed=True,
        include_superseded=a.include_superseded,
    )
    with Store.open(root) as store:
        lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in transfer.export_rows(store, project_id, view)]
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
    path = Path(a.path)
    try:
        text = sys.stdin.read() if a.path == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {a.path}: {exc}") from None
    with Store.open(root) as store:
        report = transfer.import_or_plan(
            store,
            text.splitlines(),
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


def cmd_audit_log(ctx: Context) -> int:
    with ctx.store() as store:
        found = audit.entries(store.conn, limit=ctx.args.limit, target=ctx.args.target)
    text = "\n".join(
        f"{e['seq']:>6} {e['at'][:19]}Z {e['action']:<10} {e['target']} "
        f"by {e['actor']} ({e['origin']}) {e['detail']}"
        for e in found
    )
    ctx.emit({"entries": found}, text or "the audit log is empty")
    return 0


def cmd_audit_verify(ctx: Context) -> int:
    with ctx.store() as store:
        result = audit.verify(store.conn)
    data = {"ok": result.ok, "checked": result.checked, "first_bad": result.first_bad}
    if result.ok:
        ctx.emit(data, f"audit chain ok: {result.checked} entries")
        return 0
    ctx.emit(data | {"problem": result.problem}, f"audit chain BROKEN at entry {result.first_bad}: {result.problem}")
    return 1


def cmd_status(ctx: Context) -> int:
    root = ctx.root()
    project_id = project.load_project_id(root)
    with Store.open(root) as store:
        by_ring = {r[0]: r[1] for r in store.query("SELECT ring, count(*) FROM memories GROUP BY ring")}
        by_trust = {r[0]: r[1] for r in store.query("SELECT trust, count(*) FROM memories GROUP BY trust")}
        total = sum(by_ring.values())
    harnesses = brief.receipts(root)
    size = sum(p.stat().st_size for p in project.store_path(root).parent.glob(project.STORE + "*"))
    data: dict[str, Any] = {
        "project": project_id,
        "root": str(root),
        "memories": total,
        "by_ring": by_ring,
        "by_trust": by_trust,
        "review_queue": by_trust.get("pending", 0) + by_trust.get("disputed", 0),
        "store_bytes": size,
        "hooks": harnesses,
    }
    lines = [
        f"project {project_id} at {root}",
        f"memories: {total} ({', '.join(f'{k} {v}' for k, v in sorted(by_ring.items())) or 'none'})",
        f"trust: {', '.join(f'{k} {v}' for k, v in sorted(by_trust.items())) or 'none'}",
        f"review queue: {data['review_queue']} waiting",
        f"store size: {size:,} bytes",
    ]
    if not harnesses:
        lines.append("hooks: none has fired in this project yet")
    for name, receipt in harnesses.items():
        last_brief = receipt.get("last_brief") or {}
        last_stop = receipt.get("last_stop") or {}
        lines.append(
            f"hooks {name}: last brief {last_brief.get('at', 'never')}"
            f" ({last_brief.get('count', 0)} memories), last stop {last_stop.get('at', 'never')}"
        )
    ctx.emit(data, "\n".join(lines))
    return 0


# ---------------------------------------------------------------- parser


def _identity_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("identity (default: project.json, TREE_RING_* and the harness)")
    g.add_argument("--project", help="project id (default: .tree-ring/project.json)")
    g.add_argument("--agent-profile", help="agent partition (TREE_RING_AGENT_PROFILE)")
    g.add_argument("--workflow-id", help="workflow partition (TREE_RING_WORKFLOW_ID)")
    g.add_argument("--session-id", help="session partition (TREE_RING_SESSION_ID)")


def _view_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--include-sensitive", action="store_true", help="also show sensitive memories")
    p.add_argument(
        "--include-unreviewed",
        action="store_true",
        help="also show pending and disputed memories (labelled)",
    )
    p.add_argument("--as-of", metavar="TIME", help="what was believed at TIME (record time)")
    p.add_argument("--valid-at", metavar="TIME", help="what held at TIME (validity time)")


def _memory_flags(p: argparse.ArgumentParser, *, ring: bool = True) -> None:
    p.add_argument("summary", help="one sentence to remember ('-' reads it from stdin)")
    p.add_argument("--event-type", default="note", help="decision, lesson, preference, warning, ...")
    if ring:
        p.add_argument("--ring", choices=RINGS, default="cambium", help="the memory's genre")
    p.add_argument("--scope", choices=SCOPES, help="default: project (agents: their own partition)")
    p.add_argument("--details", help="longer text")
    p.add_argument("--source-ref", help="where this can be checked: a file, URL, run")
    p.add_argument("--source-quote", help="the words at the source")
    p.add_argument("--tag", action="append", help="a tag (repeatable)")
    p.add_argument("--salience", type=float, default=0.5, help="how much it matters, 0..1")
    p.add_argument("--confidence", type=float, default=0.5, help="how sure, 0..1")
    p.add_argument("--sensitivity", choices=SENSITIVITIES, default="normal")
    p.add_argument("--retention", choices=RETENTIONS, default="normal")
    p.add_argument("--expires-at", metavar="TIME", help="no read returns it after TIME")
    p.add_argument("--valid-from", metavar="TIME", help="when the fact starts to hold")
    p.add_argument("--valid-to", metavar="TIME", help="when the fact stops holding")
    p.add_argument("--operation-id", help="idempotency key: a retry returns the same id")
    _identity_flags(p)


Handler = Callable[[Context], int]


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", default=argparse.SUPPRESS, help="project directory (TREE_RING_ROOT)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document")

    parser = argparse.ArgumentParser(
        prog="tree-ring",
        description="Tree Ring: local, governed memory for coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"tree-ring {__version__}")
    parser.add_argument("--root", help="project directory (default: walk up to .tree-ring/)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def verb(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    verb("init", cmd_init, "create .tree-ring/ with the store, project.json and guidance")

    p = verb("remember", cmd_remember, "store a memory")
    _memory_flags(p)
    p.add_argument("--supersedes", metavar="ID", help="this memory replaces ID")

    p = verb("evidence", cmd_evidence, "store the outcome of an evaluation, run or incident")
    _memory_flags(p, ring=False)
    p.add_argument("--outcome", required=True, choices=sorted(verbs.EVIDENCE_OUTCOMES))
    p.add_argument("--evidence-ref", required=True, help="the run, eval or incident")
    p.add_argument("--score", type=float, help="confidence from the evaluation, 0..1")

    p = verb("capture", cmd_capture, "the stop hook's narrow write: agent scope, fixed pairs")
    _memory_flags(p)

    p = verb("recall", cmd_recall, "search memories, best first")
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT)
    p.add_argument("--scope", choices=SCOPES)
    _view_flags(p)
    _identity_flags(p)

    p = verb("brief", cmd_brief, "the startup brief the SessionStart hook injects")
    p.add_argument("--harness", default="cli", help="whose receipt to write (default: cli)")
    _view_flags(p)
    _identity_flags(p)

    p = verb("list", cmd_list, "list live memories of the project, newest first")
    p.add_argument("--project", help="project id (default: .tree-ring/project.json)")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--ring", choices=RINGS)
    p.add_argument("--trust", choices=TRUST_STATES)
    p.add_argument("--limit", type=int, default=100)
    _view_flags(p)

    p = verb("show", cmd_show, "show one memory, every field")
    p.add_argument("id")

    p = verb("forget", cmd_forget, "delete or redact a memory; its content never comes back")
    p.add_argument("id")
    p.add_argument("--mode", choices=("delete", "redact"), required=True)
    p.add_argument("--reason", required=True, help="why; kept in the audit log")

    p = verb("supersede", cmd_supersede, "mark OLD_ID as replaced by NEW_ID")
    p.add_argument("old_id")
    p.add_argument("new_id")
    p.add_argument("--reason", required=True)

    p = verb("export", cmd_export, "write the project's memories as JSONL")
    p.add_argument("--project")
    p.add_argument("--include-sensitive", action="store_true")
    p.add_argument("--include-superseded", action="store_true", help="also retired rows")
    p.add_argument("--output", metavar="FILE", help="write here instead of stdout")

    p = verb("import", cmd_import, "import JSONL (Tree Ring's or the original's); all or nothing")
    p.add_argument("path", help="a JSONL file, or - for stdin")
    p.add_argument("--dry-run", action="store_true", help="check every line, write nothing")
    _identity_flags(p)

    p = verb("audit", cmd_audit_log, "the audit log of every change")
    audit_sub = p.add_subparsers(dest="audit_command", metavar="ACTION")
    q = audit_sub.add_parser("log", parents=[common], help="show the latest entries")
    q.set_defaults(handler=cmd_audit_log)
    for target in (p, q):
        target.add_argument("--limit", type=int, default=50)
        target.add_argument("--target", help="only entries about this memory id")
    q = audit_sub.add_parser("verify", parents=[common], help="check the hash chain")
    q.set_defaults(handler=cmd_audit_verify)

    verb("status", cmd_status, "what the store holds and whether the hooks fired")
    return parser


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    ctx = Context(args, os.environ if environ is None else environ, sys.stdout)
    handler: Handler = args.handler
    try:
        return handler(ctx)
    except TreeRingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except sqlite3.Error as exc:
        print(f"error: store error ({exc}); run `tree-ring doctor`", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
