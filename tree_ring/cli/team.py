"""The `sync` verb: the team ledger (`.tree-ring/ledger.jsonl`) and the store, both ways."""

from __future__ import annotations

import sys
from pathlib import Path

from tree_ring.cli import progress
from tree_ring.cli.context import SKIPPED_SHOWN, Arguments, Context, Handler
from tree_ring.model.errors import TreeRingError, UnsafePath
from tree_ring.team import repository as team
from tree_ring.team import sync

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def cmd_sync(ctx: Context) -> int:
    root = Path(ctx.root())
    identity = ctx.identity(root)
    # create: a fresh clone has the committed project.json and ledger, no database yet.
    with ctx.project(str(root), create=True) as project, progress.Reporter() as reporter:
        # The store opened first: one refused (an empty file) leaves git's config as it was.
        _ = project.store
        setup = team.setup(root) if ctx.args.setup else None
        report = project.sync(progress=reporter)
    items = [{"line": s.line, "reason": s.reason} for s in report.skipped]
    data: dict[str, object] = {
        "command": "sync",
        "project": identity.project,
        "path": report.path,
        "imported": len(report.imported),
        "replaced": len(report.replaced),
        "forgotten": len(report.forgotten),
        "redacted": len(report.redacted),
        "skipped": len(report.skipped),
        # Lines not from the upstream: pending rows and requests to forget, for a person.
        "claimed": report.claimed,
        "requested": report.requested,
        "history_tombstones": report.history,
        "notes": report.notes,
        "upstream": report.upstream,
        "lines": report.lines,
        "written": [report.path] if report.written else [],
        "kept": [] if report.written else [report.path],
        "audit_anchor": report.audit or "ok",
        "items": items,
        "total": len(items),
        "shown": len(items),
    }
    if setup is not None:
        data["driver"] = setup.driver
    name = f".tree-ring/{sync.ledger.PATH}"
    claims = report.claimed or report.requested
    lines = [
        f"ledger:     {name} ({report.lines} lines, "
        + ("written" if report.written else "unchanged")
        + ")",
        f"imported:   {len(report.imported)}",
        f"replaced:   {len(report.replaced)}",
        f"forgotten:  {len(report.forgotten)}",
        f"redacted:   {len(report.redacted)}",
        f"skipped:    {len(report.skipped)}",
        f"claims:     {len(report.claimed) + len(report.requested)}"
        + (" (not from upstream; waiting in `tree-ring review list`)" if claims else ""),
        f"upstream:   {report.upstream or 'none (every line this clone did not write is a claim)'}",
        f"audit:      {report.audit or 'ok (matches the ledger anchor)'}",
    ]
    lines += [f"  {s.named(name)}" for s in report.skipped[:SKIPPED_SHOWN]]
    if len(report.skipped) > SKIPPED_SHOWN:
        rest = len(report.skipped) - SKIPPED_SHOWN
        lines.append(f"  ... and {rest} more skipped lines (--json lists them all)")
    lines += [f"note:       {note}" for note in report.notes]
    ctx.emit(data, "\n".join(lines))
    return 1 if report.audit else 0


def _sync_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--setup",
        action="store_true",
        help="also write .tree-ring/.gitattributes and configure git's merge driver (as init does)",
    )


def after_write(ctx: Context) -> None:
    """A person's write, into the ledger at once when the project has one, so
    `git status` shows it; an agent's waits for the next sync
    (`Project.into_ledger`). A ledger that cannot take it now costs a line on
    stderr, never the write. One that is not a regular file (a FIFO would hold
    this process, and the store's lock, forever) is refused before it is
    opened: the write stays committed, and the command fails with one line
    that says so."""
    try:
        with ctx.project() as opened:
            opened.into_ledger()
    except UnsafePath as exc:
        raise UnsafePath(
            f"the write is committed to the store, but the team ledger was not updated: {exc}"
        ) from None
    except TreeRingError as exc:
        note = f"note: the team ledger was not updated ({exc}); run `tree-ring sync`"
        print(note, file=sys.stderr)


EXAMPLES: dict[str, tuple[str, ...]] = {
    "sync": ("tree-ring sync", "tree-ring --json sync", "tree-ring sync --setup"),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {"sync": (cmd_sync, _sync_arguments)}
