"""Verbs that sync memory from files the project keeps: `dox sync`, `revolve sync`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tree_ring.cli import progress
from tree_ring.cli.context import Arguments, Context, Handler, identity_flags, listing, nested
from tree_ring.sources import dox, revolve
from tree_ring.sources.filesync import KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

CHANGES = {
    "create": ("created", "would create"),
    "update": ("updated", "would update"),
    "retire": ("retired", "would retire"),
    "unchanged": ("unchanged", "unchanged"),
    "held": ("held", "would hold"),
    "forgotten": ("not restored", "would not restore"),
}


def _source_root(ctx: Context, root: Path, default: str) -> Path:
    given: str | None = ctx.args.source_root
    # Not given: the project's own files, wherever the command runs from.
    return Path(given) if given else root / default


def describe(report: dict[str, Any]) -> str:
    dry = bool(report["dry_run"])
    changes: dict[str, list[dict[str, Any]]] = report["changes"]
    counts = ", ".join(
        f"{len(changes[kind])} {CHANGES[kind][dry]}" for kind in KINDS if changes[kind]
    )
    head = (
        f"{report['adapter']} sync of {report['source_root']} "
        f"(files read: {report['files_read']}{', file cap reached' if report['capped'] else ''})"
        f": {counts or 'nothing to do'}"
    )
    if report["waiting_for_review"]:
        head += f"; {report['waiting_for_review']} {'would wait' if dry else 'wait'} for review"
    lines = [head]
    for kind in KINDS:
        if kind == "unchanged":
            continue
        for item in changes[kind]:
            line = f"  {CHANGES[kind][dry]:<17} {item['id']} [{item['ring']}] {item['key']}"
            if kind == "update":
                line += f" (replaces {', '.join(item['replaces'])})"
            if item.get("trust") not in (None, "accepted", "retired"):
                line += f" [{item['trust']}]"
            if item["reason"]:
                line += f": {item['reason']}"
            lines.append(line)
    lines += [f"  skipped           {s['where']}: {s['reason']}" for s in report["skipped"]]
    if report["unlisted"]:
        lines.append(
            f"note: git could not list this repository's files ({report['unlisted']}), so the "
            "folder was walked and files git ignores were read too; fix git, or name the "
            "folder to read with --source-root"
        )
    if dry:
        lines.append("dry run: nothing was written; run again without --dry-run to apply")
    lines.append("The source files stay authoritative: re-read them before acting on these.")
    return "\n".join(lines)


def _sync(ctx: Context, sync: Callable[..., dict[str, Any]], default: str) -> int:
    """Run one adapter's sync (`dox.sync`, `revolve.sync`) and report it."""
    root = Path(ctx.root())
    identity = ctx.identity(root)
    with ctx.store(root) as store, progress.Reporter() as reporter:
        report = sync(
            store,
            _source_root(ctx, root, default),
            identity,
            ctx.actor(identity),
            dry_run=ctx.args.dry_run,
            progress=reporter,
        )
    ctx.emit(sync_data(report), describe(report))
    return 0


def cmd_dox(ctx: Context) -> int:
    return _sync(ctx, dox.sync, ".")


def sync_data(report: dict[str, Any]) -> dict[str, Any]:
    """A sync's report with its one list: each change (`change`: create, update,
    retire, unchanged, held, forgotten, skipped), the counts by change beside it."""
    changes: dict[str, list[dict[str, Any]]] = report["changes"]
    items = [{"change": kind, **item} for kind in KINDS for item in changes[kind]]
    items += [{"change": "skipped", **skipped} for skipped in report["skipped"]]
    counts = {kind: len(changes[kind]) for kind in KINDS}
    counts["skipped"] = len(report["skipped"])
    data = {key: value for key, value in report.items() if key not in ("changes", "skipped")}
    return data | {"counts": counts} | listing(items)


def cmd_revolve(ctx: Context) -> int:
    return _sync(ctx, revolve.sync, "revolve")


def _sync_flags(p: argparse.ArgumentParser, what: str, default: str) -> None:
    p.add_argument(
        "--source-root",
        metavar="PATH",
        help=f"{what} (default: {default} in the project root)",
    )
    p.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    identity_flags(p, writes=True)


def _dox_arguments(p: argparse.ArgumentParser) -> None:
    s = nested(p, "dox_action", "dox")(
        "sync", cmd_dox, "summarise AGENTS.md sections into memory; never modifies the files"
    )
    _sync_flags(s, "a folder to search for AGENTS.md, or one AGENTS.md", "'.'")


def _revolve_arguments(p: argparse.ArgumentParser) -> None:
    s = nested(p, "revolve_action", "revolve")(
        "sync", cmd_revolve, "store Revolve outcomes as memory; never modifies the records"
    )
    _sync_flags(s, "a Revolve folder or one evidence file", "'revolve'")


EXAMPLES: dict[str, tuple[str, ...]] = {
    "dox": ("tree-ring dox sync --dry-run", "tree-ring dox sync"),
    "revolve": (
        "tree-ring revolve sync --dry-run",
        "tree-ring revolve sync --source-root ../evals/revolve",
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "dox": (cmd_dox, _dox_arguments),
    "revolve": (cmd_revolve, _revolve_arguments),
}
