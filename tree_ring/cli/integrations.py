"""Verbs about Tree Ring in its surroundings: integrations, recall-quality, welcome."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from tree_ring.cli.context import Arguments, Context, Handler, listing, nested, reshaped
from tree_ring.harness import certify, integrations, welcome
from tree_ring.model import project
from tree_ring.model.errors import UsageError
from tree_ring.upkeep import quality

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def _found_root(ctx: Context) -> Path | None:
    """The project, if there is one; these verbs also speak of a folder without one."""
    given = getattr(ctx.args, "root", None) or ctx.environ.get("TREE_RING_ROOT")
    if given:
        return project.normalise_root(Path(given))
    return project.find_root(Path.cwd())


def _status_lines(harnesses: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for h in harnesses:
        lines.append(
            f"{h['name']}: {h['state']} (plugin {h['plugin']}, hooks {h['hooks']}, "
            f"trust {h['trust']}, last brief {h['last_brief'] or 'never'})"
        )
        lines += [f"  {gap['gap']}: {gap['fix']}" for gap in h["gaps"]]
    return lines


def cmd_scan(ctx: Context) -> int:
    given = ctx.args.source_root
    root = Path(given).resolve() if given else (_found_root(ctx) or Path.cwd())
    if given and not root.is_dir():
        # A missing path or a file would scan as "0 detected", which reads as an answer.
        raise UsageError(
            f"--source-root {given} is not a directory: pass the project folder to scan"
        )
    found = integrations.scan(root, ctx.environ)
    lines = [f"{sum(d.status == 'detected' for d in found)} detected under {root}"]
    for d in found:
        where = ", ".join(f"{m.origin}:{m.path}" for m in d.markers) or "no markers"
        lines.append(f"{d.name:<16} {d.status:<9} {where}")
        if d.markers:
            lines.append(f"{'':<16} next: {d.next_step}")
    data = {"root": str(root), **listing([d.to_dict() for d in found])}
    ctx.emit(data, "\n".join(lines))
    return 0


def cmd_status(ctx: Context) -> int:
    root = _found_root(ctx)
    harnesses = [h.to_dict() for h in integrations.status(root, ctx.environ)]
    head = f"project: {root}" if root else "project: none here (`tree-ring init` creates one)"
    ctx.emit(
        {"root": str(root) if root else None, **listing(harnesses)},
        "\n".join([head, *_status_lines(harnesses)]),
    )
    return 0


def cmd_certify(ctx: Context) -> int:
    root = Path(ctx.root())
    out_dir = Path(ctx.args.out_dir) if ctx.args.out_dir else root / certify.DEFAULT_OUT
    data = certify.certify(root, ctx.environ, out_dir)
    lines = _status_lines(data["harnesses"])
    for h in data["harnesses"]:
        lines.append(f"{h['name']} live round trip ({h['round_trip_plugin']}):")
        for check in h["checks"]:
            mark = "ok  " if check["ok"] else "FAIL"
            lines.append(f"  {mark} {check['name']}: {check['detail']}")
    why = f": {data['next']}" if data["next"] else ""
    lines.append(f"certification {'passed' if data['passed'] else 'FAILED'}{why}; wrote:")
    lines += [f"  {path}" for path in data["files"]]
    shaped = reshaped(data, "harnesses")
    shaped["scan"] = {d["name"]: d for d in data.get("scan") or ()}
    ctx.emit(shaped, "\n".join(lines))
    return 0 if data["passed"] else 1


def cmd_recall_quality(ctx: Context) -> int:
    a = ctx.args
    source = Path(a.source_root) if a.source_root else Path.cwd()
    out_dir = Path(a.out_dir) if a.out_dir else source / certify.DEFAULT_OUT
    paths = [Path(p) for p in a.paths] or [quality.DEFAULT_PATH]
    data = certify.recall_quality(paths, out_dir, ctx.environ)
    lines = [f"recall quality: {data['status']}; {quality.summary_line(data)}"]
    lines += [f"  FAIL {name}" for name in data["failed"]]
    lines += ["wrote:", *(f"  {path}" for path in data["files"])]
    ctx.emit(reshaped(data, "scenarios"), "\n".join(lines))
    return 0 if data["status"] == "pass" else 1


FRAMES = ("  .  ", " (.) ", "((.))", "(((.)))", "((((.))))")


def cmd_welcome(ctx: Context) -> int:
    data = welcome.tour(_found_root(ctx), ctx.environ, init=ctx.args.init, cwd=Path.cwd())
    # Rings growing, once, only for a person at a terminal who did not ask for none.
    animate = not ctx.as_json and not ctx.args.no_animation and _is_terminal(ctx)
    if animate:
        for frame in FRAMES:
            ctx.out.write(f"\r{frame:^11}")
            ctx.out.flush()
            time.sleep(0.12)
        ctx.out.write("\r" + " " * 11 + "\r")
    shaped = reshaped(data, "try")
    shaped["hooks"] = {h["harness"]: h for h in data.get("hooks") or ()}
    ctx.emit(shaped, "\n".join(welcome.render(data)))
    return 0


def _is_terminal(ctx: Context) -> bool:
    isatty = getattr(ctx.out, "isatty", None)
    return bool(isatty and isatty()) and ctx.out is sys.stdout


def _integrations_arguments(p: argparse.ArgumentParser) -> None:
    action = nested(p, "integrations_action", "integrations")
    s = action(
        "scan",
        cmd_scan,
        "markers of DOX, Revolve, Codex, Claude Code, Agent Zero, Goose, OpenCode, Hermes "
        "and Pi in the project and the home folder",
    )
    s.add_argument("--source-root", metavar="PATH", help="the folder to scan (default: project)")
    action(
        "status",
        cmd_status,
        "per harness: installed, plugin installed and enabled, hooks wired, Codex's trust, "
        "hooks fired (receipts), and the command that fixes each gap",
    )
    s = action(
        "certify",
        cmd_certify,
        "status plus a live hook round trip against the store, as a JSON and Markdown report; "
        "exit 1 unless it passes",
    )
    s.add_argument(
        "--out-dir",
        metavar="DIR",
        help="where the report goes (default: target/tree-ring-certification in the project)",
    )


def _recall_quality_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="scenario files or folders")
    p.add_argument("--source-root", metavar="PATH", help="the report goes under here (default: .)")
    p.add_argument(
        "--out-dir",
        metavar="DIR",
        help="where the report goes (default: SOURCE_ROOT/target/tree-ring-certification)",
    )


def _welcome_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--init", action="store_true", help="create the store here if there is none")
    p.add_argument("--no-animation", action="store_true", help="print the tour, nothing else")


EXAMPLES: dict[str, tuple[str, ...]] = {
    "integrations": (
        "tree-ring integrations scan",
        "tree-ring integrations status",
        "tree-ring integrations certify --out-dir target/cert",
    ),
    "recall-quality": (
        "tree-ring recall-quality",
        "tree-ring recall-quality fixtures/quality --out-dir target/quality",
    ),
    "welcome": ("tree-ring welcome", "tree-ring welcome --init --no-animation"),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "integrations": (cmd_status, _integrations_arguments),
    "recall-quality": (cmd_recall_quality, _recall_quality_arguments),
    "welcome": (cmd_welcome, _welcome_arguments),
}
