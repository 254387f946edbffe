"""`usage`: what Tree Ring put into agents' context, from the usage log."""

from __future__ import annotations

from tree_ring.cli.context import Arguments, Context, Handler

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def cmd_usage(ctx: Context) -> int:
    from tree_ring.upkeep import usage

    a = ctx.args
    since = usage.parse_since(a.since) if a.since is not None else None
    # An agent's top memories are of the rows its recall reads (`live.visible`); a
    # person's, all; neither's those whose content the other store forgot.
    with ctx.project() as project:
        report = project.usage(since)
    ctx.emit(report.to_dict(), "\n".join(report_lines(report)))
    return 0


def report_lines(report: object) -> list[str]:
    from tree_ring.upkeep.usage import Report

    assert isinstance(report, Report)
    r = report
    period = f"since {r.since[:19]}Z" if r.since else "all the log holds"
    injected = r.injected
    b, c, rc, own = r.briefs, r.checkpoints, r.recalls, r.own_recalls
    lines = [
        f"usage, {period}",
        f"sessions:     {r.sessions:,}",
        f"briefs:       {b.count:,} ({b.bytes:,} bytes, ~{b.tokens:,} tokens)",
        f"checkpoints:  {c.count:,} asked ({c.bytes:,} bytes, "
        f"~{c.tokens:,} tokens); {r.model_turns:,} model "
        f"{'turn' if r.model_turns == 1 else 'turns'} added",
        f"captures:     {r.captures:,} stored",
        f"recalls:      {rc.count:,} ({rc.bytes:,} bytes, ~{rc.tokens:,} tokens)"
        + (f"; and {own.count:,} of your own, not injected" if own.count else ""),
        f"injected:     {injected.bytes:,} bytes, ~{injected.tokens:,} tokens (bytes / 4)",
    ]
    if r.top:
        lines.append("injected most:")
        for memory_id, n, summary in r.top:
            shown = (summary or "(forgotten)").replace("\n", " ")
            lines.append(f"  {n:>4}x {memory_id}  {shown[:70]}")
    if r.skipped:
        lines.append(f"skipped {r.skipped:,} lines of the log that are not usage entries")
    lines += r.notes
    from tree_ring.upkeep.usage import GUARANTEE

    lines.append(GUARANTEE)
    return lines


def _usage_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--since", metavar="AGE", help="only the last AGE: 30m, 24h, 7d, 2w (or an ISO time)"
    )


EXAMPLES: dict[str, tuple[str, ...]] = {
    "usage": (
        "tree-ring usage",
        "tree-ring usage --since 7d",
        "tree-ring --json usage --since 24h",
    ),
}

VERBS: dict[str, tuple[Handler, Arguments]] = {
    "usage": (cmd_usage, _usage_arguments),
}
